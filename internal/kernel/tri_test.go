package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTriGemmBitIdentical checks TriGemm (the assembly kernel where this
// machine has one) and its Gemm-per-tile path against the full product
// from the pure-Go Gemm, bit for bit: lower and upper, A by rows and
// transposed, T and N on and off the tile sizes, negative B entries so
// that the skipped products include −0.
func TestTriGemmBitIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, tt := range []int{1, 7, 8, 9, 16, 24, 32, 33, 40, 48, 96} {
		for _, n := range []int{1, 8, 9, 12, 16, 17} {
			for _, upper := range []bool{false, true} {
				for _, layout := range []string{"rows", "cols"} {
					name := fmt.Sprintf("t=%d/n=%d/upper=%t/a=%s", tt, n, upper, layout)
					t.Run(name, func(t *testing.T) {
						rsa, csa := tt, 1
						if layout == "cols" {
							rsa, csa = 1, tt
						}
						a := make([]float32, tt*tt)
						for i := range tt {
							for p := range tt {
								if (upper && p >= i) || (!upper && p <= i) {
									a[i*rsa+p*csa] = float32(r.NormFloat64())
								}
							}
						}
						ldb, ldc := n+3, n+5
						b := make([]float32, tt*ldb)
						for i := range b {
							b[i] = float32(r.NormFloat64())
						}
						want := make([]float32, tt*ldc)
						gemmGeneric(want, ldc, a, rsa, csa, b, ldb, nil, 0, tt, 0, n, tt, false)
						for _, path := range []string{"TriGemm", "tiles"} {
							got := make([]float32, tt*ldc)
							for i := range got {
								got[i] = float32(math.NaN()) // every output must be written
							}
							if path == "TriGemm" {
								TriGemm(got, ldc, a, rsa, csa, b, ldb, tt, n, upper)
							} else {
								triTiles(got, ldc, a, rsa, csa, b, ldb, tt, n, upper)
							}
							for i := range tt {
								for j := range n {
									g, w := got[i*ldc+j], want[i*ldc+j]
									require.Equalf(t, math.Float32bits(w), math.Float32bits(g), "%s: C[%d,%d] = %v, want %v", path, i, j, g, w)
								}
							}
						}
					})
				}
			}
		}
	}
}

// TestTriGemmHandDerived checks a 2x2 lower and upper product by hand.
func TestTriGemmHandDerived(t *testing.T) {
	a := []float32{1, 0, 2, 3} // lower: [[1 0] [2 3]]
	b := []float32{10, 20}     // B (2,1)
	c := make([]float32, 2)
	TriGemm(c, 1, a, 2, 1, b, 1, 2, 1, false)
	require.Equal(t, []float32{10, 2*10 + 3*20}, c)
	au := []float32{1, 4, 0, 3} // upper: [[1 4] [0 3]]
	TriGemm(c, 1, au, 2, 1, b, 1, 2, 1, true)
	require.Equal(t, []float32{10 + 4*20, 3 * 20}, c)
}

// TestUpperGemmBitIdentical checks UpperGemm (the assembly kernels for T
// a multiple of 8 where this machine has them) and its Gemm-per-tile path
// against the full product from the pure-Go Gemm, bit for bit, on the
// columns each row must get, and that the columns left of a row's tile
// are not written.
func TestUpperGemmBitIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, tt := range []int{1, 8, 15, 16, 17, 24, 32, 33, 40, 48, 96} {
		for _, k := range []int{1, 7, 8, 9, 16} {
			t.Run(fmt.Sprintf("t=%d/k=%d", tt, k), func(t *testing.T) {
				lda, ldb, ldc := k+5, tt+3, tt+1
				a, b := make([]float32, tt*lda), make([]float32, k*ldb)
				for i := range a {
					a[i] = float32(r.NormFloat64())
				}
				for i := range b {
					b[i] = float32(r.NormFloat64())
				}
				want := make([]float32, tt*ldc)
				gemmGeneric(want, ldc, a, lda, 1, b, ldb, nil, 0, tt, 0, tt, k, false)
				for _, path := range []string{"UpperGemm", "tiles"} {
					got := make([]float32, tt*ldc)
					for i := range got {
						got[i] = float32(math.NaN())
					}
					if path == "UpperGemm" {
						UpperGemm(got, ldc, a, lda, b, ldb, tt, k)
					} else {
						upperTiles(got, ldc, a, lda, b, ldb, tt, k)
					}
					for j := range tt {
						j0 := j / UpperTile * UpperTile
						for i := range tt {
							g := got[j*ldc+i]
							if i < j0 {
								require.Truef(t, math.IsNaN(float64(g)), "%s: C[%d,%d] left of the tile was written", path, j, i)
								continue
							}
							w := want[j*ldc+i]
							require.Equalf(t, math.Float32bits(w), math.Float32bits(g), "%s: C[%d,%d] = %v, want %v", path, j, i, g, w)
						}
					}
				}
			})
		}
	}
}

// TestGemmEpilogueBitIdentical checks GemmScaled and GemmAdd (the
// AVX-512 epilogue where this machine runs it) against the pure-Go Gemm
// followed by a separate elementwise multiply or add, bit for bit, padding
// untouched, on the Gemm test shapes (full 32-column panels, masked tails,
// 8- and 16-column panels, row tails) and the model's up- and
// down-projections.
func TestGemmEpilogueBitIdentical(t *testing.T) {
	cases := append(gemmCases(), gemmCase{m: 256, n: 128, k: 32, layout: "rows"}, gemmCase{m: 256, n: 32, k: 128, layout: "rows", withBias: true})
	for _, op := range []string{"scale", "add"} {
		t.Run("op="+op, func(t *testing.T) {
			for _, g := range cases {
				g.acc = false
				d := newGemmData(g, 3)
				r := rand.New(rand.NewPCG(5, uint64(g.m)))
				e := f32(randn(r, len(d.c)))
				for i := range e {
					if i%7 == 0 {
						e[i] = float32(math.Copysign(0, -1)) // signed zeros go through the op too
					}
				}
				want, got := d.clone(), d.clone()
				gemmGeneric(want.c, d.ldc, d.a, d.rsa, d.csa, d.b, d.ldb, d.bias, 0, d.m, 0, d.n, d.k, false)
				for i := range d.m {
					for j := range d.n {
						w := &want.c[i*d.ldc+j]
						if op == "add" {
							*w = float32(*w + e[i*d.ldc+j])
						} else {
							*w = float32(*w * e[i*d.ldc+j])
						}
					}
				}
				if op == "add" {
					GemmAdd(got.c, d.ldc, d.a, d.rsa, d.csa, d.b, d.ldb, d.bias, e, d.m, d.n, d.k)
				} else {
					GemmScaled(got.c, d.ldc, d.a, d.rsa, d.csa, d.b, d.ldb, d.bias, e, d.m, d.n, d.k)
				}
				for i := range want.c {
					if math.Float32bits(want.c[i]) != math.Float32bits(got.c[i]) {
						t.Fatalf("%v: C[%d,%d] = %v (%#x), want %v (%#x)", g, i/d.ldc, i%d.ldc,
							got.c[i], math.Float32bits(got.c[i]), want.c[i], math.Float32bits(want.c[i]))
					}
				}
			}
		})
	}
}

// BenchmarkCausal times the causal head products of the default model (T =
// 32, hs = 8) as the attention runs them: TriGemm lower (P·V, dS·K) and
// upper (Pᵀ·dO, dSᵀ·Q), and UpperGemm (Sᵀ = K·Qᵀ, Gᵀ = V·dOᵀ), operands
// strided as in a (T,3D) qkv buffer. GFLOP/s counts the multiply-adds the
// tiles do (5120 for TriGemm, 6144 for UpperGemm; the causal triangle is
// 4224); %peak is against BenchmarkPeak's probe.
func BenchmarkCausal(b *testing.B) {
	peak, _ := fp32Peak()
	// The default model's heads (T = 32, 8 wide) and the ETT shapes' (T = 96, 16 wide).
	for _, sh := range []struct{ t, hs int }{{32, 8}, {96, 16}} {
		t, hs, ld := sh.t, sh.hs, 12*sh.hs
		r := rand.New(rand.NewPCG(3, 4))
		a, bm, c := f32(randn(r, t*t)), f32(randn(r, t*ld)), make([]float32, t*ld)
		run := func(name string, macs int, f func()) {
			b.Run(fmt.Sprintf("t=%d/hs=%d/op=%s", t, hs, name), func(b *testing.B) {
				for b.Loop() {
					f()
				}
				g := 2 * float64(macs) * float64(b.N) / b.Elapsed().Seconds() / 1e9
				b.ReportMetric(g, "GFLOP/s")
				if peak > 0 {
					b.ReportMetric(100*g/peak, "%peak")
				}
			})
		}
		// The tiles' multiply-adds: lower tile r0 sums p < r0+TriTile,
		// upper tile r0 sums p ≥ r0; UpperGemm's tile j0 covers columns ≥ j0.
		tri, upper := 0, 0
		for r0 := 0; r0 < t; r0 += TriTile {
			tri += min(TriTile, t-r0) * min(t, r0+TriTile) * hs
		}
		for j0 := 0; j0 < t; j0 += UpperTile {
			upper += min(UpperTile, t-j0) * (t - j0) * hs
		}
		run("tri/upper=false", tri, func() { TriGemm(c, ld, a, 1, t, bm, ld, t, hs, false) })
		run("tri/upper=true", tri, func() { TriGemm(c, ld, a, t, 1, bm, ld, t, hs, true) })
		run("upper", upper, func() { UpperGemm(c[:t*t], t, bm, ld, a[:hs*t], t, t, hs) })
		// The lower product transposed (P·V with queries along the tiles'
		// columns), GFLOP/s on the same tile work as tri/upper=false.
		ct := make([]float32, hs*t)
		run("trit/upper=false", tri, func() { TriGemmTN(ct, a, bm, ld, t, hs, false, Batch{Count: 1}) })
		if hs == 8 {
			// Two heads at once, A interleaved (GFLOP/s on both heads' tile work).
			a2 := f32(randn(r, 2*t*t))
			run("pair/upper=true", 2*tri, func() { TriGemmPairs(c, ld, a2, 2*t, 2, bm, ld, t, true, Batch{Count: 1}) })
			run("pair/upper=false", 2*tri, func() { TriGemmPairs(c, ld, a2, 2, 2*t, bm, ld, t, false, Batch{Count: 1}) })
		}
	}
}

// TestBatchedBitIdentical checks TriGemmN and UpperGemmN against one
// TriGemm or UpperGemm call per product, bit for bit, in the layout of an
// attention window's four heads (interleaved columns of shared C and B
// rows, A blocks one after another) and in float64, where they loop over
// the tiles in Go: heads 8, 12 and 16 wide, T = 32, 24 and 96 (the
// assembly kernels) and 9 (Go).
func TestBatchedBitIdentical(t *testing.T) {
	const heads = 4
	r := rand.New(rand.NewPCG(25, 26))
	for _, hs := range []int{8, 12, 16} {
		for _, tt := range []int{32, 24, 9, 96} {
			batchedCase(t, r, heads, hs, tt)
		}
	}
	t.Run("panics", func(t *testing.T) {
		c, a, b := make([]float32, 32*8), make([]float32, 32*32), make([]float32, 32*8)
		require.PanicsWithValue(t, "kernel: TriGemmN: negative batch count or offset", func() {
			TriGemmN(c, 8, a, 1, 32, b, 8, 32, 8, false, Batch{Count: 2, SC: -1})
		})
		require.PanicsWithValue(t, "kernel: TriGemmN: the batch's last product starts past the end of C, A or B", func() {
			TriGemmN(c, 8, a, 1, 32, b, 8, 32, 8, false, Batch{Count: 2, SA: 32 * 32 * 2})
		})
		require.Panics(t, func() { // the last product's A is too short
			TriGemmN(c, 8, a, 1, 32, b, 8, 32, 8, false, Batch{Count: 2, SA: 8})
		})
		require.Panics(t, func() { // the last product's C is too short
			UpperGemmN(a, 32, b, 8, c, 32, 32, 8, Batch{Count: 2, SC: 8})
		})
	})
}

// batchedCase is one head width and length of TestBatchedBitIdentical.
func batchedCase(t *testing.T, r *rand.Rand, heads, hs, tt int) {
	{
		ld := 3 * heads * hs // a [q | k | v] row
		qkv := f32(randn(r, tt*ld))
		full := f32(randn(r, heads*tt*tt))
		t.Run(fmt.Sprintf("op=tri/hs=%d/t=%d", hs, tt), func(t *testing.T) {
			for _, upper := range []bool{false, true} {
				rsa, csa := 1, tt
				if upper {
					rsa, csa = tt, 1
				}
				// Each head's A triangular, as TriGemm requires.
				att := make([]float32, len(full))
				for h := range heads {
					for i := range tt {
						for p := range tt {
							if (upper && p >= i) || (!upper && p <= i) {
								att[h*tt*tt+i*rsa+p*csa] = full[h*tt*tt+i*rsa+p*csa]
							}
						}
					}
				}
				bt := Batch{Count: heads, SC: hs, SA: tt * tt, SB: hs}
				want, got := make([]float32, tt*heads*hs), make([]float32, tt*heads*hs)
				for h := range heads {
					TriGemm(want[h*hs:], heads*hs, att[h*tt*tt:], rsa, csa, qkv[2*heads*hs+h*hs:], ld, tt, hs, upper)
				}
				TriGemmN(got, heads*hs, att, rsa, csa, qkv[2*heads*hs:], ld, tt, hs, upper, bt)
				requireSameBits32(t, want, got)
				// and against the pure-Go Gemm over the full range, head by head
				for h := range heads {
					ref := make([]float32, tt*heads*hs)
					gemmGeneric(ref[h*hs:], heads*hs, att[h*tt*tt:], rsa, csa, qkv[2*heads*hs+h*hs:], ld, nil, 0, tt, 0, hs, tt, false)
					for i := range tt {
						for j := range hs {
							k := i*heads*hs + h*hs + j
							require.Equalf(t, math.Float32bits(ref[k]), math.Float32bits(got[k]), "head %d C[%d,%d]", h, i, j)
						}
					}
				}
				want64, got64 := make([]float64, len(want)), make([]float64, len(got))
				att64, qkv64 := f64(att), f64(qkv)
				for h := range heads {
					TriGemm(want64[h*hs:], heads*hs, att64[h*tt*tt:], rsa, csa, qkv64[2*heads*hs+h*hs:], ld, tt, hs, upper)
				}
				TriGemmN(got64, heads*hs, att64, rsa, csa, qkv64[2*heads*hs:], ld, tt, hs, upper, bt)
				require.Equal(t, want64, got64)
			}
		})
		t.Run(fmt.Sprintf("op=upper/hs=%d/t=%d", hs, tt), func(t *testing.T) {
			bt := Batch{Count: heads, SC: tt * tt, SA: hs, SB: hs * tt}
			qt := f32(randn(r, heads*hs*tt))
			want, got := make([]float32, heads*tt*tt), make([]float32, heads*tt*tt)
			for h := range heads {
				UpperGemm(want[h*tt*tt:], tt, qkv[heads*hs+h*hs:], ld, qt[h*hs*tt:], tt, tt, hs)
			}
			UpperGemmN(got, tt, qkv[heads*hs:], ld, qt, tt, tt, hs, bt)
			requireSameBits32(t, want, got)
			// and against the pure-Go Gemm, head by head, on the columns
			// each row gets
			for h := range heads {
				ref := make([]float32, tt*tt)
				gemmGeneric(ref, tt, qkv[heads*hs+h*hs:], ld, 1, qt[h*hs*tt:], tt, nil, 0, tt, 0, tt, hs, false)
				for j := range tt {
					for i := j / UpperTile * UpperTile; i < tt; i++ {
						require.Equalf(t, math.Float32bits(ref[j*tt+i]), math.Float32bits(got[h*tt*tt+j*tt+i]), "head %d C[%d,%d]", h, j, i)
					}
				}
			}
		})
	}
}

func requireSameBits32(t *testing.T, want, got []float32) {
	t.Helper()
	for i := range want {
		require.Equalf(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "element %d = %v, want %v", i, got[i], want[i])
	}
}

// TestTriGemmTN checks the transposed causal product against TriGemm,
// bit for bit: for each of a window's heads (interleaved columns of B,
// A blocks one after another), ct's (N,T) block is C transposed. T = 16,
// 32, 48 and 96 with N = 8 and 16 run the assembly panels where this
// machine has them (16- and 32-wide, lower and upper); T = 24 and N = 12
// the Gemm fallback.
func TestTriGemmTN(t *testing.T) {
	const heads = 3
	r := rand.New(rand.NewPCG(27, 28))
	for _, tc := range []struct{ tt, n int }{{16, 8}, {32, 8}, {48, 8}, {96, 16}, {32, 16}, {24, 8}, {32, 12}} {
		for _, upper := range []bool{false, true} {
			t.Run(fmt.Sprintf("t=%d/n=%d/upper=%v", tc.tt, tc.n, upper), func(t *testing.T) {
				tt, n := tc.tt, tc.n
				ld := 3 * heads * n
				b := f32(randn(r, tt*ld))
				full := f32(randn(r, heads*tt*tt))
				at := make([]float32, len(full)) // Aᵀ, A triangular
				for h := range heads {
					for i := range tt {
						for p := range tt {
							if (upper && p >= i) || (!upper && p <= i) {
								at[h*tt*tt+p*tt+i] = full[h*tt*tt+p*tt+i]
							}
						}
					}
				}
				want := make([]float32, tt*heads*n)
				for h := range heads {
					TriGemm(want[h*n:], heads*n, at[h*tt*tt:], 1, tt, b[h*n:], ld, tt, n, upper)
				}
				got := make([]float32, heads*n*tt)
				for i := range got {
					got[i] = float32(math.NaN()) // every entry must be written
				}
				TriGemmTN(got, at, b, ld, tt, n, upper, Batch{Count: heads, SC: n * tt, SA: tt * tt, SB: n})
				for h := range heads {
					for i := range tt {
						for c := range n {
							w, g := want[i*heads*n+h*n+c], got[h*n*tt+c*tt+i]
							require.Equalf(t, math.Float32bits(w), math.Float32bits(g), "head %d C[%d,%d] = %v, want %v", h, i, c, g, w)
						}
					}
				}
			})
		}
	}
	t.Run("panics", func(t *testing.T) {
		require.PanicsWithValue(t, "kernel: TriGemmTN: negative size", func() {
			TriGemmTN(nil, nil, nil, 8, -1, 8, false, Batch{Count: 1})
		})
		require.PanicsWithValue(t, "kernel: TriGemmTN: ldb is less than N", func() {
			TriGemmTN(make([]float32, 8*32), make([]float32, 32*32), make([]float32, 32*8), 7, 32, 8, false, Batch{Count: 1})
		})
		require.Panics(t, func() { // ct too short for (N,T)
			TriGemmTN(make([]float32, 8*31), make([]float32, 32*32), make([]float32, 32*8), 8, 32, 8, false, Batch{Count: 1})
		})
	})
}

// TestTriGemmPairs checks TriGemmPairs against TriGemm on each head of
// each pair, bit for bit, with A interleaved as the attention lays it out
// (two heads' key-major (T,T) blocks, element by element): both
// triangles, read row-major (Pᵀ·dO, dSᵀ·Q) and transposed (dS·K), the
// heads' columns side by side in a wider row, batches with gaps between
// pairs, T a multiple of 16 (the assembly kernel) and not (TriGemmN
// head by head), and the length checks.
func TestTriGemmPairs(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for _, tt := range []int{16, 32, 48, 96, 24, 8, 1} {
		for _, pairs := range []int{1, 2, 3} {
			for _, gap := range []int{0, 5} {
				for _, upper := range []bool{false, true} {
					for _, transposed := range []bool{false, true} {
						name := fmt.Sprintf("t=%d/pairs=%d/gap=%d/upper=%v/transposed=%v", tt, pairs, gap, upper, transposed)
						t.Run(name, func(t *testing.T) { pairCase(t, r, tt, pairs, gap, upper, transposed) })
					}
				}
			}
		}
	}
	t.Run("panics", func(t *testing.T) {
		c, a, b := make([]float32, 32*16), make([]float32, 2*32*32), make([]float32, 32*16)
		require.PanicsWithValue(t, "kernel: TriGemmPairs: negative size", func() {
			TriGemmPairs(c, 16, a, 64, 2, b, 16, -1, false, Batch{Count: 1})
		})
		require.PanicsWithValue(t, "kernel: TriGemmPairs: the batch's last product starts past the end of C, A or B", func() {
			TriGemmPairs(c, 16, a, 64, 2, b, 16, 32, false, Batch{Count: 2, SA: 3 * 32 * 32})
		})
		require.PanicsWithValue(t, "kernel: TriGemmPairs: ldc < 16, so the two heads' columns of C overlap", func() {
			TriGemmPairs(c, 8, a, 64, 2, b, 16, 32, false, Batch{Count: 1})
		})
		require.PanicsWithValue(t, "kernel: TriGemmPairs: the batch's last pair starts past the end of C, A or B", func() {
			TriGemmPairs(c, 16, a, 64, 2, b, 16, 32, false, Batch{Count: 2, SC: 32*16 - 4})
		})
		// Every bound is checked before anything is written, on every
		// build: a second pair past the end of C leaves the first alone.
		for _, tt := range []int{32, 24} {
			c2 := make([]float32, 32*16+tt*16)
			require.Panics(t, func() {
				TriGemmPairs(c2[:len(c2)-1], 16, a, 64, 2, b, 16, tt, false, Batch{Count: 2, SC: 32 * 16})
			})
			require.Equal(t, make([]float32, len(c2)), c2, "T %d: C written before the panic", tt)
		}
		require.Panics(t, func() { TriGemmPairs(c[:len(c)-1], 16, a, 64, 2, b, 16, 32, true, Batch{Count: 1}) })
		require.Panics(t, func() { TriGemmPairs(c, 16, a[:len(a)-1], 64, 2, b, 16, 32, true, Batch{Count: 1}) })
		require.Panics(t, func() { TriGemmPairs(c, 16, a, 64, 2, b[:len(b)-1], 16, 32, true, Batch{Count: 1}) })
	})
}

// pairCase runs one TestTriGemmPairs case: pairs pairs of heads whose
// interleaved (T,T) blocks lie 2·T·T+gap apart, B and C rows of
// 16·pairs+gap·pairs columns.
func pairCase(t *testing.T, r *rand.Rand, tt, pairs, gap int, upper, transposed bool) {
	// A_h[i,p] = a[base + h + i·rsa + p·csa]: the block's rows are
	// interleaved rows of 2·T, so row-major reads i·2T + 2p and
	// transposed reads p·2T + 2i.
	rsa, csa := 2*tt, 2
	if transposed {
		rsa, csa = 2, 2*tt
	}
	sa := 2*tt*tt + gap
	a := make([]float32, pairs*sa)
	for q := range pairs {
		for h := range 2 {
			for i := range tt {
				for p := range tt {
					if (upper && p >= i) || (!upper && p <= i) {
						a[q*sa+h+i*rsa+p*csa] = float32(r.NormFloat64())
					}
				}
			}
		}
	}
	sc := 16 + gap
	ld := pairs * sc
	b := f32(randn(r, tt*ld))
	bt := Batch{Count: pairs, SC: sc, SA: sa, SB: sc}
	want := f32(randn(r, tt*ld)) // columns outside the heads: kept
	got := append([]float32(nil), want...)
	for q := range pairs {
		for h := range 2 {
			TriGemm(want[q*sc+8*h:], ld, a[q*sa+h:], rsa, csa, b[q*sc+8*h:], ld, tt, 8, upper)
		}
	}
	TriGemmPairs(got, ld, a, rsa, csa, b, ld, tt, upper, bt)
	requireSameBits32(t, want, got)
}
