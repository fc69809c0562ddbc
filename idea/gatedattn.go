package idea

import (
	"github.com/ideabench/ideabench/internal/kernel"
)

// gatedAttnSpec is gated attention (Qiu et al., NeurIPS 2025, "Gated
// Attention for Large Language Models: Non-linearity, Sparsity, and
// Attention-Sink-Free"), its best variant: each head's attention output
// multiplied elementwise by a sigmoid gate of the block's normalized
// input, after the scaled dot-product attention and before the output
// projection:
//
//	a ← a ⊙ σ(x·W + b)      a the heads' outputs (D), x = ln1(h) (D)
//
// W starts as a weight (N(0, 0.02²)) and b at bias, so the gate starts
// near σ(bias): 1/2 at the default 0, as the paper's bias-free gate; at
// a bias of 20 σ rounds to 1 in float32 and the untrained model is the
// baseline's.
var gatedAttnSpec = Spec{
	Name:      "gated-attn",
	Doc:       "gated attention: each head's output times σ(x·W + b), x the block's normalized input, elementwise, before the output projection",
	Rationale: "A sigmoid gate on each head's output adds a non-linearity and sparsity after attention, and lets a head say nothing.",
	Params: []Param{
		{Name: "bias", Default: 0, Doc: "b's start value (the gate starts near σ(bias))",
			Space:  &Range{Lo: -2, Hi: 4},
			Source: "Qiu et al. 2025 (gated attention) start the gate's bias at 0, σ = 1/2; the range starts it from mostly shut (0.12) to nearly open (0.98)"},
	},
	New: func(p Params) (Idea, error) {
		b, _ := p.Get("bias")
		return GatedAttn{Bias: b}, nil
	},
}

// GatedAttn is the gated-attn idea at one setting.
type GatedAttn struct{ Bias float64 }

func (g GatedAttn) Config() Config {
	return Config{Name: "gated-attn", Params: NewParams(map[string]float64{"bias": g.Bias})}
}
func (GatedAttn) Site() Site     { return SiteHeads }
func (GatedAttn) Identity() bool { return false }

// Tensors: the gate's weight, (D,D) stored input-major (w[k,c] maps
// input channel k to gate c), and its bias (D).
func (g GatedAttn) Tensors(s Shape) []Tensor {
	d := s.Out
	return []Tensor{
		{Name: "w", Shape: []int{d, d}, Kind: Weight},
		{Name: "b", Shape: []int{d}, Kind: Constant, Value: g.Bias},
	}
}

// State is the gate σ(x·W + b), (N,D) per window; Scratch the gate's
// pre-activation gradient (B,N,D) and W transposed (D,D).
func (GatedAttn) State(s Shape) int    { return s.N * s.Out }
func (GatedAttn) Scratch(s Shape) int  { return s.B*s.N*s.Out + s.Out*s.Out }
func (GatedAttn) Float32() Op[float32] { return gatedAttnOp[float32]{} }
func (GatedAttn) Float64() Op[float64] { return gatedAttnOp[float64]{} }

type gatedAttnOp[F Float] struct{}

// Forward: x is (B,N,2D), each token's heads' outputs a then its
// normalized input z; y is (B,N,D):
//
//	u = z·W + b (kernel.Gemm's sums),  g = σ(u) in float64 rounded,  y = a·g
func (gatedAttnOp[F]) Forward(y, state, x, theta []F, s Shape) {
	d, n := s.Out, s.B*s.N
	w, b := theta[:d*d], theta[d*d:d*d+d]
	g := state[:n*d]
	kernel.Gemm(g, d, x[d:], 2*d, 1, w, d, b, n, d, d, false)
	for r := range n {
		a, gr, yr := x[r*2*d:][:d], g[r*d:][:d], y[r*d:][:d]
		for c, u := range gr {
			v := sigmoid(u)
			gr[c] = v
			yr[c] = a[c] * v
		}
	}
}

// Backward mirrors Forward: da = dy·g; du = (dy·a)·(g·(1−g)); dW += zᵀ·du
// and db += Σ du, row by row in order; dz = du·Wᵀ.
func (gatedAttnOp[F]) Backward(dx, dtheta, scratch, dy, x, state, theta []F, s Shape) {
	d, n := s.Out, s.B*s.N
	w := theta[:d*d]
	dw, db := dtheta[:d*d], dtheta[d*d:d*d+d]
	g := state[:n*d]
	du, wt := scratch[:n*d], scratch[n*d:n*d+d*d]
	for r := range n {
		a, gr, dyr := x[r*2*d:][:d], g[r*d:][:d], dy[r*d:][:d]
		dar, dur := dx[r*2*d:][:d], du[r*d:][:d]
		for c, v := range gr {
			dar[c] = dyr[c] * v
			dur[c] = F(dyr[c]*a[c]) * F(v*(1-v))
		}
	}
	// dW[k,c] += Σ_r z[r,k]·du[r,c]: A = zᵀ read through strides.
	kernel.Gemm(dw, d, x[d:], 1, 2*d, du, d, nil, d, d, n, true)
	for r := range n {
		for c, v := range du[r*d:][:d] {
			db[c] += v
		}
	}
	kernel.PackT(wt, w, d, d)
	// dz = du·Wᵀ, into the second half of each token's row.
	kernel.Gemm(dx[d:], 2*d, du, d, 1, wt, d, nil, n, d, d, false)
}
