package idea

import (
	"fmt"
	"math"
)

// convSpec mixes each embedded token with the tokens just before it by a
// learnable causal depthwise convolution (the short convolution of H3,
// Fu et al. 2023, and Mamba), starting at the identity (w_0 = 1, the
// other taps 0).
var convSpec = Spec{
	Name:      "conv",
	Doc:       "a learnable causal depthwise convolution over the embedded tokens (input site): x_t ← Σ_{k<K} w_k⊙x_{t-k}, starting at the identity",
	Rationale: "A short causal convolution gives every token its neighbours' inputs before attention mixes them.",
	Params: []Param{
		{Name: "width", Default: 3, Doc: "K, the number of taps (the token and the K-1 before it), an integer >= 2",
			Space:  &Range{Lo: 2, Hi: 8, Scale: ScaleInt},
			Source: "H3 and Hyena put a short convolution of 3 to 4 taps before their mixers (Fu et al. 2023, Poli et al. 2023); the range runs from the shortest to twice the longest"},
	},
	New: func(p Params) (Idea, error) {
		k, _ := p.Get("width")
		if !(k >= 2 && k == math.Trunc(k) && k <= 64) {
			return nil, fmt.Errorf("conv.width = %v: must be an integer in [2, 64]; use e.g. 3", k)
		}
		return Conv{Width: int(k)}, nil
	},
}

// Conv is the conv idea at one width.
type Conv struct{ Width int }

func (c Conv) Config() Config {
	return Config{Name: "conv", Params: NewParams(map[string]float64{"width": float64(c.Width)})}
}
func (Conv) Site() Site     { return SiteInput }
func (Conv) Identity() bool { return false }
func (c Conv) Tensors(s Shape) []Tensor {
	return []Tensor{{Name: "tap0", Shape: []int{s.C}, Kind: Gain}, {Name: "taps", Shape: []int{c.Width - 1, s.C}, Kind: Bias}}
}
func (Conv) State(Shape) int        { return 0 }
func (Conv) Scratch(Shape) int      { return 0 }
func (c Conv) Float32() Op[float32] { return convOp[float32](c) }
func (c Conv) Float64() Op[float64] { return convOp[float64](c) }

type convOp[F Float] Conv

// Forward: y_{t,c} = Σ_{k<K, k<=t} w_{k,c}·x_{t-k,c}, taps in increasing k.
func (o convOp[F]) Forward(y, _, x, theta []F, s Shape) {
	for b := range s.B {
		for t := range s.N {
			i := (b*s.N + t) * s.C
			for c := range s.C {
				acc := F(theta[c] * x[i+c])
				for k := 1; k < o.Width && k <= t; k++ {
					acc += F(theta[k*s.C+c] * x[i-k*s.C+c])
				}
				y[i+c] = acc
			}
		}
	}
}

// Backward: dx_{t,c} = Σ_k w_{k,c}·dy_{t+k,c}, dw_{k,c} += Σ_t dy_{t,c}·x_{t-k,c}.
func (o convOp[F]) Backward(dx, dtheta, _, dy, x, _, theta []F, s Shape) {
	for b := range s.B {
		for t := range s.N {
			i := (b*s.N + t) * s.C
			for c := range s.C {
				acc := F(theta[c] * dy[i+c])
				for k := 1; k < o.Width && t+k < s.N; k++ {
					acc += F(theta[k*s.C+c] * dy[i+k*s.C+c])
				}
				dx[i+c] = acc
				for k := 0; k < o.Width && k <= t; k++ {
					dtheta[k*s.C+c] += F(dy[i+c] * x[i-k*s.C+c])
				}
			}
		}
	}
}
