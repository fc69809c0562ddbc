package track

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// seriesSplit windows a raw single-channel series without normalization.
func seriesSplit(series []float64, t, h int) Split {
	return cut(series, 1, 0, len(series)-t-h+1, t, h)
}

func TestLastPositionMSE(t *testing.T) {
	// Two windows of T = 2, H = 2 from 1 2 4 8 16: targets (4,8) and (8,16).
	s := seriesSplit([]float64{1, 2, 4, 8, 16}, 2, 2)
	for _, tc := range []struct {
		name string
		pred []float64
		want float64
	}{
		{"exact", []float64{4, 8, 8, 16}, 0},
		// errors 1, -2, 0, 3: (1+4+0+9)/4
		{"mixed", []float64{5, 6, 8, 19}, 3.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.InDelta(t, tc.want, LastPositionMSE(tc.pred, &s), 1e-15)
		})
	}
	assert.Panics(t, func() { LastPositionMSE(make([]float64, 3), &s) })
}

func TestPersistence(t *testing.T) {
	for _, tc := range []struct {
		name   string
		series []float64
		t, h   int
		want   float64
	}{
		// Windows (1,2|4,8), (2,4|8,16): errors 2,6 and 4,12 -> (4+36+16+144)/4.
		{"doubling", []float64{1, 2, 4, 8, 16}, 2, 2, 50},
		// A constant series is forecast exactly.
		{"constant", []float64{3, 3, 3, 3}, 1, 2, 0},
		// T = 1, H = 1 windows (0|1), (1|-1), (-1|2): errors 1, -2, 3 -> 14/3.
		{"zigzag", []float64{0, 1, -1, 2}, 1, 1, 14.0 / 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := seriesSplit(tc.series, tc.t, tc.h)
			assert.InDelta(t, tc.want, Persistence(&s, 0), 1e-12)
		})
	}
}

func TestPersistenceTargetChannel(t *testing.T) {
	// Two channels; the target is channel 1, so channel 0 must be ignored.
	series := []float64{100, 1, -100, 2, 100, 4, -100, 8} // (L=4,C=2)
	s := cut(series, 2, 1, 2, 1, 2)
	// Windows (1|2,4), (2|4,8): errors 1,3 and 2,6 -> (1+9+4+36)/4.
	assert.InDelta(t, 12.5, Persistence(&s, 1), 1e-12)
	assert.Panics(t, func() { Persistence(&s, 2) })
}

func TestFitLinear(t *testing.T) {
	sine := func(l int, omega, phase, offset float64) []float64 {
		out := make([]float64, l)
		for i := range out {
			out[i] = offset + math.Sin(omega*float64(i)+phase)
		}
		return out
	}
	// A noiseless AR(2) x_t = 1.5·x_{t-1} - 0.98·x_{t-2} + 0.2: complex roots
	// of modulus 0.99, damped slowly enough to stay informative over 300 steps.
	ar2 := []float64{1, -0.5}
	for len(ar2) < 300 {
		n := len(ar2)
		ar2 = append(ar2, 1.5*ar2[n-1]-0.98*ar2[n-2]+0.2)
	}
	for _, tc := range []struct {
		name   string
		series []float64
	}{
		// A sinusoid satisfies x_t = 2cos(ω)·x_{t-1} - x_{t-2}; T = 2 keeps A full rank.
		{"sinusoid", sine(300, 2*math.Pi/9.3, 0.4, 0)},
		// The offset exercises the intercept.
		{"offset sinusoid", sine(300, 2*math.Pi/17, 1.1, 2.5)},
		{"ar2", ar2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			train := seriesSplit(tc.series[:200], 2, 5)
			test := seriesSplit(tc.series[150:], 2, 5)
			l, err := FitLinear(&train)
			require.NoError(t, err)
			require.Equal(t, [3]int{2, 5, 1}, [3]int{l.T, l.H, l.C})
			require.Len(t, l.W, 5*2)
			require.Len(t, l.B, 5)
			assert.Less(t, l.MSE(&train), 1e-18)
			assert.Less(t, l.MSE(&test), 1e-18, "an exact linear process must be recovered out of sample")
			assert.Greater(t, Persistence(&test, 0), 1e-3, "the process must not be trivially predictable")
		})
	}
}

func TestFitLinearErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		series []float64
		t, h   int
	}{
		// 5 windows of T = 5 need N >= 6.
		{"too few windows", []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 5, 1},
		// A constant series is collinear with the intercept.
		{"collinear", make([]float64, 40), 2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := seriesSplit(tc.series, tc.t, tc.h)
			_, err := FitLinear(&s)
			require.Error(t, err)
			t.Log(err)
		})
	}
}

func TestLinearPredictOverwrites(t *testing.T) {
	l := &Linear{W: []float64{1, 2, 0, -1}, B: []float64{0.5, 3}, T: 2, H: 2, C: 1}
	dst := []float64{math.NaN(), 1e300} // garbage that must be overwritten
	l.Predict(dst, []float64{4, 5})
	assert.Equal(t, []float64{4 + 10 + 0.5, -5 + 3}, dst)
	assert.Panics(t, func() { l.Predict(dst, []float64{1}) })
}

func TestLinearBeatsPersistence(t *testing.T) {
	d, err := Sequence(DefaultSequenceConfig())
	require.NoError(t, err)
	l, err := FitLinear(&d.Train)
	require.NoError(t, err)
	pers, lin := Persistence(&d.Test, d.Target), l.MSE(&d.Test)
	t.Logf("default sequence track, test split: persistence MSE %.4f, linear MSE %.4f, noise floor %.4f", pers, lin, d.NoiseFloor)
	assert.Less(t, lin, pers)
	assert.Greater(t, lin, d.NoiseFloor*0.8, "no forecaster should be far below the noise floor")
}

// TestFitLinearCentred: on windows whose targets are an exact
// last-value-centred linear map of the inputs, the fit recovers the map
// (and a zero weight on the last input), and its forecasts move with a
// level shift of the window one for one.
func TestFitLinearCentred(t *testing.T) {
	const n, tt, h = 200, 5, 3
	r := rand.New(rand.NewPCG(3, 3))
	a := [h][tt - 1]float64{{0.5, -0.2, 0.1, 0.3}, {0, 0, 1, -1}, {-0.4, 0.2, 0.2, 0.6}}
	b := [h]float64{0.25, -1, 2}
	s := Split{X: make([]float64, n*tt), Y: make([]float64, n*(tt+h)), N: n, T: tt, H: h, C: 1}
	for i := range n {
		x, y := s.Window(i)
		level := 10 * r.NormFloat64()
		for j := range x {
			x[j] = level + r.NormFloat64()
			y[j] = x[j]
		}
		last := x[tt-1]
		for k := range h {
			v := last + b[k]
			for j := range tt - 1 {
				v += a[k][j] * (x[j] - last)
			}
			y[tt+k] = v
		}
	}
	l, err := FitLinearCentred(&s)
	require.NoError(t, err)
	require.True(t, l.Centred)
	for k := range h {
		for j := range tt - 1 {
			require.InDelta(t, a[k][j], l.W[k*tt+j], 1e-12)
		}
		require.Zero(t, l.W[k*tt+tt-1], "the centred last input has no weight")
		require.InDelta(t, b[k], l.B[k], 1e-12)
	}
	require.InDelta(t, 0, l.MSE(&s), 1e-20)

	x := []float64{1, -2, 0.5, 3, 2}
	p, q := make([]float64, h), make([]float64, h)
	l.Predict(p, x)
	shifted := make([]float64, tt)
	for j := range x {
		shifted[j] = x[j] + 100
	}
	l.Predict(q, shifted)
	for k := range h {
		require.InDelta(t, p[k]+100, q[k], 1e-12, "a level shift moves the forecast by the same")
	}
	require.Panics(t, func() { FitLinearCentred(&Split{C: 2}) })
}

func TestSeasonalPersistence(t *testing.T) {
	for _, tc := range []struct {
		name      string
		series    []float64
		t, h, p   int
		want      float64
		byPersist float64 // plain persistence on the same windows, for contrast
	}{
		// A pure season of 3 (1, 5, 2, 1, 5, 2, ...) is forecast exactly,
		// over more than one period ahead (H = 4 > p: ⌈h/p⌉ = 2 for h = 4).
		{"pure_season", []float64{1, 5, 2, 1, 5, 2, 1, 5, 2, 1, 5}, 3, 4, 3, 0, -1},
		// p = 1 is persistence: windows (1,2|4,8), (2,4|8,16) as in
		// TestPersistence, 50.
		{"period_one", []float64{1, 2, 4, 8, 16}, 2, 2, 1, 50, 50},
		// Season 2 under a trend of +1 per step: 0 1 | 2 3 4, 1 2 | 3 4 5.
		// ŷ = x_{T-1+h-2}: (0, 1, 0) against (2, 3, 4): errors 2, 2, 4; the
		// second window the same: (4+4+16)·2/6 = 8.
		{"trend", []float64{0, 1, 2, 3, 4, 5}, 2, 3, 2, 8, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := seriesSplit(tc.series, tc.t, tc.h)
			assert.InDelta(t, tc.want, SeasonalPersistence(&s, 0, tc.p), 1e-12)
			if tc.byPersist >= 0 {
				assert.InDelta(t, tc.byPersist, Persistence(&s, 0), 1e-12)
			}
		})
	}
	s := seriesSplit([]float64{1, 2, 3, 4}, 2, 1)
	assert.Panics(t, func() { SeasonalPersistence(&s, 0, 3) }, "a period longer than T")
	assert.Panics(t, func() { SeasonalPersistence(&s, 0, 0) })
}

// TestLevelShift: on a series whose test period is the train period
// shifted up by a constant, the centred map forecasts as well as on train
// (it is shift-equivariant) and the plain least-squares map does not.
func TestLevelShift(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	const tt, h = 4, 2
	ar := func(n int, level float64) Split {
		x := make([]float64, n)
		for i := 1; i < n; i++ {
			x[i] = 0.9*x[i-1] + r.NormFloat64()
		}
		for i := range x {
			x[i] += level
		}
		return seriesSplit(x, tt, h)
	}
	train, test := ar(400, 0), ar(400, 50)
	cen, err := FitLinearCentred(&train)
	require.NoError(t, err)
	lin, err := FitLinear(&train)
	require.NoError(t, err)
	// An AR(1) with coefficient 0.9 has h-step error variance
	// (1-0.9^{2h})/(1-0.81): 1 and 1.81, mean 1.405.
	assert.InDelta(t, 1.405, cen.MSE(&test), 0.35)
	assert.Greater(t, lin.MSE(&test), 10*cen.MSE(&test), "the plain map's intercept pulls to the train level")
}

// TestFitLinearCentredNormalEquations: on noisy windows the QR fit agrees
// with the normal equations (AᵀA)·w = Aᵀ·y of the centred design, solved
// here by Gauss-Jordan elimination with partial pivoting.
func TestFitLinearCentredNormalEquations(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	series := make([]float64, 120)
	for i := 1; i < len(series); i++ {
		series[i] = 0.7*series[i-1] + r.NormFloat64() + 0.3*math.Sin(float64(i))
	}
	const tt, h = 4, 2
	s := seriesSplit(series, tt, h)
	l, err := FitLinearCentred(&s)
	require.NoError(t, err)
	p := tt // T-1 centred inputs and an intercept
	for k := range h {
		m := make([][]float64, p) // the augmented system [AᵀA | Aᵀy]
		for i := range m {
			m[i] = make([]float64, p+1)
		}
		for n := range s.N {
			x, y := s.Window(n)
			row := make([]float64, p)
			for j := range tt - 1 {
				row[j] = x[j] - x[tt-1]
			}
			row[p-1] = 1
			for i := range p {
				for j := range p {
					m[i][j] += row[i] * row[j]
				}
				m[i][p] += row[i] * (y[tt+k] - x[tt-1])
			}
		}
		for c := range p {
			piv := c
			for i := c + 1; i < p; i++ {
				if math.Abs(m[i][c]) > math.Abs(m[piv][c]) {
					piv = i
				}
			}
			m[c], m[piv] = m[piv], m[c]
			for i := range p {
				if i != c {
					f := m[i][c] / m[c][c]
					for j := c; j <= p; j++ {
						m[i][j] -= f * m[c][j]
					}
				}
			}
		}
		for j := range tt - 1 {
			assert.InDelta(t, m[j][p]/m[j][j], l.W[k*tt+j], 1e-10, "h %d weight %d", k+1, j)
		}
		assert.InDelta(t, m[p-1][p]/m[p-1][p-1], l.B[k], 1e-10, "h %d intercept", k+1)
	}
}
