package vmath

import (
	"math"
	"math/rand/v2"
	"testing"
)

// scalarMath is the baseline the kernels replace: float64 math per element.
var scalarMath = impl{
	name: "scalar_math",
	exp: func(dst, src []float32) {
		for i, x := range src {
			dst[i] = float32(math.Exp(float64(x)))
		}
	},
	gelu: func(dst, src []float32) {
		for i, x := range src {
			dst[i] = float32(gelu64(float64(x)))
		}
	},
	geluBackward: func(dinp, inp, dout []float32) {
		for i, x := range inp {
			x := float64(x)
			k := math.Sqrt(2 / math.Pi)
			t := math.Tanh(k * (x + 0.044715*x*x*x))
			s := 0.5 * (1 + t) // σ(2u)
			dinp[i] = float32(float64(dout[i]) * (s + x*(1-t*t)*0.5*k*(1+3*0.044715*x*x)))
		}
	},
}

const benchN = 4096 // a (T=64, 4C=64) MLP activation

// benchmark runs call on every implementation and the scalar_math baseline
// over benchN inputs from [-5, 5], reporting ns/elem.
func benchmark(b *testing.B, call func(m impl, dst, x, dout []float32)) {
	r := rand.New(rand.NewPCG(5, 6))
	x, dout, dst := uniform(r, benchN, -5, 5), uniform(r, benchN, -1, 1), make([]float32, benchN)
	for _, m := range append([]impl{scalarMath}, impls...) {
		b.Run("impl="+m.name+"/n=4096", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(4 * benchN)
			for b.Loop() {
				call(m, dst, x, dout)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchN), "ns/elem")
		})
	}
}

func BenchmarkExp(b *testing.B) {
	benchmark(b, func(m impl, dst, x, _ []float32) { m.exp(dst, x) })
}

func BenchmarkGELU(b *testing.B) {
	benchmark(b, func(m impl, dst, x, _ []float32) { m.gelu(dst, x) })
}

func BenchmarkGELUBackward(b *testing.B) {
	benchmark(b, func(m impl, dst, x, dout []float32) { m.geluBackward(dst, x, dout) })
}

func BenchmarkGELUWithGrad(b *testing.B) {
	grad := make([]float32, benchN)
	benchmark(b, func(m impl, dst, x, _ []float32) {
		if m.geluWithGrad != nil {
			m.geluWithGrad(dst, grad, x)
		}
	})
}
