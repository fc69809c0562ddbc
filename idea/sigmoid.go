package idea

// sigmoidSpec gates each token of each block's attention branch by a
// learnable sigmoid of the token itself (a scalar output gate in the
// spirit of gated attention, e.g. Qiu et al. 2025, "Gated Attention for
// Large Language Models"): g_t = σ(w·a_t + b), a_t ← g_t·a_t.
var sigmoidSpec = Spec{
	Name:      "sigmoid",
	Doc:       "a learnable sigmoid gate per token on the attention branch: a_t ← σ(w·a_t + b)·a_t, b starting at bias",
	Rationale: "A gate per token on the attention branch can shut out the tokens whose attention output does not help.",
	Params: []Param{
		{Name: "bias", Default: 2, Doc: "b's start value (σ(2) ≈ 0.88: the gate starts mostly open)",
			Space:  &Range{Lo: -2, Hi: 4},
			Source: "no paper fixes it: the gate starts from mostly shut (0.12) to nearly open (0.98)"},
	},
	New: func(p Params) (Idea, error) {
		b, _ := p.Get("bias")
		return Sigmoid{Bias: b}, nil
	},
}

// Sigmoid is the sigmoid idea at one setting.
type Sigmoid struct{ Bias float64 }

func (g Sigmoid) Config() Config {
	return Config{Name: "sigmoid", Params: NewParams(map[string]float64{"bias": g.Bias})}
}
func (Sigmoid) Site() Site     { return SiteAttention }
func (Sigmoid) Identity() bool { return false }
func (g Sigmoid) Tensors(s Shape) []Tensor {
	return []Tensor{{Name: "weight", Shape: []int{s.C}, Kind: Weight}, {Name: "bias", Shape: []int{1}, Kind: Constant, Value: g.Bias}}
}
func (Sigmoid) State(s Shape) int    { return s.N } // the gates g_t
func (Sigmoid) Scratch(Shape) int    { return 0 }
func (Sigmoid) Float32() Op[float32] { return sigmoidOp[float32]{} }
func (Sigmoid) Float64() Op[float64] { return sigmoidOp[float64]{} }

type sigmoidOp[F Float] struct{}

// Forward: z_t = Σ_c w_c·x_{t,c} + b, g_t = 1/(1+e^{-z_t}), y_t = g_t·x_t;
// the gates go to state.
func (sigmoidOp[F]) Forward(y, state, x, theta []F, s Shape) {
	w, b := theta[:s.C], theta[s.C]
	for r := range s.B * s.N {
		row := x[r*s.C : (r+1)*s.C]
		z := b
		for c, v := range row {
			z += F(w[c] * v)
		}
		g := sigmoid(z)
		state[r] = g
		for c, v := range row {
			y[r*s.C+c] = g * v
		}
	}
}

// Backward: dg_t = Σ_c dy·x, dz_t = dg_t·g_t·(1-g_t),
// dx = g_t·dy + dz_t·w, dw += Σ_t dz_t·x_t, db += Σ_t dz_t.
func (sigmoidOp[F]) Backward(dx, dtheta, _, dy, x, state, theta []F, s Shape) {
	w := theta[:s.C]
	for r := range s.B * s.N {
		lo := r * s.C
		g := state[r]
		var dg F
		for c := range s.C {
			dg += F(dy[lo+c] * x[lo+c])
		}
		dz := F(F(dg*g) * (1 - g))
		for c := range s.C {
			dx[lo+c] = F(g*dy[lo+c]) + F(dz*w[c])
			dtheta[c] += F(dz * x[lo+c])
		}
		dtheta[s.C] += dz
	}
}
