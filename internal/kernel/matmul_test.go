package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// naiveLinear is y = x·wᵀ + b in float64, written as the definition.
func naiveLinear(inp, w, bias []float64, n, in, out int) []float64 {
	y := make([]float64, n*out)
	for r := range n {
		for o := range out {
			s := 0.0
			for i := range in {
				s += inp[r*in+i] * w[o*in+i]
			}
			if bias != nil {
				s += bias[o]
			}
			y[r*out+o] = s
		}
	}
	return y
}

func randn(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

var shapes = []struct{ n, in, out int }{
	{0, 3, 4}, {1, 1, 1}, {3, 5, 7}, {17, 33, 9}, // edge and odd sizes
	{64, 32, 96}, {64, 32, 128}, {64, 128, 32}, // the model's shapes, fewer rows
	{256, 1, 32}, {9, 1, 40}, // one input feature: dW as a row
}

func TestLinear(t *testing.T) {
	for _, s := range shapes {
		t.Run(fmt.Sprintf("n=%d/in=%d/out=%d", s.n, s.in, s.out), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(s.n)))
			x, w, b := randn(r, s.n*s.in), randn(r, s.out*s.in), randn(r, s.out)
			want := naiveLinear(x, w, b, s.n, s.in, s.out)
			got := make([]float64, s.n*s.out)
			for i := range got {
				got[i] = math.NaN() // Linear overwrites
			}
			Linear(got, x, w, b, s.n, s.in, s.out)
			require.InDeltaSlice(t, want, got, 1e-12)
			Linear(got, x, w, nil, s.n, s.in, s.out)
			require.InDeltaSlice(t, naiveLinear(x, w, nil, s.n, s.in, s.out), got, 1e-12)
		})
	}
}

// TestLinearBackward checks the three gradients of L = Σ g·y against their
// definitions: dinp is overwritten, dw and dbias accumulate.
func TestLinearBackward(t *testing.T) {
	for _, s := range shapes {
		t.Run(fmt.Sprintf("n=%d/in=%d/out=%d", s.n, s.in, s.out), func(t *testing.T) {
			r := rand.New(rand.NewPCG(2, uint64(s.n)))
			x, w, g := randn(r, s.n*s.in), randn(r, s.out*s.in), randn(r, s.n*s.out)
			dx, dw, db := make([]float64, len(x)), make([]float64, len(w)), make([]float64, s.out)
			for i := range dx {
				dx[i] = 1
			}
			for i := range dw {
				dw[i] = 2
			}
			LinearBackward(dx, dw, db, g, x, w, s.n, s.in, s.out)
			for r := range s.n {
				for i := range s.in {
					want := 0.0 // dinp is overwritten, whatever it held
					for o := range s.out {
						want += g[r*s.out+o] * w[o*s.in+i]
					}
					require.InDelta(t, want, dx[r*s.in+i], 1e-12)
				}
			}
			for o := range s.out {
				wantB := 0.0
				for r := range s.n {
					wantB += g[r*s.out+o]
				}
				require.InDelta(t, wantB, db[o], 1e-12)
				for i := range s.in {
					want := 2.0
					for r := range s.n {
						want += g[r*s.out+o] * x[r*s.in+i]
					}
					require.InDelta(t, want, dw[o*s.in+i], 1e-12)
				}
			}
			// nil dinp and dbias are skipped.
			LinearBackward(nil, dw, nil, g, x, w, s.n, s.in, s.out)
		})
	}
}

func TestShapePanics(t *testing.T) {
	require.PanicsWithValue(t, "kernel: Linear: w has wrong length", func() {
		Linear(make([]float32, 4), make([]float32, 4), make([]float32, 3), nil, 2, 2, 2)
	})
}

// BenchmarkLinear times the model's matrix shapes at batch 32, T 32
// (m = B·T rows): forward and backward.
func BenchmarkLinear(b *testing.B) {
	for _, s := range []struct{ m, k, n int }{{1024, 32, 96}, {1024, 32, 32}, {1024, 32, 128}, {1024, 128, 32}} {
		r := rand.New(rand.NewPCG(3, 3))
		x, w, bias := f32(randn(r, s.m*s.k)), f32(randn(r, s.n*s.k)), f32(randn(r, s.n))
		y := make([]float32, s.m*s.n)
		flops := 2 * float64(s.m*s.k*s.n)
		b.Run(fmt.Sprintf("dir=fwd/m=%d/k=%d/n=%d", s.m, s.k, s.n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				Linear(y, x, w, bias, s.m, s.k, s.n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		dx, dw, db := make([]float32, len(x)), make([]float32, len(w)), make([]float32, s.n)
		b.Run(fmt.Sprintf("dir=bwd/m=%d/k=%d/n=%d", s.m, s.k, s.n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				LinearBackward(dx, dw, db, y, x, w, s.m, s.k, s.n)
			}
			b.ReportMetric(2*flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

func f32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// TestPackT checks the transpose on shapes whose row count is and is not a
// multiple of its 8-row blocks.
func TestPackT(t *testing.T) {
	for _, s := range [][2]int{{1, 1}, {3, 5}, {8, 32}, {13, 7}, {96, 32}, {8, 1}, {17, 128}} {
		outF, in := s[0], s[1]
		t.Run(fmt.Sprintf("out=%d/in=%d", outF, in), func(t *testing.T) {
			w := make([]float32, outF*in)
			for i := range w {
				w[i] = float32(i)
			}
			wt := make([]float32, outF*in)
			PackT(wt, w, outF, in)
			for o := range outF {
				for i := range in {
					if wt[i*outF+o] != w[o*in+i] {
						t.Fatalf("wt[%d,%d] = %v, want %v", i, o, wt[i*outF+o], w[o*in+i])
					}
				}
			}
		})
	}
}

// TestLinearBackwardOneInputBits checks that the one-input dW (a row
// product) has the bits of the (Out,1) column product, the pure-Go
// doutᵀ·inp it replaces, at the model's embedding shape and a ragged one.
func TestLinearBackwardOneInputBits(t *testing.T) {
	for _, s := range []struct{ n, out int }{{256, 32}, {9, 40}} {
		t.Run(fmt.Sprintf("n=%d/out=%d", s.n, s.out), func(t *testing.T) {
			r := rand.New(rand.NewPCG(9, uint64(s.n)))
			x, w, g := f32(randn(r, s.n)), f32(randn(r, s.out)), f32(randn(r, s.n*s.out))
			want, got := f32(randn(r, s.out)), make([]float32, s.out)
			copy(got, want)
			gemmGeneric(want, 1, g, 1, s.out, x, 1, nil, 0, s.out, 0, 1, s.n, true)
			LinearBackward(nil, got, nil, g, x, w, s.n, 1, s.out)
			for o := range want {
				require.Equalf(t, math.Float32bits(want[o]), math.Float32bits(got[o]), "dW[%d] = %v, want %v", o, got[o], want[o])
			}
		})
	}
}

// TestLinearBackwardBiasBits checks dW and dbias of LinearBackward, which
// the AVX-512 kernel computes in one pass where In is a multiple of 32 and
// Out of 8, against the two pure-Go products (doutᵀ·inp and 1ᵀ·dout),
// both accumulating into nonzero gradients: at the model's shapes, at
// other eligible ones and at ones that fall back.
func TestLinearBackwardBiasBits(t *testing.T) {
	for _, s := range []struct{ n, in, out int }{
		{256, 32, 96}, {256, 32, 128}, {256, 128, 32}, {256, 32, 8}, {256, 32, 32}, // the model's
		{1, 32, 8}, {7, 64, 16}, {33, 96, 24}, // eligible, other sizes
		{33, 40, 12}, {16, 7, 32}, {256, 1, 32}, // fall back
		{3072, 128, 512}, {700, 64, 136}, {257, 32, 8}, // past the cache blocks: blocked and packed
	} {
		t.Run(fmt.Sprintf("n=%d/in=%d/out=%d", s.n, s.in, s.out), func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, uint64(s.n*1000+s.in)))
			x, w, g := f32(randn(r, s.n*s.in)), f32(randn(r, s.out*s.in)), f32(randn(r, s.n*s.out))
			wantW, wantB := f32(randn(r, s.out*s.in)), f32(randn(r, s.out))
			gotW, gotB := append([]float32(nil), wantW...), append([]float32(nil), wantB...)
			gemmGeneric(wantW, s.in, g, 1, s.out, x, s.in, nil, 0, s.out, 0, s.in, s.n, true)
			gemmGeneric(wantB, s.out, []float32{1}, 0, 0, g, s.out, nil, 0, 1, 0, s.out, s.n, true)
			LinearBackward(nil, gotW, gotB, g, x, w, s.n, s.in, s.out)
			for i := range wantW {
				require.Equalf(t, math.Float32bits(wantW[i]), math.Float32bits(gotW[i]), "dW[%d] = %v, want %v", i, gotW[i], wantW[i])
			}
			for o := range wantB {
				require.Equalf(t, math.Float32bits(wantB[o]), math.Float32bits(gotB[o]), "dbias[%d] = %v, want %v", o, gotB[o], wantB[o])
			}
		})
	}
}
