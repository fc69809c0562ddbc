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
