package track

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// arSeries returns k AR(2) series of n values each, channel after
// channel, and the same windows as a series-layout split.
func arSeries(k, n, t, h int, rng *rand.Rand) (zs [][]float64, s Split) {
	var all []float64
	for range k {
		z := make([]float64, n)
		a, b := 0.5+0.4*rng.Float64(), -0.3*rng.Float64()
		for i := range z {
			z[i] = rng.NormFloat64() + 0.3
			if i > 1 {
				z[i] += a*z[i-1] + b*z[i-2]
			}
		}
		zs = append(zs, z)
		all = append(all, z...)
	}
	per := n - t - h + 1
	return zs, Split{X: all, Y: all, N: k * per, T: t, H: h, C: 1, Per: per}
}

func TestSeriesLayoutWindow(t *testing.T) {
	// Two series of 5 values, T = 2, H = 1: 3 windows each.
	z := []float64{1, 2, 3, 4, 5, 10, 20, 30, 40, 50}
	s := Split{X: z, Y: z, N: 6, T: 2, H: 1, C: 1, Per: 3}
	for _, tc := range []struct {
		name string
		n    int
		x, y []float64
	}{
		{"first", 0, []float64{1, 2}, []float64{1, 2, 3}},
		{"last of series 0", 2, []float64{3, 4}, []float64{3, 4, 5}},
		{"first of series 1", 3, []float64{10, 20}, []float64{10, 20, 30}},
		{"last", 5, []float64{30, 40}, []float64{30, 40, 50}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, y := s.Window(tc.n)
			assert.Equal(t, tc.x, x)
			assert.Equal(t, tc.y, y)
		})
	}
	assert.Equal(t, 2, s.Series())
	sub := s.Sub(1)
	x, _ := sub.Window(0)
	assert.Equal(t, []float64{10, 20}, x)
	assert.Panics(t, func() { s.Sub(2) })
	bad := s
	bad.N = 5 // not a whole number of series
	assert.Panics(t, func() { bad.Window(0) })
	// Univariate of a two-channel series split keeps the layout.
	two := Split{X: []float64{1, -1, 2, -2, 3, -3, 4, -4}, Y: []float64{1, 2, 3, 4}, N: 2, T: 2, H: 1, C: 2, Per: 2}
	u := Univariate(&two, 1)
	ux, _ := u.Window(1)
	assert.Equal(t, []float64{-2, -3}, ux)
}

// packedOf copies the windows of a series-layout split into the packed
// layout, where FitLinear (QR) applies.
func packedOf(s *Split) Split {
	p := Split{X: make([]float64, s.N*s.T*s.C), Y: make([]float64, s.N*(s.T+s.H)), N: s.N, T: s.T, H: s.H, C: s.C}
	for n := range s.N {
		x, y := s.Window(n)
		px, py := p.Window(n)
		copy(px, x)
		copy(py, y)
	}
	return p
}

// TestFitSeriesMatchesQR: the normal equations built by the sliding
// recurrence give the maps Householder QR gives on the same windows,
// shared and per series, raw and centred.
func TestFitSeriesMatchesQR(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	_, s := arSeries(3, 200, 12, 4, rng)
	for _, centred := range []bool{false, true} {
		name := map[bool]string{false: "raw", true: "centred"}[centred]
		fitQR := FitLinear
		if centred {
			fitQR = FitLinearCentred
		}
		t.Run(name+"/shared", func(t *testing.T) {
			got, err := FitSeries(&s, centred)
			require.NoError(t, err)
			p := packedOf(&s)
			want, err := fitQR(&p)
			require.NoError(t, err)
			assert.InDeltaSlice(t, want.W, got.W, 1e-9)
			assert.InDeltaSlice(t, want.B, got.B, 1e-9)
			assert.InDelta(t, want.MSE(&p), got.MSE(&s), 1e-12)
		})
		t.Run(name+"/per series", func(t *testing.T) {
			got, err := FitPerSeries(&s, centred)
			require.NoError(t, err)
			require.Len(t, got, 3)
			var sse float64
			for k := range 3 {
				sub := s.Sub(k)
				p := packedOf(&sub)
				want, err := fitQR(&p)
				require.NoError(t, err)
				assert.InDeltaSlice(t, want.W, got[k].W, 1e-9)
				sse += want.MSE(&p) * float64(p.N*p.H)
			}
			assert.InDelta(t, sse/float64(s.N*s.H), PerSeriesMSE(got, &s), 1e-12)
			// One map per series fits its own series at least as well as
			// the shared one.
			shared, err := FitSeries(&s, centred)
			require.NoError(t, err)
			assert.LessOrEqual(t, PerSeriesMSE(got, &s), shared.MSE(&s))
		})
	}
}

// TestGramByHand: the sums of two windows of a tiny series, by hand.
func TestGramByHand(t *testing.T) {
	// z = 1 2 3, K = 2: windows (1,2) and (2,3).
	g := newGram(2)
	g.addSeries([]float64{1, 2, 3}, 2)
	// S = [[1+4, 2+6], [2+6, 4+9]], s = (3, 5), n = 2.
	assert.Equal(t, []float64{5, 8, 8, 13}, g.S)
	assert.Equal(t, []float64{3, 5}, g.s)
	assert.Equal(t, 2.0, g.n)
}

func TestFitSeriesErrors(t *testing.T) {
	// A constant series: the normal equations are singular.
	z := make([]float64, 40)
	for i := range z {
		z[i] = 2
	}
	s := Split{X: z, Y: z, N: 40 - 5 - 2 + 1, T: 5, H: 2, C: 1, Per: 40 - 5 - 2 + 1}
	_, err := FitSeries(&s, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "collinear")
	// Too few windows for the inputs.
	rng := rand.New(rand.NewPCG(1, 2))
	_, few := arSeries(1, 10, 8, 1, rng)
	_, err = FitSeries(&few, false)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "too few")
	// Packed or multichannel splits are programmer errors.
	p := packedOf(&few)
	assert.Panics(t, func() { FitSeries(&p, false) })
}
