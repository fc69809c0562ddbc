package idea

// qkNormSpec is QK-norm (Henry et al. 2020, "Query-Key Normalization for
// Transformers"; Dehghani et al. 2023, ViT-22B): each head's query and
// key normalized before their product, here by RMSNorm with a learnable
// gain per channel of each head, as the Forgetting Transformer's code
// does (one gain per head and channel, not shared across heads):
//
//	q_h ← g_q,h ⊙ q_h / √(mean(q_h²) + ε),  k_h likewise,  ε = 1e-6
//
// The logits keep their 1/√hs scale, so with the gains at their start of
// 1 a logit lies within ±√hs; the gains learn the sharpness.
var qkNormSpec = Spec{
	Name:      "qk-norm",
	Doc:       "QK-norm: each head's query and key RMS-normalized, with a learnable gain per channel (q_h ← g⊙q_h/rms(q_h), k likewise), before their product",
	Rationale: "Normalizing queries and keys bounds the attention logits, which is meant to keep training stable at higher learning rates.",
	New: func(Params) (Idea, error) {
		return QKNorm{}, nil
	},
}

// QKNorm is the qk-norm idea.
type QKNorm struct{}

func (QKNorm) Config() Config    { return Config{Name: "qk-norm"} }
func (QKNorm) Site() Site        { return SiteQK }
func (QKNorm) Identity() bool    { return false }
func (QKNorm) Scratch(Shape) int { return 0 }

// Tensors: the gains of the queries then of the keys, (2,D), from 1.
func (QKNorm) Tensors(s Shape) []Tensor {
	return []Tensor{{Name: "gain", Shape: []int{2, s.C / 3}, Kind: Gain}}
}

// State is the reciprocal RMS of each token's queries and keys, head by
// head: (N,2,Heads) per window.
func (QKNorm) State(s Shape) int    { return 2 * s.Heads * s.N }
func (QKNorm) Float32() Op[float32] { return qkNormOp[float32]{} }
func (QKNorm) Float64() Op[float64] { return qkNormOp[float64]{} }

const qkNormEps = 1e-6

type qkNormOp[F Float] struct{}

// Forward: x and y are (B,N,3D) laid out [q | k | v], head h at columns
// h·hs of each; v is copied. Per token, part and head: ms = Σ v²/hs in
// increasing channel, r = 1/√(ms + ε) in float64 rounded to F, n = v·r,
// y = g·n.
func (qkNormOp[F]) Forward(y, state, x, theta []F, s Shape) {
	d := s.C / 3
	hs := d / s.Heads
	for r := range s.B * s.N {
		xr, yr := x[r*3*d:][:3*d], y[r*3*d:][:3*d]
		st := state[r*2*s.Heads:][:2*s.Heads]
		copy(yr[2*d:], xr[2*d:])
		for p := range 2 {
			for h := range s.Heads {
				o := p*d + h*hs
				st[p*s.Heads+h] = rmsForward(yr[o:][:hs], xr[o:][:hs], theta[o:][:hs], qkNormEps)
			}
		}
	}
}

// Backward mirrors Forward. With n = v·r and dn = dy·g:
//
//	dg += dy·n,  dv = r·(dn − n·Σ(dn·n)/hs)
//
// the sums in increasing channel, dg token by token in order; v's
// gradient is dy's.
func (qkNormOp[F]) Backward(dx, dtheta, _, dy, x, state, theta []F, s Shape) {
	d := s.C / 3
	hs := d / s.Heads
	for r := range s.B * s.N {
		xr, dyr, dxr := x[r*3*d:][:3*d], dy[r*3*d:][:3*d], dx[r*3*d:][:3*d]
		st := state[r*2*s.Heads:][:2*s.Heads]
		copy(dxr[2*d:], dyr[2*d:])
		for p := range 2 {
			for h := range s.Heads {
				o := p*d + h*hs
				rmsBackward(dxr[o:][:hs], dtheta[o:][:hs], dyr[o:][:hs], xr[o:][:hs], theta[o:][:hs], st[p*s.Heads+h])
			}
		}
	}
}
