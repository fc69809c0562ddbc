package idea

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRegistry: every registered idea builds at its defaults, reports its
// own name, and is the identity exactly at its Off setting.
func TestRegistry(t *testing.T) {
	for _, s := range registry {
		t.Run(s.Name, func(t *testing.T) {
			i, err := New(Config{Name: s.Name})
			require.NoError(t, err)
			require.Equal(t, s.Name, i.Config().Name)
			require.Contains(t, Sites, i.Site())
			if s.Off == nil {
				require.False(t, i.Identity())
				return
			}
			off, err := New(Config{Name: s.Name, Params: NewParams(s.Off)})
			require.NoError(t, err)
			require.True(t, off.Identity())
		})
	}
	_, err := New(Config{Name: "nope"})
	require.ErrorContains(t, err, `"nope" is not a registered idea; use one of gate, rezero`)
	_, err = New(Config{Name: "gate", Params: NewParams(map[string]float64{"gamma": 1})})
	require.ErrorContains(t, err, `gate has no parameter "gamma"; its parameters are rho, beta`)
	_, err = New(Config{Name: "qk-norm", Params: NewParams(map[string]float64{"x": 1})})
	require.ErrorContains(t, err, `qk-norm has no parameter "x"; it takes none, so write it alone: qk-norm`)
	_, err = New(Config{Name: "gate", Params: NewParams(map[string]float64{"rho": 1})})
	require.ErrorContains(t, err, "rho = 1: must be in [0,1)")
}

// opGradTol bounds the relative error of an Op's analytic gradients
// against central differences in float64 (step 1e-6: truncation ~1e-12,
// rounding ~1e-10 relative).
const opGradTol = 1e-6

// TestOpGradients: for every registered idea that is not the identity at
// its defaults, Backward is the gradient of L = Σ dy·Forward(x, θ) with
// respect to x and θ, by central finite differences in float64, and
// Forward writes every output and state value.
func TestOpGradients(t *testing.T) {
	for _, s := range registry {
		i, err := New(Config{Name: s.Name})
		require.NoError(t, err)
		if i.Identity() {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			sh := Shape{B: 2, N: 5, C: 4}
			switch i.Site() {
			case SiteLogits:
				sh.Heads, sh.Out = 3, 3*sh.N
			case SiteQK:
				sh.Heads, sh.C = 2, 3*4
			case SiteHeads:
				sh.Heads, sh.C, sh.Out = 2, 2*4, 4
			case SiteNorm, SiteFFN: // token-wise: every token a window
				sh = Shape{B: 10, N: 1, C: 4}
			}
			r := rand.New(rand.NewPCG(3, uint64(len(s.Name))))
			randv := func(n int) []float64 {
				v := make([]float64, n)
				for k := range v {
					v[k] = r.NormFloat64()
				}
				return v
			}
			nt := 0
			for _, tn := range i.Tensors(sh) {
				nt += tn.Size()
			}
			x, theta, dy := randv(sh.Len()), randv(nt), randv(sh.YLen())
			op := i.Float64()
			state := make([]float64, sh.B*i.State(sh))
			loss := func() float64 {
				y := make([]float64, sh.YLen())
				op.Forward(y, state, x, theta, sh)
				var l float64
				for k, v := range y {
					l += v * dy[k]
				}
				return l
			}
			// Forward overwrites: garbage in y and state must not leak.
			y := randv(sh.YLen())
			for k := range state {
				state[k] = math.NaN()
			}
			op.Forward(y, state, x, theta, sh)
			for k, v := range y {
				require.False(t, math.IsNaN(v), "y[%d]", k)
			}
			dx := randv(sh.Len()) // overwritten
			dtheta := make([]float64, nt)
			op.Backward(dx, dtheta, make([]float64, i.Scratch(sh)), dy, x, state, theta, sh)
			check := func(name string, v, analytic []float64) {
				t.Helper()
				var diff, scale float64
				for k := range v {
					old := v[k]
					v[k] = old + 1e-6
					lp := loss()
					v[k] = old - 1e-6
					lm := loss()
					v[k] = old
					num := (lp - lm) / 2e-6
					diff = max(diff, math.Abs(num-analytic[k]))
					scale = max(scale, math.Abs(num), math.Abs(analytic[k]))
				}
				require.LessOrEqual(t, diff, opGradTol*max(scale, 1), "%s: max abs err %.3g (scale %.3g)", name, diff, scale)
			}
			check("x", x, dx)
			if nt > 0 {
				check("theta", theta, dtheta)
				// dtheta accumulates: a second pass onto ones adds the same
				// (after a Forward at θ: the differences moved the state).
				op.Forward(y, state, x, theta, sh)
				acc := make([]float64, nt)
				for k := range acc {
					acc[k] = 1
				}
				op.Backward(dx, acc, make([]float64, i.Scratch(sh)), dy, x, state, theta, sh)
				for k := range acc {
					require.InDelta(t, 1+dtheta[k], acc[k], 1e-12, "dtheta[%d] accumulates", k)
				}
			}
		})
	}
}

// TestSpaces: every declared space is a valid range whose every value
// (its ends, and values drawn across it) builds the idea, and says where
// it comes from; a parameter without one says why (its Source), and the
// ideas without parameters have no space.
func TestSpaces(t *testing.T) {
	for _, s := range registry {
		t.Run(s.Name, func(t *testing.T) {
			for _, p := range s.Params {
				if p.Space == nil {
					continue
				}
				require.NoError(t, p.Space.Validate(), p.Name)
				require.NotEmpty(t, p.Source, "%s: a space says where it comes from", p.Name)
				for _, u := range []float64{0, 0.25, 0.5, 0.75, 0.999999} {
					v := p.Space.At(u)
					_, err := New(Config{Name: s.Name, Params: NewParams(map[string]float64{p.Name: v})})
					require.NoError(t, err, "%s = %v (u %v)", p.Name, v, u)
				}
			}
			require.Equal(t, len(SpaceOf(s.Name)), countSpaces(s), "SpaceOf lists every declared space")
		})
	}
	require.Equal(t, Space{"bias": {Lo: 0, Hi: 4}}, SpaceOf("fox"))
	require.Empty(t, SpaceOf("qk-norm"))
}

func countSpaces(s Spec) int {
	n := 0
	for _, p := range s.Params {
		if p.Space != nil {
			n++
		}
	}
	return n
}

// TestRange: a range's quantiles on each scale, by hand, and its text
// read back.
func TestRange(t *testing.T) {
	for _, c := range []struct {
		text string
		r    Range
		at   map[float64]float64
	}{
		{"0..4", Range{Lo: 0, Hi: 4}, map[float64]float64{0: 0, 0.5: 2, 0.25: 1}},
		{"0.25..4/log", Range{Lo: 0.25, Hi: 4, Scale: ScaleLog}, map[float64]float64{0: 0.25, 0.5: 1, 0.75: 2}},
		{"2..8/int", Range{Lo: 2, Hi: 8, Scale: ScaleInt}, map[float64]float64{0: 2, 0.5: 5, 0.999: 8, 1.0 / 7: 3}},
		{"1|2|4", Range{Values: []float64{1, 2, 4}}, map[float64]float64{0: 1, 0.34: 2, 0.99: 4}},
	} {
		t.Run(c.text, func(t *testing.T) {
			r, ok, err := ParseRange(c.text)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, c.r, r)
			require.Equal(t, c.text, r.String())
			for u, want := range c.at {
				require.InDelta(t, want, r.At(u), 1e-12, "u %v", u)
			}
		})
	}
	for _, bad := range []string{"4..0", "0..4/cubic", "-1..1/log", "0.2..0.8/int", "a..b", "1|x"} {
		_, ok, err := ParseRange(bad)
		require.True(t, ok)
		require.Error(t, err, bad)
	}
	_, ok, err := ParseRange("2")
	require.False(t, ok)
	require.NoError(t, err)
	for _, c := range []struct {
		r       Range
		x, want float64
	}{
		{Range{Lo: 0, Hi: 4}, 2, 2}, {Range{Lo: 0, Hi: 4}, -1, 0}, {Range{Lo: 0, Hi: 4}, 9, 4},
		{Range{Lo: 2, Hi: 8, Scale: ScaleInt}, 3.4, 3}, {Range{Lo: 2.5, Hi: 8, Scale: ScaleInt}, 1, 3},
		{Range{Values: []float64{1, 2, 4}}, 2.9, 2}, {Range{Values: []float64{1, 2, 4}}, 3.1, 4},
	} {
		require.Equal(t, c.want, c.r.Clamp(c.x), "%s clamps %v", c.r, c.x)
	}
}
