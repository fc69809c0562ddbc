package idea

import (
	"fmt"
	"math"

	"github.com/ideabench/ideabench/internal/kernel"
)

// swiGLUSpec is SwiGLU (Shazeer 2020, "GLU Variants Improve
// Transformer") in place of every block's GELU MLP (ffn site):
//
//	y = (silu(x·W1) ⊙ (x·W3))·W2,  silu(u) = u·σ(u)
//
// without biases, as the paper's variants. Its hidden width h is hidden,
// or at 0 the width that matches the parameters of the MLP it replaces
// (fc1 and fc2 with their biases, 8D² + 5D): h = ⌊(8D + 5)/3⌋, 3·D·h ≤
// 8D² + 5D (D = 16: h = 44, 2112 against 2128 parameters a block), the
// paper's 2/3 of 4D. Each weight starts as the model's, N(0, 0.02²).
var swiGLUSpec = Spec{
	Name:      "swiglu",
	Doc:       "SwiGLU in place of each block's GELU MLP (ffn site): y = (silu(x·W1)⊙(x·W3))·W2, no biases, hidden width matching the MLP's parameters unless hidden is set",
	Rationale: "A gated linear unit in the MLP lets each hidden unit be switched by the input, which is meant to fit better than GELU at the same parameter count.",
	Params: []Param{
		{Name: "hidden", Default: 0, Doc: "hidden width h; 0 matches the GELU MLP's parameters, ⌊(8D+5)/3⌋",
			Source: "Shazeer 2020 sets the hidden width so the gated MLP has the GELU one's parameters: not tuned, so the arms compare at one size"},
	},
	New: func(p Params) (Idea, error) {
		h, _ := p.Get("hidden")
		if h < 0 || h != math.Trunc(h) || h > 1<<16 {
			return nil, fmt.Errorf("hidden = %v: must be a whole number in [0, 65536]; use e.g. 0 (the width that matches the MLP's parameters)", h)
		}
		return SwiGLU{Hidden: int(h)}, nil
	},
}

// SwiGLU is the swiglu idea at one setting.
type SwiGLU struct{ Hidden int }

func (g SwiGLU) Config() Config {
	return Config{Name: "swiglu", Params: NewParams(map[string]float64{"hidden": float64(g.Hidden)})}
}
func (SwiGLU) Site() Site     { return SiteFFN }
func (SwiGLU) Identity() bool { return false }

// width is the hidden width at model width d.
func (g SwiGLU) width(d int) int {
	if g.Hidden > 0 {
		return g.Hidden
	}
	return (8*d + 5) / 3
}

// Tensors: W1 and W3 (D,h), input-major (w[k,j] maps input channel k to
// hidden unit j), and W2 (h,D).
func (g SwiGLU) Tensors(s Shape) []Tensor {
	h := g.width(s.C)
	return []Tensor{
		{Name: "w1", Shape: []int{s.C, h}, Kind: Weight},
		{Name: "w3", Shape: []int{s.C, h}, Kind: Weight},
		{Name: "w2", Shape: []int{h, s.C}, Kind: Weight},
	}
}

// State is each token's u = x·W1, v = x·W3 and a = silu(u)·v, (N,3h) per
// window; Scratch the gradients of a, u and v (B·N,h each) and the
// three weights transposed.
func (g SwiGLU) State(s Shape) int    { return 3 * g.width(s.C) * s.N }
func (g SwiGLU) Scratch(s Shape) int  { return 3 * g.width(s.C) * (s.B*s.N + s.C) }
func (g SwiGLU) Float32() Op[float32] { return swiGLUOp[float32]{g} }
func (g SwiGLU) Float64() Op[float64] { return swiGLUOp[float64]{g} }

type swiGLUOp[F Float] struct{ g SwiGLU }

// Forward: per token (kernel.Gemm's sums in increasing index)
//
//	u = x·W1,  v = x·W3,  a = (u·σ(u))·v,  y = a·W2
func (o swiGLUOp[F]) Forward(y, state, x, theta []F, s Shape) {
	d, h, n := s.C, o.g.width(s.C), s.B*s.N
	w1, w3, w2 := theta[:d*h], theta[d*h:2*d*h], theta[2*d*h:3*d*h]
	kernel.Gemm(state, 3*h, x, d, 1, w1, h, nil, n, h, d, false)
	kernel.Gemm(state[h:], 3*h, x, d, 1, w3, h, nil, n, h, d, false)
	for r := range n {
		st := state[r*3*h:][:3*h]
		u, v, a := st[:h], st[h:2*h], st[2*h:]
		for j, e := range u {
			a[j] = F(F(e*sigmoid(e)) * v[j])
		}
	}
	kernel.Gemm(y, d, state[2*h:], 3*h, 1, w2, d, nil, n, d, h, false)
}

// Backward mirrors Forward: da = dy·W2ᵀ; dW2 += aᵀ·dy; du = da·v·σ(u)·(1
// + u·(1 − σ(u))), dv = da·u·σ(u); dW1 += xᵀ·du, dW3 += xᵀ·dv, each sum
// over the tokens in order; dx = du·W1ᵀ + dv·W3ᵀ.
func (o swiGLUOp[F]) Backward(dx, dtheta, scratch, dy, x, state, theta []F, s Shape) {
	d, h, n := s.C, o.g.width(s.C), s.B*s.N
	w1, w3, w2 := theta[:d*h], theta[d*h:2*d*h], theta[2*d*h:3*d*h]
	dw1, dw3, dw2 := dtheta[:d*h], dtheta[d*h:2*d*h], dtheta[2*d*h:3*d*h]
	da, du, dv := scratch[:n*h], scratch[n*h:2*n*h], scratch[2*n*h:3*n*h]
	t := scratch[3*n*h:]
	w2t, w1t, w3t := t[:d*h], t[d*h:2*d*h], t[2*d*h:3*d*h]
	kernel.PackT(w2t, w2, h, d)
	kernel.Gemm(da, h, dy, d, 1, w2t, h, nil, n, h, d, false)
	// dW2[j,c] += Σ_r a[r,j]·dy[r,c]: A = aᵀ read through strides.
	kernel.Gemm(dw2, d, state[2*h:], 1, 3*h, dy, d, nil, h, d, n, true)
	for r := range n {
		st := state[r*3*h:][:3*h]
		u, v := st[:h], st[h:2*h]
		dar, dur, dvr := da[r*h:][:h], du[r*h:][:h], dv[r*h:][:h]
		for j, e := range u {
			sg := sigmoid(e)
			dvr[j] = dar[j] * F(e*sg)
			dur[j] = F(dar[j]*v[j]) * F(sg*F(1+F(e*(1-sg))))
		}
	}
	kernel.Gemm(dw1, h, x, 1, d, du, h, nil, d, h, n, true)
	kernel.Gemm(dw3, h, x, 1, d, dv, h, nil, d, h, n, true)
	kernel.PackT(w1t, w1, d, h)
	kernel.PackT(w3t, w3, d, h)
	kernel.Gemm(dx, d, du, h, 1, w1t, d, nil, n, d, h, false)
	kernel.Gemm(dx, d, dv, h, 1, w3t, d, nil, n, d, h, true)
}
