package vmath

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestRowsBitIdentical checks every implementation of the gate's row
// kernels against one-row-at-a-time loops of their definitions, on row
// counts around the 16-row groups and widths the kernels take and leave
// to Go.
func TestRowsBitIdentical(t *testing.T) {
	for _, im := range rowImpls {
		for _, s := range [][2]int{{0, 16}, {1, 1}, {3, 5}, {15, 16}, {16, 16}, {17, 32}, {32, 32}, {1024, 32}, {48, 48}, {32, 128}, {16, 144}, {20, 33}} {
			n, c := s[0], s[1]
			t.Run(fmt.Sprintf("impl=%s/n=%d/c=%d", im.name, n, c), func(t *testing.T) {
				r := rand.New(rand.NewPCG(23, uint64(n*1000+c)))
				x, y := uniform(r, n*c, -2, 2), uniform(r, n*c, -2, 2)
				st, u := uniform(r, n, 0, 3), uniform(r, n, -1, 1)
				const beta = 0.7
				wantSq, wantDot := make([]float32, n), make([]float32, n)
				wantY, wantDa := make([]float32, n*c), uniform(r, n*c, -1, 1)
				gotDa := append([]float32(nil), wantDa...)
				for i := range n {
					var sq, dot float32
					for j := range c {
						v, w := x[i*c+j], y[i*c+j]
						sq += float32(v * v)
						dot += float32(v * w)
					}
					wantSq[i], wantDot[i] = sq, dot
					g := 1 / (1 + float32(beta*st[i]))
					k := 2 * u[i] / float32(c)
					for j := range c {
						wantY[i*c+j] = g * x[i*c+j]
						wantDa[i*c+j] += float32(y[i*c+j]*g) + float32(k*x[i*c+j])
					}
				}
				gotSq, gotDot, gotY := make([]float32, n), make([]float32, n), make([]float32, n*c)
				im.sumSq(gotSq, x, n, c)
				im.dot(gotDot, x, y, n, c)
				im.gateScale(gotY, x, st, beta, n, c)
				im.gateGradApply(gotDa, y, x, st, u, beta, n, c)
				requireBits(t, "sumSq", wantSq, gotSq)
				requireBits(t, "dot", wantDot, gotDot)
				requireBits(t, "gateScale", wantY, gotY)
				requireBits(t, "gateGradApply", wantDa, gotDa)
			})
		}
	}
}

// TestRowsHandDerived: the row (1, −2, 3) has energy 1+4+9 = 14 and dot
// product 1·2 − 2·0 + 3·(−1) = −1 with (2, 0, −1); at s = 2, β = 0.5 the
// gain is 1/(1+1) = ½.
func TestRowsHandDerived(t *testing.T) {
	x, y := []float32{1, -2, 3}, []float32{2, 0, -1}
	sq, dot := make([]float32, 1), make([]float32, 1)
	RowSumSq(sq, x, 1, 3)
	RowDot(dot, x, y, 1, 3)
	out := make([]float32, 3)
	GateScale(out, x, []float32{2}, 0.5, 1, 3)
	da := []float32{1, 1, 1}
	GateGradApply(da, y, x, []float32{2}, []float32{1.5}, 0.5, 1, 3) // k = 2·1.5/3 = 1
	if sq[0] != 14 || dot[0] != -1 || out[0] != 0.5 || out[1] != -1 || out[2] != 1.5 {
		t.Fatalf("sumSq %v, dot %v, scaled %v", sq, dot, out)
	}
	if want := []float32{1 + 1 + 1, 1 + 0 - 2, 1 - 0.5 + 3}; da[0] != want[0] || da[1] != want[1] || da[2] != want[2] {
		t.Fatalf("da = %v, want %v", da, want)
	}
}

// TestTranspose8 checks every implementation against the definition on
// row counts around the 8-row blocks and row strides of one head (8), of
// q in qkv (96) and of an odd layout.
func TestTranspose8(t *testing.T) {
	for _, m := range impls {
		for _, tt := range []int{0, 1, 7, 8, 9, 16, 31, 32, 33} {
			for _, ld := range []int{8, 13, 96} {
				t.Run(fmt.Sprintf("impl=%s/t=%d/ld=%d", m.name, tt, ld), func(t *testing.T) {
					src := make([]float32, max(0, (tt-1)*ld+8))
					for i := range src {
						src[i] = float32(i)
					}
					dst := make([]float32, 8*tt)
					m.transpose8(dst, src, tt, ld)
					for i := range tt {
						for c := range 8 {
							if dst[c*tt+i] != src[i*ld+c] {
								t.Fatalf("dst[%d,%d] = %v, want %v", c, i, dst[c*tt+i], src[i*ld+c])
							}
						}
					}
				})
			}
		}
	}
}

// TestTranspose checks Transpose against the definition on the 16x16-block
// kernel's shapes (the model's weights) and on shapes off the blocks, which
// run the Go loop.
func TestTranspose(t *testing.T) {
	for _, s := range [][2]int{{16, 16}, {96, 32}, {32, 96}, {128, 32}, {32, 128}, {8, 32}, {32, 1}, {17, 5}, {1, 1}, {0, 4}} {
		r, c := s[0], s[1]
		t.Run(fmt.Sprintf("r=%d/c=%d", r, c), func(t *testing.T) {
			src := make([]float32, r*c)
			for i := range src {
				src[i] = float32(i) + 0.5
			}
			dst := make([]float32, r*c)
			Transpose(dst, src, r, c)
			for i := range r {
				for j := range c {
					if dst[j*r+i] != src[i*c+j] {
						t.Fatalf("dst[%d,%d] = %v, want src[%d,%d] = %v", j, i, dst[j*r+i], i, j, src[i*c+j])
					}
				}
			}
		})
	}
}

// TestTransposeTo checks the strided transpose against the definition,
// on the block kernel's shapes and off them, into rows wider than R: the
// elements between the rows must be left alone.
func TestTransposeTo(t *testing.T) {
	for _, s := range [][3]int{{32, 32, 96}, {64, 96, 192}, {16, 16, 16}, {32, 32, 40}, {17, 5, 20}, {0, 4, 3}} {
		r, c, ldd := s[0], s[1], s[2]
		t.Run(fmt.Sprintf("r=%d/c=%d/ldd=%d", r, c, ldd), func(t *testing.T) {
			src := make([]float32, r*c)
			for i := range src {
				src[i] = float32(i) + 0.5
			}
			dst := make([]float32, max(0, (c-1)*ldd+r))
			for i := range dst {
				dst[i] = -1
			}
			TransposeTo(dst, ldd, src, r, c)
			for k, v := range dst {
				j, i := k/ldd, k%ldd
				want := float32(-1)
				if i < r {
					want = src[i*c+j]
				}
				if v != want {
					t.Fatalf("dst[%d] (row %d, column %d) = %v, want %v", k, j, i, v, want)
				}
			}
		})
	}
	if !panics(func() { TransposeTo(make([]float32, 31*40+31), 40, make([]float32, 32*32), 32, 32) }) {
		t.Error("TransposeTo accepted a destination one element short")
	}
	if !panics(func() { TransposeTo(make([]float32, 32*32), 31, make([]float32, 32*32), 32, 32) }) {
		t.Error("TransposeTo accepted rows closer than R")
	}
	if !panics(func() { TransposeTo(make([]float32, 256), (1<<63-1)/15+1, make([]float32, 16*16), 16, 16) }) {
		t.Error("TransposeTo accepted rows so far apart that (C-1)·ldd overflows")
	}
}

// TestInterleavePairs checks the pairwise interleave against its
// definition on block lengths the kernel covers whole (T·T for T = 32,
// 16), in part (a tail after 16-value steps) and not at all, for one to
// three pairs, and its length checks.
func TestInterleavePairs(t *testing.T) {
	for _, n := range []int{1024, 256, 16, 40, 7, 0} {
		for _, count := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("n=%d/count=%d", n, count), func(t *testing.T) {
				src := make([]float32, 2*count*n)
				for i := range src {
					src[i] = float32(i) + 0.25
				}
				dst := make([]float32, len(src))
				InterleavePairs(dst, src, n, count)
				for q := range count {
					for k := range n {
						for h := range 2 {
							if got, want := dst[q*2*n+2*k+h], src[(2*q+h)*n+k]; got != want {
								t.Fatalf("dst[pair %d, value %d, block %d] = %v, want %v", q, k, h, got, want)
							}
						}
					}
				}
			})
		}
	}
	if !panics(func() { InterleavePairs(make([]float32, 64), make([]float32, 63), 16, 2) }) {
		t.Error("InterleavePairs accepted a short source")
	}
	if !panics(func() { InterleavePairs(make([]float32, 63), make([]float32, 64), 16, 2) }) {
		t.Error("InterleavePairs accepted a short destination")
	}
	if !panics(func() { InterleavePairs(nil, nil, 1<<62, 2) }) {
		t.Error("InterleavePairs accepted 2·count·n overflowing to 0")
	}
	if !panics(func() { InterleavePairs(make([]float32, 8), make([]float32, 8), 4, 0) }) {
		t.Error("InterleavePairs accepted values for no pairs")
	}
}

// TestTranspose8N checks the batched transpose against the definition in
// the layout of a window's four heads of q (row stride 96, heads 8
// columns apart), and its length check.
func TestTranspose8N(t *testing.T) {
	const heads, tt, ld = 4, 32, 96
	src := make([]float32, (heads-1)*8+(tt-1)*ld+8)
	for i := range src {
		src[i] = float32(i)
	}
	dst := make([]float32, heads*8*tt)
	Transpose8N(dst, src, tt, ld, heads, 8)
	for h := range heads {
		for i := range tt {
			for c := range 8 {
				if got, want := dst[(h*8+c)*tt+i], src[h*8+i*ld+c]; got != want {
					t.Fatalf("head %d: dst[%d,%d] = %v, want %v", h, c, i, got, want)
				}
			}
		}
	}
	if !panics(func() { Transpose8N(dst, src[:len(src)-1], tt, ld, heads, 8) }) {
		t.Error("Transpose8N accepted a source one element short")
	}
}

func panics(f func()) (p bool) {
	defer func() { p = recover() != nil }()
	f()
	return false
}
