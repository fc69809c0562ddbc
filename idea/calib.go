package idea

// calibSpec recalibrates the forecast step by step with a learnable scale
// and offset per horizon step, starting at the identity map (as post-hoc
// calibration layers do, but trained with the model).
var calibSpec = Spec{
	Name:      "calib",
	Doc:       "a learnable scale and offset per horizon step on the forecasts (head site): ŷ_h ← γ_h·ŷ_h + δ_h, starting at γ = 1, δ = 0",
	Rationale: "A scale and offset per horizon step can correct a bias that depends on how far ahead the model forecasts.",
	New: func(Params) (Idea, error) {
		return Calib{}, nil
	},
}

// Calib is the calib idea.
type Calib struct{}

func (Calib) Config() Config { return Config{Name: "calib"} }
func (Calib) Site() Site     { return SiteHead }
func (Calib) Identity() bool { return false }
func (Calib) Tensors(s Shape) []Tensor {
	return []Tensor{{Name: "scale", Shape: []int{s.C}, Kind: Gain}, {Name: "offset", Shape: []int{s.C}, Kind: Bias}}
}
func (Calib) State(Shape) int      { return 0 }
func (Calib) Scratch(Shape) int    { return 0 }
func (Calib) Float32() Op[float32] { return calibOp[float32]{} }
func (Calib) Float64() Op[float64] { return calibOp[float64]{} }

type calibOp[F Float] struct{}

// Forward: y[·,h] = γ_h·x[·,h] + δ_h.
func (calibOp[F]) Forward(y, _, x, theta []F, s Shape) {
	g, d := theta[:s.C], theta[s.C:2*s.C]
	for r := range s.B * s.N {
		for h := range s.C {
			y[r*s.C+h] = F(g[h]*x[r*s.C+h]) + d[h]
		}
	}
}

// Backward: dx = γ⊙dy, dγ_h += Σ x·dy, dδ_h += Σ dy (rows in order).
func (calibOp[F]) Backward(dx, dtheta, _, dy, x, _, theta []F, s Shape) {
	g := theta[:s.C]
	dg, dd := dtheta[:s.C], dtheta[s.C:2*s.C]
	for r := range s.B * s.N {
		for h := range s.C {
			i := r*s.C + h
			dx[i] = g[h] * dy[i]
			dg[h] += F(x[i] * dy[i])
			dd[h] += dy[i]
		}
	}
}
