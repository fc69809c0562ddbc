package transformer

import (
	"fmt"
	"math"

	"github.com/ideabench/ideabench/internal/vmath"
)

// Adam is the Adam optimizer (Kingma and Ba 2015, Algorithm 1) with bias
// correction over one flat parameter buffer, with two optional additions
// that are off at zero: gradient-norm clipping (Pascanu et al. 2013) and
// decoupled weight decay (AdamW, Loshchilov and Hutter 2019, Algorithm 2,
// in PyTorch's form θ ← θ·(1 - lr·λ) before the Adam update):
//
//	‖g‖ = √(Σ g²);  g ← g·(Clip/‖g‖) when ‖g‖ > Clip
//	θ ← θ·(1 - lr·λ)                    for the tensors of Decay only
//	m = β1·m + (1-β1)·g,  v = β2·v + (1-β2)·g²
//	θ -= lr · (m/(1-β1ᵗ)) / (√(v/(1-β2ᵗ)) + ε)
type Adam[F Float] struct {
	Beta1, Beta2, Eps float64
	// WeightDecay is AdamW's λ; 0 is plain Adam.
	WeightDecay float64
	// Decay lists the [start, end) ranges of the flat buffer that decay:
	// NewAdamW gives the weight matrices and embeddings (Kind Weight),
	// not the biases and LayerNorm gains, as GPT-2 and nanoGPT do.
	Decay [][2]int
	// Clip is the largest gradient L2 norm Step applies unscaled; 0 never
	// clips.
	Clip float64
	// Norm is the gradient norm of the last Step (before clipping); it is
	// computed only when Clip > 0.
	Norm float64

	m, v []F // (P) moment estimates
	step int // t, the number of updates so far
}

// NewAdam returns Adam for n parameters with β1 0.9, β2 0.999, ε 1e-8
// (the paper's defaults, also PyTorch's).
func NewAdam[F Float](n int) *Adam[F] {
	return &Adam[F]{Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, m: make([]F, n), v: make([]F, n)}
}

// NewAdamW returns Adam for the parameters p with decoupled weight decay
// λ on the tensors of Kind Weight.
func NewAdamW[F Float](p *Params[F], weightDecay float64) *Adam[F] {
	a := NewAdam[F](len(p.Data))
	a.WeightDecay = weightDecay
	for _, t := range p.Tensors {
		if t.Kind.Decayed() {
			a.Decay = append(a.Decay, [2]int{t.Offset, t.Offset + t.Size()})
		}
	}
	return a
}

// Step updates params in place from grads (both (P)) with learning rate lr;
// clipping scales grads in place. float32 runs vmath.Adam (vectorized,
// this loop's op sequence and bits).
func (a *Adam[F]) Step(params, grads []F, lr float64) {
	if len(params) != len(a.m) || len(grads) != len(a.m) {
		panic(fmt.Sprintf("transformer: Adam sized for %d parameters, got %d and %d", len(a.m), len(params), len(grads)))
	}
	if a.Clip > 0 {
		// The sum of squares runs in float64 in index order: the same
		// norm on every CPU.
		var ss float64
		for _, g := range grads {
			ss += float64(float64(g) * float64(g))
		}
		a.Norm = math.Sqrt(ss)
		if a.Norm > a.Clip {
			s := F(a.Clip / a.Norm)
			for i := range grads {
				grads[i] *= s
			}
		}
	}
	if a.WeightDecay != 0 {
		keep := F(1 - lr*a.WeightDecay)
		for _, r := range a.Decay {
			for i := r[0]; i < r[1]; i++ {
				params[i] *= keep
			}
		}
	}
	a.step++
	b1, b2 := F(a.Beta1), F(a.Beta2)
	c1 := F(1 - math.Pow(a.Beta1, float64(a.step)))
	c2 := F(1 - math.Pow(a.Beta2, float64(a.step)))
	lrF, eps := F(lr), F(a.Eps)
	if p32, ok := any(params).([]float32); ok {
		vmath.Adam(p32, any(grads).([]float32), any(a.m).([]float32), any(a.v).([]float32),
			vmath.AdamCoef{B1: float32(b1), B2: float32(b2), OmB1: float32(1 - b1), OmB2: float32(1 - b2),
				C1: float32(c1), C2: float32(c2), LR: float32(lrF), Eps: float32(eps)})
		return
	}
	m, v := a.m, a.v[:len(a.m)]
	grads = grads[:len(m)]
	params = params[:len(m)]
	for i, g := range grads {
		// Products are rounded before they are added (F(…)), so no compiler
		// fuses them into an FMA and every GOARCH/GOAMD64 gets these bits.
		mi := F(b1*m[i]) + F((1-b1)*g)
		vi := F(b2*v[i]) + F(F((1-b2)*g)*g)
		m[i], v[i] = mi, vi
		params[i] -= lrF * (mi / c1) / (F(math.Sqrt(float64(vi/c2))) + eps)
	}
}

// Steps is the number of updates applied so far.
func (a *Adam[F]) Steps() int { return a.step }
