package gate

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkGate times Forward and Backward on the default model's gate
// input at batch 32, (B,T,C) = (32,32,32), in ns per row of C.
func BenchmarkGate(b *testing.B) {
	const B, T, C = 32, 32, 32
	r := rand.New(rand.NewPCG(1, 2))
	a, dy := make([]float32, B*T*C), make([]float32, B*T*C)
	for i := range a {
		a[i], dy[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
	}
	y, s, da, ds := make([]float32, B*T*C), make([]float32, B*T), make([]float32, B*T*C), make([]float32, T)
	p := Params{Rho: 0.9, Beta: 0.5}
	b.Run("pass=forward", func(b *testing.B) {
		for b.Loop() {
			Forward(y, s, a, B, T, C, p)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*B*T), "ns/row")
	})
	b.Run("pass=backward", func(b *testing.B) {
		Forward(y, s, a, B, T, C, p)
		for b.Loop() {
			Backward(da, ds, dy, a, s, B, T, C, p)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*B*T), "ns/row")
	})
}
