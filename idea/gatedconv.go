package idea

import (
	"fmt"
	"math"

	"github.com/ideabench/ideabench/internal/kernel"
)

// gatedConvSpec removes attention: at the heads site it ignores the
// heads' outputs and hands the output projection a short causal
// depthwise convolution of the block's normalized input, gated by a
// sigmoid of it, the gated-convolution mixer Zoology (Arora et al., ICLR
// 2024) sets against attention on MQAR:
//
//	y_t = (Σ_{k<K} w_k ⊙ z_{t−k}) ⊙ σ(z_t·W + b),   z = ln1(h)
//
// The attention still runs (its cost stays in the step); nothing of it
// reaches the model. It is a control, the literature's contrast: on a
// recall task it must be called worse than attention.
var gatedConvSpec = Spec{
	Name:      "gated-conv",
	Doc:       "attention removed (a control): the heads' outputs replaced by a short causal depthwise convolution of the block's normalized input, gated by σ(z·W + b) (Zoology's gated-convolution contrast)",
	Rationale: "A control: without attention, a track that needs content-dependent mixing should be lost.",
	Params: []Param{
		{Name: "width", Default: 3, Doc: "K, the convolution's taps (the token and the K-1 before it), an integer >= 1",
			Space:  &Range{Lo: 2, Hi: 8, Scale: ScaleInt},
			Source: "H3 and Hyena use 3 to 4 taps (Fu et al. 2023, Poli et al. 2023), as for conv"},
	},
	New: func(p Params) (Idea, error) {
		w, _ := p.Get("width")
		if w != math.Trunc(w) || w < 1 || w > 64 {
			return nil, fmt.Errorf("gated-conv.width = %v: must be an integer in [1, 64]; use e.g. 3", w)
		}
		return GatedConv{Width: int(w)}, nil
	},
}

// GatedConv is the gated-conv idea at one setting.
type GatedConv struct{ Width int }

func (g GatedConv) Config() Config {
	return Config{Name: "gated-conv", Params: NewParams(map[string]float64{"width": float64(g.Width)})}
}
func (GatedConv) Site() Site     { return SiteHeads }
func (GatedConv) Identity() bool { return false }

// Tensors: the convolution's first tap (D) from 1 and its other taps
// (K-1,D) from 0 (the convolution starts as z itself), the gate's weight
// (D,D, input-major) and bias (D) from 0.
func (g GatedConv) Tensors(s Shape) []Tensor {
	d := s.Out
	ts := []Tensor{{Name: "tap0", Shape: []int{d}, Kind: Gain}}
	if g.Width > 1 {
		ts = append(ts, Tensor{Name: "taps", Shape: []int{g.Width - 1, d}, Kind: Bias})
	}
	return append(ts, Tensor{Name: "w", Shape: []int{d, d}, Kind: Weight}, Tensor{Name: "b", Shape: []int{d}, Kind: Bias})
}

// State is the convolution v and the gate g, (N,D) each per window;
// Scratch the gate's pre-activation gradient (B,N,D), the convolution's
// output gradient (B,N,D) and W transposed (D,D).
func (GatedConv) State(s Shape) int      { return 2 * s.N * s.Out }
func (GatedConv) Scratch(s Shape) int    { return 2*s.B*s.N*s.Out + s.Out*s.Out }
func (g GatedConv) Float32() Op[float32] { return gatedConvOp[float32]{g.Width} }
func (g GatedConv) Float64() Op[float64] { return gatedConvOp[float64]{g.Width} }

type gatedConvOp[F Float] struct{ k int }

// split returns the taps (K,D) and the gate's w (D,D) and b (D) of theta.
func (o gatedConvOp[F]) split(theta []F, d int) (taps, w, b []F) {
	kd := o.k * d
	return theta[:kd], theta[kd : kd+d*d], theta[kd+d*d : kd+d*d+d]
}

// Forward: x is (B,N,2D), each token's heads' outputs (ignored) then z;
// y is (B,N,D). v_t = Σ_k w_k⊙z_{t−k} (k increasing, within the window),
// g = σ(z·W + b) (kernel.Gemm, σ in float64 rounded), y = v⊙g.
func (o gatedConvOp[F]) Forward(y, state, x, theta []F, s Shape) {
	d, n := s.Out, s.N
	taps, w, b := o.split(theta, d)
	for bi := range s.B {
		st := state[bi*2*n*d:][:2*n*d]
		v, g := st[:n*d], st[n*d:]
		xb := x[bi*n*2*d:][:n*2*d]
		kernel.Gemm(g, d, xb[d:], 2*d, 1, w, d, b, n, d, d, false)
		for t := range n {
			vt := v[t*d:][:d]
			clear(vt)
			for k := 0; k < o.k && k <= t; k++ {
				z, wk := xb[(t-k)*2*d+d:][:d], taps[k*d:][:d]
				for c := range vt {
					vt[c] += F(wk[c] * z[c])
				}
			}
			gt, yt := g[t*d:][:d], y[(bi*n+t)*d:][:d]
			for c, u := range gt {
				e := sigmoid(u)
				gt[c] = e
				yt[c] = vt[c] * e
			}
		}
	}
}

// Backward mirrors Forward: dv = dy⊙g, du = (dy⊙v)⊙(g(1−g)); the taps'
// gradient Σ_t dv_t⊙z_{t−k}, then W's and b's as gated-attn's, token by
// token in order; dz = du·Wᵀ + Σ_k w_k⊙dv_{t+k}; the heads' outputs get 0.
func (o gatedConvOp[F]) Backward(dx, dtheta, scratch, dy, x, state, theta []F, s Shape) {
	d, n := s.Out, s.N
	taps, w, _ := o.split(theta, d)
	dtaps, dw, db := o.split(dtheta, d)
	rows := s.B * n
	du, dv, wt := scratch[:rows*d], scratch[rows*d:2*rows*d], scratch[2*rows*d:2*rows*d+d*d]
	for bi := range s.B {
		st := state[bi*2*n*d:][:2*n*d]
		v, g := st[:n*d], st[n*d:]
		for t := range n {
			r := bi*n + t
			dyt, vt, gt := dy[r*d:][:d], v[t*d:][:d], g[t*d:][:d]
			dvt, dut := dv[r*d:][:d], du[r*d:][:d]
			for c, e := range gt {
				dvt[c] = dyt[c] * e
				dut[c] = F(dyt[c]*vt[c]) * F(e*(1-e))
			}
		}
	}
	for bi := range s.B {
		xb := x[bi*n*2*d:][:n*2*d]
		for t := range n {
			dvt := dv[(bi*n+t)*d:][:d]
			for k := 0; k < o.k && k <= t; k++ {
				z, dk := xb[(t-k)*2*d+d:][:d], dtaps[k*d:][:d]
				for c := range dk {
					dk[c] += F(dvt[c] * z[c])
				}
			}
		}
	}
	kernel.Gemm(dw, d, x[d:], 1, 2*d, du, d, nil, d, d, rows, true)
	for r := range rows {
		for c, e := range du[r*d:][:d] {
			db[c] += e
		}
	}
	kernel.PackT(wt, w, d, d)
	kernel.Gemm(dx[d:], 2*d, du, d, 1, wt, d, nil, rows, d, d, false)
	for bi := range s.B {
		for t := range n {
			r := bi*n + t
			clear(dx[r*2*d:][:d])
			dz := dx[r*2*d+d:][:d]
			for k := 0; k < o.k && t+k < n; k++ {
				dvk, wk := dv[(r+k)*d:][:d], taps[k*d:][:d]
				for c := range dz {
					dz[c] += F(wk[c] * dvk[c])
				}
			}
		}
	}
}
