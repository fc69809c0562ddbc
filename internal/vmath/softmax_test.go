package vmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

var softmaxSizes = []int{1, 2, 5, 15, 16, 17, 31, 32, 33, 40, 64, 257}

// TestCausalSoftmaxTBitIdentical checks every implementation against the
// Go loop, bit for bit, forward and backward.
func TestCausalSoftmaxTBitIdentical(t *testing.T) {
	for _, im := range softmaxImpls[1:] {
		for _, n := range softmaxSizes {
			t.Run(fmt.Sprintf("impl=%s/t=%d", im.name, n), func(t *testing.T) {
				// Many draws: a sum taken out of order differs from the
				// generic one in only some lanes of some draws.
				r := rand.New(rand.NewPCG(11, uint64(n)))
				st := make([]float32, n*n)
				g := make([]float32, n*n)
				for range 64 {
					for i := range st {
						st[i] = float32(r.NormFloat64() * 4)
						g[i] = float32(r.NormFloat64())
					}
					scale := float32(1 / math.Sqrt(8))
					want, got := append([]float32(nil), st...), append([]float32(nil), st...)
					genericSoftmax.fwd(want, n, scale)
					im.fwd(got, n, scale)
					requireBits(t, "softmax", want, got)
					gw, gg := append([]float32(nil), g...), append([]float32(nil), g...)
					genericSoftmax.bwd(gw, want, n, scale)
					im.bwd(gg, want, n, scale)
					requireBits(t, "softmax grad", gw, gg)
				}
			})
		}
	}
}

func requireBits(t *testing.T, what string, want, got []float32) {
	t.Helper()
	for i := range want {
		if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
			t.Fatalf("%s: element %d = %v (%#x), generic %v (%#x)", what, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
		}
	}
}

// TestCausalSoftmaxTDefinition checks the generic loop against the
// definition in float64: columns are probability vectors over j ≤ i, zero
// above, and the gradient matches Σ-form of the softmax Jacobian.
func TestCausalSoftmaxTDefinition(t *testing.T) {
	for _, n := range []int{1, 7, 32} {
		t.Run(fmt.Sprintf("t=%d", n), func(t *testing.T) {
			r := rand.New(rand.NewPCG(12, uint64(n)))
			st, g := make([]float32, n*n), make([]float32, n*n)
			for i := range st {
				st[i] = float32(r.NormFloat64() * 3)
				g[i] = float32(r.NormFloat64())
			}
			const scale = 0.5
			p := append([]float32(nil), st...)
			CausalSoftmaxT(p, n, scale)
			ds := append([]float32(nil), g...)
			CausalSoftmaxGradT(ds, p, n, scale)
			for i := range n {
				mx := math.Inf(-1)
				for j := 0; j <= i; j++ {
					mx = math.Max(mx, scale*float64(st[j*n+i]))
				}
				var sum float64
				for j := 0; j <= i; j++ {
					sum += math.Exp(scale*float64(st[j*n+i]) - mx)
				}
				var dot float64
				for j := 0; j <= i; j++ {
					want := math.Exp(scale*float64(st[j*n+i])-mx) / sum
					if d := math.Abs(float64(p[j*n+i]) - want); d > 1e-6 {
						t.Fatalf("P[%d,%d] = %v, want %v", i, j, p[j*n+i], want)
					}
					dot += want * float64(g[j*n+i])
				}
				for j := 0; j <= i; j++ {
					pw := math.Exp(scale*float64(st[j*n+i])-mx) / sum
					want := pw * (float64(g[j*n+i]) - dot) * scale
					if d := math.Abs(float64(ds[j*n+i]) - want); d > 1e-5 {
						t.Fatalf("dS[%d,%d] = %v, want %v", i, j, ds[j*n+i], want)
					}
				}
				for j := i + 1; j < n; j++ {
					if p[j*n+i] != 0 || ds[j*n+i] != 0 {
						t.Fatalf("entry (%d,%d) above the causal diagonal is not zero", i, j)
					}
				}
			}
		})
	}
}

func BenchmarkCausalSoftmaxT(b *testing.B) {
	for _, n := range []int{32, 96} {
		r := rand.New(rand.NewPCG(13, 13))
		st := make([]float32, n*n)
		for i := range st {
			st[i] = float32(r.NormFloat64())
		}
		work := make([]float32, n*n)
		for _, im := range softmaxImpls {
			b.Run(fmt.Sprintf("impl=%s/t=%d", im.name, n), func(b *testing.B) {
				for b.Loop() {
					copy(work, st)
					im.fwd(work, n, 0.35)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*(n+1)/2), "ns/entry")
			})
		}
	}
}

// TestCausalSoftmaxTN checks the batched forms against one call per
// (T,T) block, bit for bit, and their length checks.
func TestCausalSoftmaxTN(t *testing.T) {
	const heads = 4
	for _, n := range []int{32, 17} {
		t.Run(fmt.Sprintf("t=%d", n), func(t *testing.T) {
			r := rand.New(rand.NewPCG(12, uint64(n)))
			st, g := make([]float32, heads*n*n), make([]float32, heads*n*n)
			for i := range st {
				st[i] = float32(r.NormFloat64() * 4)
				g[i] = float32(r.NormFloat64())
			}
			const scale = 0.35
			want, got := append([]float32(nil), st...), append([]float32(nil), st...)
			for h := range heads {
				CausalSoftmaxT(want[h*n*n:(h+1)*n*n], n, scale)
			}
			CausalSoftmaxTN(got, n, heads, scale)
			requireBits(t, "softmax", want, got)
			gw, gg := append([]float32(nil), g...), append([]float32(nil), g...)
			for h := range heads {
				CausalSoftmaxGradT(gw[h*n*n:(h+1)*n*n], want[h*n*n:(h+1)*n*n], n, scale)
			}
			CausalSoftmaxGradTN(gg, want, n, heads, scale)
			requireBits(t, "softmax grad", gw, gg)
		})
	}
	if !panics(func() { CausalSoftmaxTN(make([]float32, 3*4), 2, 4, 1) }) {
		t.Error("CausalSoftmaxTN accepted 3 blocks for a count of 4")
	}
	if !panics(func() { CausalSoftmaxGradTN(make([]float32, 16), make([]float32, 12), 2, 4, 1) }) {
		t.Error("CausalSoftmaxGradTN accepted pt one block short")
	}
}
