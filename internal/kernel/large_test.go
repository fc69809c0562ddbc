package kernel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkMatMulLarge times Gemm on the products of the large training
// shape (batch 32 of 96 tokens, d 128, MLP 512) in the layouts the model
// uses: rows of A for the forward and input gradients, A transposed for
// the weight gradients (m < k), reporting GFLOP/s and the percentage of
// the FP32 peak measured in the same process.
func BenchmarkMatMulLarge(b *testing.B) {
	peak, _ := Peak()
	for _, s := range [][3]int{{3072, 128, 384}, {3072, 128, 512}, {3072, 512, 128}, {384, 3072, 128}, {512, 3072, 128}, {128, 3072, 512}} {
		m, k, n := s[0], s[1], s[2]
		b.Run(fmt.Sprintf("m=%d/k=%d/n=%d", m, k, n), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			a, bb, c := f32(randn(r, m*k)), f32(randn(r, k*n)), make([]float32, m*n)
			for b.Loop() {
				if m < k {
					Gemm(c, n, a, 1, m, bb, n, nil, m, n, k, false)
				} else {
					Gemm(c, n, a, k, 1, bb, n, nil, m, n, k, false)
				}
			}
			g := 2 * float64(m*n*k) * float64(b.N) / b.Elapsed().Seconds() / 1e9
			b.ReportMetric(g, "GFLOP/s")
			if peak > 0 {
				b.ReportMetric(100*g/peak, "%peak")
			}
		})
	}
}
