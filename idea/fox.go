package idea

import (
	"fmt"
	"math"
)

// foxSpec is the Forgetting Transformer's forget gate (Lin et al., ICLR
// 2025, "Forgetting Transformer: Softmax Attention with a Forget Gate";
// zhixuan-lin/forgetting-transformer): per head h and token t a scalar
// gate f = σ(w_h·x_t + b_h) from the block's first LayerNorm output, and
// the logit of query i on key j gets the bias Σ_{l=j+1..i} log f_l, so a
// key fades by the gates of the tokens after it. b starts at bias (the
// reference code starts its gate projection as any linear layer, b near
// 0: f = 1/2, a fast fade); at a bias of 17 or more f rounds to 1 in
// float32 and the untrained model is the baseline's bit for bit.
var foxSpec = Spec{
	Name:      "fox",
	Doc:       "Forgetting Transformer: a forget gate per head and token, f_t = σ(w·x_t + b), biasing the logit of query i on key j by Σ_{l=j+1..i} log f_l",
	Rationale: "FoX's forget gate lets each head learn how fast attention to older keys decays, a data-dependent recency bias.",
	Params: []Param{
		{Name: "bias", Default: 0, Doc: "b's start value (σ(b) is the gate's start; 0 gives 1/2)",
			Space:  &Range{Lo: 0, Hi: 4},
			Source: "Lin et al. 2025 (the Forgetting Transformer) start b at 0 in their code, f = 1/2; at 4 the gate starts at f = 0.98, nearly no forgetting"},
	},
	New: func(p Params) (Idea, error) {
		b, _ := p.Get("bias")
		return FoX{Bias: b}, nil
	},
}

// FoX is the fox idea at one setting.
type FoX struct{ Bias float64 }

func (f FoX) Config() Config {
	return Config{Name: "fox", Params: NewParams(map[string]float64{"bias": f.Bias})}
}
func (FoX) Site() Site     { return SiteLogits }
func (FoX) Identity() bool { return false }

// Tensors: w (Heads,D), decayed, and b (Heads), starting at Bias.
func (f FoX) Tensors(s Shape) []Tensor {
	return []Tensor{
		{Name: "w", Shape: []int{s.Heads, s.C}, Kind: Weight},
		{Name: "b", Shape: []int{s.Heads}, Kind: Constant, Value: f.Bias},
	}
}

// State is u (the gate's pre-activation) and c (the prefix sums of
// log f), (Heads,N) each per window; Scratch two (Heads,N) rows.
func (FoX) State(s Shape) int    { return 2 * s.Heads * s.N }
func (FoX) Scratch(s Shape) int  { return 2 * s.Heads * s.N }
func (FoX) Float32() Op[float32] { return foxOp[float32]{} }
func (FoX) Float64() Op[float64] { return foxOp[float64]{} }

type foxOp[F Float] struct{}

// logSigmoid is log σ(u) = −log(1 + e^−u), without overflow either way.
func logSigmoid(u float64) float64 {
	if u >= 0 {
		return -math.Log1p(math.Exp(-u))
	}
	return u - math.Log1p(math.Exp(u))
}

// logGate is log f = log σ(u) in F: for u ≥ 0 the log of σ(u) rounded
// to F, as a model computing its gate in F has it (so a gate whose σ
// rounds to 1, u ≥ 17.33 in float32, adds exactly 0), below 0 the
// float64 log σ(u) rounded once (no underflow of σ).
func logGate[F Float](u F) F {
	if u >= 0 {
		return F(math.Log(float64(F(sigmoid(float64(u))))))
	}
	return F(logSigmoid(float64(u)))
}

// sigmoid is σ(u) = 1/(1 + e^−u) in float64, rounded to F: the one
// sigmoid of every idea that gates (fox, gated-attn, gated-conv, sigmoid,
// swiglu).
func sigmoid[F Float](u F) F { return F(1 / (1 + math.Exp(-float64(u)))) }

// Forward, per window and head h, token t:
//
//	u_t = Σ_c w[h,c]·x[t,c] + b[h],  c_t = Σ_{k≤t} log σ(u_k),  y[h,j,i] = c_i − c_j  (j ≤ i; 0 above)
//
// each sum in increasing index, log σ by logGate.
func (foxOp[F]) Forward(y, state, x, theta []F, s Shape) {
	nh, n, d := s.Heads, s.N, s.C
	w, b := theta[:nh*d], theta[nh*d:nh*d+nh]
	for bi := range s.B {
		xb := x[bi*n*d:][:n*d]
		st := state[bi*2*nh*n:][:2*nh*n]
		u, c := st[:nh*n], st[nh*n:]
		yb := y[bi*nh*n*n:][:nh*n*n]
		for h := range nh {
			wh := w[h*d:][:d]
			var cum F
			for t := range n {
				var z F
				for k, v := range xb[t*d:][:d] {
					z += F(wh[k] * v)
				}
				z += b[h]
				u[h*n+t] = z
				cum += logGate(z)
				c[h*n+t] = cum
			}
			ch := c[h*n:][:n]
			for j := range n {
				row := yb[(h*n+j)*n:][:n]
				clear(row[:j])
				for i := j; i < n; i++ {
					row[i] = ch[i] - ch[j]
				}
			}
		}
	}
}

// Backward mirrors Forward. From dy (the logits' gradient, j ≤ i read):
//
//	dc_t = Σ_{j≤t} dy[h,j,t] − Σ_{i≥t} dy[h,t,i],  dl_k = Σ_{t≥k} dc_t,  du_k = dl_k·σ(−u_k)
//	dw[h,·] += du_t·x_t,  db[h] += du_t,  dx_t = Σ_h du_{h,t}·w[h,·]
//
// dw and db summed window by window and token by token in order.
func (foxOp[F]) Backward(dx, dtheta, scratch, dy, x, state, theta []F, s Shape) {
	nh, n, d := s.Heads, s.N, s.C
	w := theta[:nh*d]
	dw, db := dtheta[:nh*d], dtheta[nh*d:nh*d+nh]
	dc, du := scratch[:nh*n], scratch[nh*n:2*nh*n]
	for bi := range s.B {
		xb := x[bi*n*d:][:n*d]
		u := state[bi*2*nh*n:][:nh*n]
		dyb := dy[bi*nh*n*n:][:nh*n*n]
		for h := range nh {
			g := dyb[h*n*n:][:n*n]
			dch := dc[h*n:][:n]
			for t := range n {
				var in, out F
				for j := 0; j <= t; j++ {
					in += g[j*n+t]
				}
				for i := t; i < n; i++ {
					out += g[t*n+i]
				}
				dch[t] = in - out
			}
			var suffix F
			for k := n - 1; k >= 0; k-- {
				suffix += dch[k]
				du[h*n+k] = F(float64(suffix) * sigmoid(-float64(u[h*n+k])))
			}
		}
		for t := range n {
			xt := xb[t*d:][:d]
			for h := range nh {
				g := du[h*n+t]
				dwh := dw[h*d:][:d]
				for k, v := range xt {
					dwh[k] += F(g * v)
				}
				db[h] += g
			}
		}
		for t := range n {
			dxt := dx[(bi*n+t)*d:][:d]
			clear(dxt)
			for h := range nh {
				g := du[h*n+t]
				for k, v := range w[h*d:][:d] {
					dxt[k] += F(g * v)
				}
			}
		}
	}
}

// NewProbe returns fox's mechanism probe: what the trained gates forget.
func (FoX) NewProbe(instances int, s Shape) Probe {
	p := &foxProbe{heads: s.Heads, sums: make([][]float64, instances), count: make([]float64, instances)}
	for l := range p.sums {
		p.sums[l] = make([]float64, s.Heads)
	}
	return p
}

// foxProbe sums, per block and head, 1 − f = σ(−u) over the test
// windows' tokens.
type foxProbe struct {
	heads int
	sums  [][]float64
	count []float64
}

func (p *foxProbe) Add(l int, state, _, _ []float32, s Shape) {
	n := s.N
	for bi := range s.B {
		u := state[bi*2*s.Heads*n:][:s.Heads*n]
		for h := range s.Heads {
			for _, v := range u[h*n:][:n] {
				p.sums[l][h] += sigmoid(-float64(v))
			}
		}
		p.count[l] += float64(n)
	}
}

// Laws, per block:
//
//	block<l>.forget_rate  the largest over heads of the mean 1 − f over the
//	                      test tokens, at least EngageMin: some head forgets
//
// nil when nothing was seen.
func (p *foxProbe) Laws() []Law {
	var laws []Law
	for l, sums := range p.sums {
		if !(p.count[l] > 0) {
			return nil
		}
		most := 0.0
		for _, v := range sums {
			most = max(most, v/p.count[l])
		}
		laws = append(laws, Law{Name: fmt.Sprintf("block%d.forget_rate", l), Got: most, Want: EngageMin, AtLeast: true})
	}
	return laws
}
