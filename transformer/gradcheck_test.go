package transformer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ideabench/ideabench/idea"
)

// gradTol bounds the per-tensor relative error max|analytic-numeric| /
// max(|analytic|,|numeric|) in float64. Central differences with step
// gradEps have truncation error O(eps²·f”') ≈ 1e-10 and rounding error
// O(1e-16/eps) ≈ 1e-11 relative here, so 1e-7 leaves a wide margin while
// still catching any wrong term (those show up at 1e-2 or worse).
const (
	gradEps = 1e-5
	gradTol = 1e-7
)

func tinyConfig(g idea.Config) Config {
	return Config{D: 8, Heads: 2, Layers: 2, T: 5, H: 3, CIn: 2, Idea: g}
}

// randomModel returns a float64 model whose parameters are far from the
// init, so every nonlinearity is exercised.
func randomModel(t *testing.T, c Config, b int, r *rand.Rand) *Model[float64] {
	t.Helper()
	m, err := New[float64](c, b)
	if err != nil {
		t.Fatal(err)
	}
	for _, ti := range m.Params.Tensors {
		v := m.Params.View(ti)
		for i := range v {
			v[i] = 0.4 * r.NormFloat64()
			if ti.Kind == Gain {
				v[i] += 1
			}
		}
	}
	return m
}

// gradCase is one model of the gradient check.
type gradCase struct {
	name string
	g    idea.Config
	edit func(*Config)
}

// registryCases is every registered idea at its defaults on the patch
// and normalization model, where every site is live (the head site sits
// before the denormalization): a new idea gets its model-level gradient
// check from the registry.
func registryCases() []gradCase {
	var out []gradCase
	for _, name := range idea.Names() {
		out = append(out, gradCase{"idea_" + name, idea.Config{Name: name}, func(c *Config) {
			c.T, c.Patch, c.Norm, c.Target, c.Loss, c.Skip = 6, 2, NormRevIN, 1, LossLast, true
		}})
	}
	return out
}

func TestGradientCheck(t *testing.T) {
	for _, tc := range append([]gradCase{
		{"baseline", idea.Config{}, nil},
		{"gate", gateIdea(0.8, 0.7), nil},
		{"gate_rho0", gateIdea(0, 2), nil}, // no memory: gain depends on the current token only
		{"loss_last", idea.Config{}, func(c *Config) { c.Loss = LossLast }},
		// Three tokens of two positions: the embedding reads (P·CIn) rows.
		{"patch", gateIdea(0.8, 0.7), func(c *Config) { c.T, c.Patch = 6, 2 }},
		// RevIN on the second channel: the input gradient has the
		// normalization's and the denormalization's terms.
		{"revin", gateIdea(0.8, 0.7), func(c *Config) {
			c.T, c.Patch, c.Norm, c.Target, c.Loss = 6, 3, NormRevIN, 1, LossLast
		}},
		// The linear skip into the last token, on raw and on RevIN inputs.
		{"skip", idea.Config{}, func(c *Config) { c.Skip = true }},
		// NLinear's normalization: the last input is the level.
		{"last_skip", gateIdea(0.8, 0.7), func(c *Config) {
			c.T, c.Patch, c.Norm, c.Target, c.Loss, c.Skip = 6, 3, NormLast, 1, LossLast, true
		}},
		{"skip_revin", gateIdea(0.8, 0.7), func(c *Config) {
			c.T, c.Patch, c.Norm, c.Target, c.Loss, c.Skip = 6, 2, NormRevIN, 1, LossLast, true
		}},
	}, registryCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			c := tinyConfig(tc.g)
			if tc.edit != nil {
				tc.edit(&c)
			}
			const b = 3
			r := rand.New(rand.NewPCG(7, 1))
			m := randomModel(t, c, b, r)
			x := make([]float64, b*c.T*c.CIn)
			y := make([]float64, b*(c.T+c.H))
			for i := range x {
				x[i] = r.NormFloat64()
			}
			for i := range y {
				y[i] = r.NormFloat64()
			}
			x0 := append([]float64(nil), x...)
			loss := func() float64 {
				pred := m.Forward(x, b)
				return MSELoss(c, make([]float64, len(pred)), pred, y, b)
			}
			pred := m.Forward(x, b)
			dpred := make([]float64, len(pred))
			MSELoss(c, dpred, pred, y, b)
			dx := make([]float64, len(x))
			m.Backward(dx, dpred)
			if !equal(x, x0) {
				t.Fatal("Forward/Backward modified the input")
			}
			check := func(name string, v, analytic []float64) {
				t.Helper()
				num := numericGrad(loss, v)
				e := relErr(analytic, num)
				t.Logf("%-26s n=%-4d max rel err %.2e", name, len(v), e)
				if !(e <= gradTol) {
					t.Errorf("%s: max rel err %.3e > %.0e", name, e, gradTol)
				}
			}
			for _, ti := range m.Params.Tensors {
				check(ti.Name, m.Params.View(ti), m.Grads.View(ti))
			}
			check("input", x, dx)
		})
	}
}

// numericGrad returns the central differences of loss with respect to
// each element of v, step gradEps, and leaves v as it was.
func numericGrad(loss func() float64, v []float64) []float64 {
	num := make([]float64, len(v))
	for i := range v {
		old := v[i]
		v[i] = old + gradEps
		lp := loss()
		v[i] = old - gradEps
		lm := loss()
		v[i] = old
		num[i] = (lp - lm) / (2 * gradEps)
	}
	return num
}

// relErr is max|a-n| / max(max|a|, max|n|), or the absolute error when
// both are zero.
func relErr(a, n []float64) float64 {
	var diff, scale float64
	for i := range a {
		diff = max(diff, math.Abs(a[i]-n[i]))
		scale = max(scale, math.Abs(a[i]), math.Abs(n[i]))
	}
	if scale == 0 {
		return diff
	}
	return diff / scale
}

func equal[F Float](a, b []F) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(float64(a[i])) != math.Float64bits(float64(b[i])) {
			return false
		}
	}
	return true
}
