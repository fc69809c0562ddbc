package idea

// rezeroSpec scales each block's attention branch by a learnable scalar
// that starts at init (ReZero, Bachlechner et al. 2021, "ReZero is All
// You Need": α starts at 0, so each block starts as the identity).
var rezeroSpec = Spec{
	Name:      "rezero",
	Doc:       "a learnable scalar α per block on the attention branch, starting at init (ReZero): a ← α·a",
	Rationale: "A learnable scale on the attention branch, starting at zero, lets training decide how much attention enters the residual stream.",
	Params: []Param{
		{Name: "init", Default: 0, Doc: "α's start value",
			Source: "Bachlechner et al. 2021 (ReZero) start α at 0, the identity, by design: not tuned"},
	},
	New: func(p Params) (Idea, error) {
		a, _ := p.Get("init")
		return ReZero{Init: a}, nil
	},
}

// ReZero is the rezero idea at one setting.
type ReZero struct{ Init float64 }

func (r ReZero) Config() Config {
	return Config{Name: "rezero", Params: NewParams(map[string]float64{"init": r.Init})}
}
func (ReZero) Site() Site     { return SiteAttention }
func (ReZero) Identity() bool { return false }
func (r ReZero) Tensors(Shape) []Tensor {
	return []Tensor{{Name: "alpha", Shape: []int{1}, Kind: Constant, Value: r.Init}}
}
func (ReZero) State(Shape) int      { return 0 }
func (ReZero) Scratch(Shape) int    { return 0 }
func (ReZero) Float32() Op[float32] { return rezeroOp[float32]{} }
func (ReZero) Float64() Op[float64] { return rezeroOp[float64]{} }

type rezeroOp[F Float] struct{}

// Forward: y = α·x.
func (rezeroOp[F]) Forward(y, _, x, theta []F, _ Shape) {
	a := theta[0]
	for i, v := range x {
		y[i] = a * v
	}
}

// Backward: dx = α·dy, dα += Σ x·dy, summed into dα element by element
// in order (so a batch run in chunks sums the same).
func (rezeroOp[F]) Backward(dx, dtheta, _, dy, x, _, theta []F, _ Shape) {
	a := theta[0]
	for i, g := range dy {
		dx[i] = a * g
		dtheta[0] += F(x[i] * g)
	}
}
