//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// The assembly kernels need AVX-512F (zmm, opmasks, embedded broadcast) or
// AVX2; x/sys/cpu reports a feature only when the OS saves its registers.
var (
	hasAVX512   = cpu.X86.HasAVX512F
	hasAVX512VL = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL
	hasAVX2     = cpu.X86.HasAVX2
)

// impls lists the float32 implementations this machine can run, fastest
// last, for tests and benchmarks.
var impls = func() []impl {
	l := []impl{{"generic", gemmGeneric32}}
	if hasAVX2 {
		l = append(l, impl{"avx2", gemmAVX2})
	}
	if hasAVX512 {
		l = append(l, impl{"avx512", gemmAVX512})
	}
	return l
}()

// Impl names the Gemm implementation in use on this machine: "avx512",
// "avx2" or "generic".
func Impl() string { return impls[len(impls)-1].name }

var gemm32 = impls[len(impls)-1].gemm

// useAVX512 reports that the AVX-512 kernels are the ones in use, for the
// entry points outside impls (TriGemm, UpperGemm, the epilogues).
var useAVX512 = Impl() == "avx512"

// gemmEpi32 is the float32 core of GemmScaled (add false) and GemmAdd
// (add true): in the AVX-512 kernels' epilogue where they run, after Gemm
// otherwise.
func gemmEpi32(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, bias, e []float32, add bool, m, n, k int) {
	if useAVX512 {
		op := flagScale
		if add {
			op = flagAddE
		}
		gemmAVX512Epi(c, ldc, a, rsa, csa, b, ldb, bias, e, op, m, n, k, false)
		return
	}
	gemm32(c, ldc, a, rsa, csa, b, ldb, bias, m, n, k, false)
	epiBlock(c, e, add, ldc, 0, m, 0, n)
}

func gemmGeneric32(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, bias []float32, m, n, k int, acc bool) {
	gemmGeneric(c, ldc, a, rsa, csa, b, ldb, bias, 0, m, 0, n, k, acc)
}

// Flags of the assembly micro-kernels.
const (
	flagAcc   = 1  // start from C instead of zero
	flagBias  = 2  // add bias after the sum
	flagScale = 8  // multiply by E after the sum (gemm8x32AVX512 only); 4 is the kernel's own
	flagAddE  = 16 // add E after the sum (gemm8x32AVX512 only)
	flagDBias = 32 // full panel, rsa = 1: also add A's rows to the bias gradient at s (gemm8x32AVX512 only)
)

// gemm8x32AVX512 computes rows (a positive multiple of 8) rows of a
// 32-column panel of C, one 8-row tile after another, of which the columns
// set in masks (bit j for column j) are read and written; rows of A start
// at a, a+rsa, … (strides in elements). k ≥ 1. With flagScale (flagAddE)
// each result is multiplied by (added to) the matching element of E (at
// s, row stride ldc) before the store, after the bias.
//
//go:noescape
func gemm8x32AVX512(c, a, b, bias *float32, ldc, rsa, csa, ldb, k int, masks uint32, flags, rows int, s *float32)

// gemm8x16AVX512 is gemm8x32AVX512 for a tile of at most 16 columns
// (masks bits 0…15): half the work per step for narrow products such as
// one attention head (16 columns or fewer).
//
//go:noescape
func gemm8x16AVX512(c, a, b, bias *float32, ldc, rsa, csa, ldb, k int, masks uint32, flags, rows int)

// gemm8x8AVX computes rows (a positive multiple of 8) rows of an
// exactly-8-column panel on ymm registers (the AVX-512 path's kernel for
// exactly 8 columns left).
//
//go:noescape
func gemm8x8AVX(c, a, b, bias *float32, ldc, rsa, csa, ldb, k int, flags, rows int)

// gemm16x8AVX512 is gemm8x8AVX for rows a positive multiple of 16, on
// AVX-512VL (16-row tiles, embedded-broadcast multiplies).
//
//go:noescape
func gemm16x8AVX512(c, a, b, bias *float32, ldc, rsa, csa, ldb, k int, flags, rows int)

// gemm1x32AVX512 is gemm8x32AVX512 for one row.
//
//go:noescape
func gemm1x32AVX512(c, a, b, bias *float32, ldc, rsa, csa, ldb, k int, masks uint32, flags int)

// gemm4x16AVX2 computes a full 4-row, 16-column tile of C. k ≥ 1.
//
//go:noescape
func gemm4x16AVX2(c, a, b, bias *float32, ldc, rsa, csa, ldb, k int, flags int)

func kernelFlags(bias []float32, acc bool) int {
	f := 0
	if acc {
		f |= flagAcc
	}
	if bias != nil {
		f |= flagBias
	}
	return f
}

// gemmAVX512 tiles C into 8x32 blocks: 8x16 when at most 16 columns are
// left, and for exactly 8 columns 16x8 tiles on ymm (AVX-512VL) with an
// 8x8 one for the rest; column tails are masked, row tails one row at a
// time. The column panel of B is the outer loop, so it stays in L1 while
// the row tiles stream past.
func gemmAVX512(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, bias []float32, m, n, k int, acc bool) {
	gemmAVX512Epi(c, ldc, a, rsa, csa, b, ldb, bias, nil, 0, m, n, k, acc)
}

// gemmAVX512Epi is gemmAVX512 followed by the epilogue op (flagScale:
// C ⊙= E, flagAddE: C += E, E with C's layout) when e is not nil: in the
// 8x32 kernel's epilogue, after the other kernels by epiBlock.
func gemmAVX512Epi(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, bias, e []float32, op int, m, n, k int, acc bool) {
	if k == 0 {
		gemmGeneric(c, ldc, a, rsa, csa, b, ldb, bias, 0, m, 0, n, k, acc)
		epiBlock(c, e, op == flagAddE, ldc, 0, m, 0, n)
		return
	}
	flags := kernelFlags(bias, acc)
	for j0 := 0; j0 < n; j0 += 32 {
		nc := min(32, n-j0)
		masks := uint32(uint64(1)<<nc - 1)
		var bp *float32
		if bias != nil {
			bp = &bias[j0]
		}
		m8 := m / 8 * 8
		switch {
		case m8 == 0:
		case nc == 8:
			m16 := 0
			if hasAVX512VL {
				m16 = m / 16 * 16
			}
			if m16 > 0 {
				gemm16x8AVX512(&c[j0], &a[0], &b[j0], bp, ldc, rsa, csa, ldb, k, flags, m16)
			}
			if m16 < m8 {
				gemm8x8AVX(&c[m16*ldc+j0], &a[m16*rsa], &b[j0], bp, ldc, rsa, csa, ldb, k, flags, m8-m16)
			}
			epiBlock(c, e, op == flagAddE, ldc, 0, m8, j0, j0+nc)
		case nc <= 16:
			gemm8x16AVX512(&c[j0], &a[0], &b[j0], bp, ldc, rsa, csa, ldb, k, masks, flags, m8)
			epiBlock(c, e, op == flagAddE, ldc, 0, m8, j0, j0+nc)
		default:
			if e != nil {
				gemm8x32AVX512(&c[j0], &a[0], &b[j0], bp, ldc, rsa, csa, ldb, k, masks, flags|op, m8, &e[j0])
			} else {
				gemm8x32AVX512(&c[j0], &a[0], &b[j0], bp, ldc, rsa, csa, ldb, k, masks, flags, m8, nil)
			}
		}
		for i := m8; i < m; i++ {
			gemm1x32AVX512(&c[i*ldc+j0], &a[i*rsa], &b[j0], bp, ldc, rsa, csa, ldb, k, masks, flags)
		}
		epiBlock(c, e, op == flagAddE, ldc, m8, m, j0, j0+nc)
	}
}

// gemmAVX2 runs full 4x16 tiles in assembly (8x8 tiles for a product
// exactly 8 columns wide) and the ragged edges in Go; both follow the
// canonical order, so the split does not change bits.
func gemmAVX2(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, bias []float32, m, n, k int, acc bool) {
	if n == 8 && k > 0 && m >= 8 {
		// One 8-wide panel (an attention head): the 8x8 ymm tile.
		flags, m8 := kernelFlags(bias, acc), m/8*8
		var bp *float32
		if bias != nil {
			bp = &bias[0]
		}
		if m8 > 0 {
			gemm8x8AVX(&c[0], &a[0], &b[0], bp, ldc, rsa, csa, ldb, k, flags, m8)
		}
		gemmGeneric(c, ldc, a, rsa, csa, b, ldb, bias, m8, m, 0, n, k, acc)
		return
	}
	m4, n16 := m/4*4, n/16*16
	if k == 0 || m4 == 0 || n16 == 0 {
		gemmGeneric(c, ldc, a, rsa, csa, b, ldb, bias, 0, m, 0, n, k, acc)
		return
	}
	flags := kernelFlags(bias, acc)
	for j0 := 0; j0 < n16; j0 += 16 {
		var bp *float32
		if bias != nil {
			bp = &bias[j0]
		}
		for i := 0; i < m4; i += 4 {
			gemm4x16AVX2(&c[i*ldc+j0], &a[i*rsa], &b[j0], bp, ldc, rsa, csa, ldb, k, flags)
		}
	}
	gemmGeneric(c, ldc, a, rsa, csa, b, ldb, bias, 0, m4, n16, n, k, acc)
	gemmGeneric(c, ldc, a, rsa, csa, b, ldb, bias, m4, m, 0, n, k, acc)
}

// tri8AVX512 is TriGemm for N = 8 and T a positive multiple of 8, one
// 8x8 ymm tile (embedded-broadcast multiplies, AVX-512VL) per 8 rows, all
// tiles in one call. upper is 0 (lower) or 1.
//
//go:noescape
func tri8AVX512(c, a, b *float32, ldc, rsa, csa, ldb, t, upper int)

// tri16AVX512 is tri8AVX512 for T a positive multiple of 16, in 16-row
// tiles of two phases each (the same sums, half the tiles).
//
//go:noescape
func tri16AVX512(c, a, b *float32, ldc, rsa, csa, ldb, t, upper int)

// dwBiasAsm runs a linear layer's dW = doutᵀ·inp and dbias += Σ_n dout
// in one pass over dout when the AVX-512 kernel can (In a positive
// multiple of 32, Out of 8): the first column panel's tiles add their A
// rows, dout[p, i0…i0+7], to the bias gradient as they go by (flagDBias),
// in the same order as the one-row Gemm. It reports whether it ran.
func dwBiasAsm(dw, dbias, dout, inp []float32, n, in, outF int) bool {
	if !useAVX512 || n == 0 || in%32 != 0 || outF%8 != 0 || in == 0 || outF == 0 {
		return false
	}
	for j0 := 0; j0 < in; j0 += 32 {
		flags := flagAcc
		if j0 == 0 {
			flags |= flagDBias
		}
		gemm8x32AVX512(&dw[j0], &dout[0], &inp[j0], nil, in, 1, outF, in, n, ^uint32(0), flags, outF, &dbias[0])
	}
	return true
}

// triAsmN runs TriGemm's float32 kernel on each product of bt when this
// machine and shape have one (the AVX-512 Gemm, N = 8, T a multiple of 8)
// and reports whether it did (all or none). Bounds were checked by the
// caller.
func triAsmN(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, t, n int, upper bool, bt Batch) bool {
	if n != 8 || t%8 != 0 || !hasAVX512VL || !useAVX512 {
		return false
	}
	u := 0
	if upper {
		u = 1
	}
	for h := range bt.Count {
		cp, ap, bp := &c[h*bt.SC], &a[h*bt.SA], &b[h*bt.SB]
		if t%16 == 0 {
			tri16AVX512(cp, ap, bp, ldc, rsa, csa, ldb, t, u)
		} else {
			tri8AVX512(cp, ap, bp, ldc, rsa, csa, ldb, t, u)
		}
	}
	return true
}

// upper32x8AVX512 is UpperGemm for T = 32 and K = 8: B's 8x32 block stays
// in Z16–Z31 while the rows of C go by, two zmm each for rows 0–15 and
// the right one for rows 16–31.
//
//go:noescape
func upper32x8AVX512(c, a, b *float32, ldc, lda, ldb int)

// upperAsmN runs UpperGemm's float32 kernel on each product of bt when
// this machine and shape have one (the AVX-512 Gemm, T = 32, K = 8) and
// reports whether it did (all or none).
func upperAsmN(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, t, k int, bt Batch) bool {
	if t != 32 || k != 8 || !useAVX512 {
		return false
	}
	for h := range bt.Count {
		upper32x8AVX512(&c[h*bt.SC], &a[h*bt.SA], &b[h*bt.SB], ldc, lda, ldb)
	}
	return true
}
