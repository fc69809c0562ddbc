package idea

// layerScaleSpec scales each block's MLP branch channel by channel with a
// learnable vector that starts small (LayerScale, Touvron et al. 2021,
// "Going deeper with Image Transformers", §3).
var layerScaleSpec = Spec{
	Name:      "layerscale",
	Doc:       "a learnable per-channel scale γ on each block's MLP branch, starting at init (LayerScale): m ← γ⊙m",
	Rationale: "A learnable per-channel scale on the MLP branch lets training decide how much of each channel enters the residual stream.",
	Params: []Param{
		{Name: "init", Default: 0.1, Doc: "every γ_c's start value",
			Space:  &Range{Lo: 1e-6, Hi: 0.1, Scale: ScaleLog},
			Source: "Touvron et al. 2021 (CaiT) start γ at 0.1 for shallow models down to 1e-6 for deep ones"},
	},
	New: func(p Params) (Idea, error) {
		a, _ := p.Get("init")
		return LayerScale{Init: a}, nil
	},
}

// LayerScale is the layerscale idea at one setting.
type LayerScale struct{ Init float64 }

func (l LayerScale) Config() Config {
	return Config{Name: "layerscale", Params: NewParams(map[string]float64{"init": l.Init})}
}
func (LayerScale) Site() Site     { return SiteMLP }
func (LayerScale) Identity() bool { return false }
func (l LayerScale) Tensors(s Shape) []Tensor {
	return []Tensor{{Name: "gamma", Shape: []int{s.C}, Kind: Constant, Value: l.Init}}
}
func (LayerScale) State(Shape) int      { return 0 }
func (LayerScale) Scratch(Shape) int    { return 0 }
func (LayerScale) Float32() Op[float32] { return layerScaleOp[float32]{} }
func (LayerScale) Float64() Op[float64] { return layerScaleOp[float64]{} }

type layerScaleOp[F Float] struct{}

// Forward: y[·,c] = γ_c·x[·,c].
func (layerScaleOp[F]) Forward(y, _, x, theta []F, s Shape) {
	for r := range s.B * s.N {
		for c, g := range theta[:s.C] {
			y[r*s.C+c] = g * x[r*s.C+c]
		}
	}
}

// Backward: dx = γ⊙dy, dγ_c += Σ_rows x·dy (rows in increasing order).
func (layerScaleOp[F]) Backward(dx, dtheta, _, dy, x, _, theta []F, s Shape) {
	for r := range s.B * s.N {
		for c, g := range theta[:s.C] {
			i := r*s.C + c
			dx[i] = g * dy[i]
			dtheta[c] += F(x[i] * dy[i])
		}
	}
}
