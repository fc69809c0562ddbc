package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestThreadsBitIdentical: splitting a product's rows among goroutines
// changes no bit of Gemm, GemmAdd, GemmScaled or LinearBackward, for row
// counts that split evenly and not.
func TestThreadsBitIdentical(t *testing.T) {
	defer SetThreads(SetThreads(1))
	for _, s := range []struct{ m, n, k int }{{3072, 128, 96}, {1000, 64, 200}, {257, 96, 512}, {24, 32, 4096}} {
		r := rand.New(rand.NewPCG(3, uint64(s.m)))
		a, b, e, bias := f32(randn(r, s.m*s.k)), f32(randn(r, s.k*s.n)), f32(randn(r, s.m*s.n)), f32(randn(r, s.n))
		run := func(threads int) [][]float32 {
			SetThreads(threads)
			c1, c2, c3 := make([]float32, s.m*s.n), make([]float32, s.m*s.n), make([]float32, s.m*s.n)
			Gemm(c1, s.n, a, s.k, 1, b, s.n, bias, s.m, s.n, s.k, false)
			GemmAdd(c2, s.n, a, s.k, 1, b, s.n, bias, e, s.m, s.n, s.k)
			GemmScaled(c3, s.n, a, 1, s.m, b, s.n, nil, e, s.m, s.n, s.k) // A transposed
			// A linear layer of s.m rows, In s.n, Out s.k's nearest multiple of 8.
			out := max(8, s.k/8*8%512)
			dw, db := make([]float32, out*s.n), make([]float32, out)
			dout := f32(randn(rand.New(rand.NewPCG(5, 5)), s.m*out))
			w := f32(randn(rand.New(rand.NewPCG(6, 6)), out*s.n))
			dx := make([]float32, s.m*s.n)
			LinearBackward(dx, dw, db, dout, e, w, s.m, s.n, out)
			return [][]float32{c1, c2, c3, dw, db, dx}
		}
		want := run(1)
		for _, th := range []int{2, 3, 8} {
			got := run(th)
			for i := range want {
				for j := range want[i] {
					if math.Float32bits(want[i][j]) != math.Float32bits(got[i][j]) {
						require.FailNowf(t, "bits differ", "%+v threads %d output %d element %d: %v, want %v", s, th, i, j, got[i][j], want[i][j])
					}
				}
			}
		}
	}
	require.Equal(t, 8, SetThreads(0), "the last setting is returned")
	require.Equal(t, 1, Threads(), "0 means 1")
}
