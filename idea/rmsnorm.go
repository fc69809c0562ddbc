package idea

// rmsNormSpec is RMSNorm (Zhang and Sennrich 2019, "Root Mean Square
// Layer Normalization") in place of every LayerNorm of the model: each
// token's vector divided by its root mean square and scaled by a
// learnable gain, without LayerNorm's centring and bias:
//
//	y = g ⊙ x / √(mean(x²) + ε),  ε = 1e-5 (the LayerNorm's)
//
// A gain of D per normalization (2L+1 of them) replaces the LayerNorm's
// gain and bias, which stay in the model at their start (D of each per
// normalization fewer trained parameters).
var rmsNormSpec = Spec{
	Name:      "rmsnorm",
	Doc:       "RMSNorm in place of every LayerNorm (norm site): y = g⊙x/rms(x), no centring, no bias, g from 1",
	Rationale: "RMSNorm drops LayerNorm's centring and bias, a cheaper normalization that is meant to train as well.",
	New: func(Params) (Idea, error) {
		return RMSNorm{}, nil
	},
}

// rmsNormEps is RMSNorm's ε, the model's LayerNorm's
// (transformer.LayerNormEps), so that the two differ in the centring and
// the bias alone.
const rmsNormEps = 1e-5

// RMSNorm is the rmsnorm idea.
type RMSNorm struct{}

func (RMSNorm) Config() Config    { return Config{Name: "rmsnorm"} }
func (RMSNorm) Site() Site        { return SiteNorm }
func (RMSNorm) Identity() bool    { return false }
func (RMSNorm) Scratch(Shape) int { return 0 }

// Tensors: the gain (D), from 1.
func (RMSNorm) Tensors(s Shape) []Tensor {
	return []Tensor{{Name: "gain", Shape: []int{s.C}, Kind: Gain}}
}

// State is each token's reciprocal RMS: N per window.
func (RMSNorm) State(s Shape) int    { return s.N }
func (RMSNorm) Float32() Op[float32] { return rmsNormOp[float32]{} }
func (RMSNorm) Float64() Op[float64] { return rmsNormOp[float64]{} }

type rmsNormOp[F Float] struct{}

// Forward: per token, r = 1/√(Σx²/D + ε) in float64 rounded to F (the
// sum in increasing channel), y = g·(x·r) (rmsForward).
func (rmsNormOp[F]) Forward(y, state, x, theta []F, s Shape) {
	for r := range s.B * s.N {
		state[r] = rmsForward(y[r*s.C:][:s.C], x[r*s.C:][:s.C], theta[:s.C], rmsNormEps)
	}
}

// Backward mirrors Forward (rmsBackward): with n = x·r and dn = dy·g,
// dg += dy·n token by token in order, dx = r·(dn − n·Σ(dn·n)/D).
func (rmsNormOp[F]) Backward(dx, dtheta, _, dy, x, state, theta []F, s Shape) {
	for r := range s.B * s.N {
		o := r * s.C
		rmsBackward(dx[o:][:s.C], dtheta[:s.C], dy[o:][:s.C], x[o:][:s.C], theta[:s.C], state[r])
	}
}
