//go:build amd64 && !purego

package kernel

import (
	"sync"

	"golang.org/x/sys/cpu"
)

// The assembly kernels need AVX-512F (zmm, opmasks, embedded broadcast;
// every such CPU has FMA) or AVX2 with FMA; x/sys/cpu reports a feature
// only when the OS saves its registers.
var (
	hasAVX512   = cpu.X86.HasAVX512F
	hasAVX512VL = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VL
	hasAVX2     = cpu.X86.HasAVX2 && cpu.X86.HasFMA
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
	// Products whose k fits one block (every panel of B within L1) run
	// unblocked: packing would cost more than it saves. So do products of
	// fewer than 2·blockM rows whose A needs no packing (columns less than
	// a kilobyte apart; see packA below), whose B would be packed
	// for too few rows to pay for it: at m = 96, k = 512, n = 128 (the MLP's
	// input gradient, one window of 96 tokens) 84% of the FMA peak blocked,
	// 100% unblocked; at m = 384 blocking is ahead again (94% against 91%).
	if k <= blockK || (m < 2*blockM && csa < 256) {
		gemmPanels(c, ldc, a, rsa, csa, b, ldb, bias, e, op, m, n, k, acc)
		return
	}
	// A with columns far apart (transposed, as in a weight gradient) is
	// packed into tiles: strided broadcasts a kilobyte or more apart would
	// miss the TLB every few k.
	packA := csa >= 256 && m >= 8
	// Cache blocking in the loop order of Goto & van de Geijn 2008
	// ("Anatomy of high-performance matrix multiplication", ACM TOMS
	// 34(3)): for each block of blockK values of k, B's rows of that block
	// are packed panel by panel (blockK x 32, contiguous, within L1; rows
	// a power of two apart would fall into a few L1 sets), then each block
	// of blockM rows of A passes every panel. The bits do not change: a C
	// tile stored after one k-block and loaded for the next carries its
	// float32 accumulator exactly, so every output still adds its
	// products p = 0, 1, ..., K-1 in order; the bias and the epilogue wait
	// for the last k-block.
	packB := n > 32
	panels := (n + 31) / 32
	var bufA, bufB *[]float32
	if packA {
		bufA = packPool.Get().(*[]float32)
		defer packPool.Put(bufA)
	}
	if packB {
		bufB = packPool.Get().(*[]float32)
		defer packPool.Put(bufB)
		if need := panels * 32 * blockK; cap(*bufB) < need {
			*bufB = make([]float32, need)
		}
	}
	for k0 := 0; k0 < k; k0 += blockK {
		ki := min(blockK, k-k0)
		last := k0+ki == k
		bk, ldbk := b[k0*ldb:], ldb
		if packB {
			pb := (*bufB)[:panels*32*ki]
			for p := range ki {
				row := b[(k0+p)*ldb : (k0+p)*ldb+n]
				for q := range panels {
					copy(pb[q*32*ki+p*32:q*32*ki+p*32+32], row[q*32:])
				}
			}
			bk, ldbk = pb, 32
		}
		panel := func(c []float32, a []float32, rsa, csa int, e []float32, rows int) {
			var bi []float32
			if last {
				bi = bias
			} else {
				e = nil
			}
			for q := range panels {
				j0 := q * 32
				bp := bk[j0:]
				if packB {
					bp = bk[q*32*ki:]
				}
				gemmPanel(c, ldc, a, rsa, csa, bp, ldbk, bi, e, op, rows, j0, min(32, n-j0), ki, acc || k0 > 0)
			}
		}
		for i0 := 0; i0 < m; i0 += blockM {
			mi := min(blockM, m-i0)
			var ei []float32
			if e != nil {
				ei = e[i0*ldc:]
			}
			if !packA {
				panel(c[i0*ldc:], a[i0*rsa+k0*csa:], rsa, csa, ei, mi)
				continue
			}
			// Each tile of 8 rows (fewer at the tail) becomes ki runs of
			// 8 contiguous values, one per k (rsa 1, csa 8); the block is
			// read once, k by k, along A's contiguous rows.
			pa := (*bufA)[:8*ki*((mi+7)/8)]
			for p := range ki {
				src := a[i0*rsa+(k0+p)*csa:]
				for t0 := 0; t0 < mi; t0 += 8 {
					dst := pa[t0*ki+p*8 : t0*ki+p*8+min(8, mi-t0)]
					if rsa == 1 {
						copy(dst, src[t0:])
					} else {
						for r := range dst {
							dst[r] = src[(t0+r)*rsa]
						}
					}
				}
			}
			for t0 := 0; t0 < mi; t0 += 8 {
				var et []float32
				if ei != nil {
					et = ei[t0*ldc:]
				}
				panel(c[(i0+t0)*ldc:], pa[t0*ki:], 1, 8, et, min(8, mi-t0))
			}
		}
	}
}

// The cache blocks of gemmAVX512Epi: 128 rows by 256 columns of A (128 KiB
// of float32, an L2 share), and 256 x 32 panels of B (32 KiB, within L1).
const (
	blockM = 128
	blockK = 256
	// dwBlockK blocks the rows of a weight gradient (dwBiasAsm): its
	// packed panels of B (16 KiB) leave L1 room for A's strided lines.
	dwBlockK = 128
)

// packPool holds the blockM x blockK blocks A is packed into.
var packPool = sync.Pool{New: func() any { b := make([]float32, blockM*blockK); return &b }}

// gemmPanels runs the kernels over C one column panel of B at a time (see
// gemmAVX512).
func gemmPanels(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, bias, e []float32, op int, m, n, k int, acc bool) {
	if k == 0 {
		gemmGeneric(c, ldc, a, rsa, csa, b, ldb, bias, 0, m, 0, n, k, acc)
		epiBlock(c, e, op == flagAddE, ldc, 0, m, 0, n)
		return
	}
	for j0 := 0; j0 < n; j0 += 32 {
		gemmPanel(c, ldc, a, rsa, csa, b[j0:], ldb, bias, e, op, m, j0, min(32, n-j0), k, acc)
	}
}

// gemmPanel computes columns [j0, j0+nc) of C, nc <= 32, k >= 1, from the
// panel bp of B (bp[p*ldb+j] is B's column j0+j).
func gemmPanel(c []float32, ldc int, a []float32, rsa, csa int, bp []float32, ldb int, bias, e []float32, op int, m, j0, nc, k int, acc bool) {
	flags := kernelFlags(bias, acc)
	masks := uint32(uint64(1)<<nc - 1)
	var biasp *float32
	if bias != nil {
		biasp = &bias[j0]
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
			gemm16x8AVX512(&c[j0], &a[0], &bp[0], biasp, ldc, rsa, csa, ldb, k, flags, m16)
		}
		if m16 < m8 {
			gemm8x8AVX(&c[m16*ldc+j0], &a[m16*rsa], &bp[0], biasp, ldc, rsa, csa, ldb, k, flags, m8-m16)
		}
		epiBlock(c, e, op == flagAddE, ldc, 0, m8, j0, j0+nc)
	case nc <= 16:
		gemm8x16AVX512(&c[j0], &a[0], &bp[0], biasp, ldc, rsa, csa, ldb, k, masks, flags, m8)
		epiBlock(c, e, op == flagAddE, ldc, 0, m8, j0, j0+nc)
	default:
		if e != nil {
			gemm8x32AVX512(&c[j0], &a[0], &bp[0], biasp, ldc, rsa, csa, ldb, k, masks, flags|op, m8, &e[j0])
		} else {
			gemm8x32AVX512(&c[j0], &a[0], &bp[0], biasp, ldc, rsa, csa, ldb, k, masks, flags, m8, nil)
		}
	}
	for i := m8; i < m; i++ {
		gemm1x32AVX512(&c[i*ldc+j0], &a[i*rsa], &bp[0], biasp, ldc, rsa, csa, ldb, k, masks, flags)
	}
	epiBlock(c, e, op == flagAddE, ldc, m8, m, j0, j0+nc)
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
	// Few rows, or one panel (In = 32: inp's rows are the panel, already
	// contiguous): one pass per column panel.
	if n <= dwBlockK || in == 32 {
		for j0 := 0; j0 < in; j0 += 32 {
			flags := flagAcc
			if j0 == 0 {
				flags |= flagDBias
			}
			gemm8x32AVX512(&dw[j0], &dout[0], &inp[j0], nil, in, 1, outF, in, n, ^uint32(0), flags, outF, &dbias[0])
		}
		return true
	}
	// Many rows: blocked over k (the row index n here) as in
	// gemmAVX512Epi, B's rows of a block packed panel by panel (dwBlockK x
	// 32, within L1: inp's rows a power of two apart would fall into a few
	// L1 sets). A needs no packing: a tile's eight values at step p,
	// dout[p, i0…i0+7], are contiguous. Each dW entry and each dbias entry
	// still adds its rows p = 0, 1, ..., n-1 in order.
	panels := in / 32
	bufB := packPool.Get().(*[]float32)
	defer packPool.Put(bufB)
	if need := panels * 32 * dwBlockK; cap(*bufB) < need {
		*bufB = make([]float32, need)
	}
	for k0 := 0; k0 < n; k0 += dwBlockK {
		ki := min(dwBlockK, n-k0)
		pb := (*bufB)[:panels*32*ki]
		for p := range ki {
			row := inp[(k0+p)*in : (k0+p+1)*in]
			for q := range panels {
				*(*[32]float32)(pb[q*32*ki+p*32:]) = *(*[32]float32)(row[q*32:])
			}
		}
		// Rows of dW (and dbias) split among goroutines (SetThreads); the
		// packed B is shared, read-only. Each panel passes all the rows
		// while it is in L1.
		parallelRows(outF, 2*float64(outF)*float64(in)*float64(ki), func(r0, r1 int) {
			for q := range panels {
				flags := flagAcc
				if q == 0 {
					flags |= flagDBias
				}
				gemm8x32AVX512(&dw[r0*in+q*32], &dout[k0*outF+r0], &pb[q*32*ki], nil, in, 1, outF, 32, ki, ^uint32(0), flags, r1-r0, &dbias[r0])
			}
		})
	}
	return true
}

// triAsmN runs TriGemm's float32 kernel on each product of bt when this
// machine and shape have one (the AVX-512 Gemm, T a multiple of 8, N = 8
// or 9 to 16) and reports whether it did (all or none). Bounds were
// checked by the caller.
func triAsmN(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, t, n int, upper bool, bt Batch) bool {
	if n > 8 && n <= 16 && t%8 == 0 && useAVX512 {
		// Wider heads (9 to 16 columns, one zmm): triTiles' 8-row tiles
		// straight to the 8x16 kernel, without a Gemm call per tile.
		mask := uint32(1)<<n - 1
		for h := range bt.Count {
			ch, ah, bh := c[h*bt.SC:], a[h*bt.SA:], b[h*bt.SB:]
			for r0 := 0; r0 < t; r0 += TriTile {
				if upper {
					gemm8x16AVX512(&ch[r0*ldc], &ah[r0*rsa+r0*csa], &bh[r0*ldb], nil, ldc, rsa, csa, ldb, t-r0, mask, 0, TriTile)
				} else {
					gemm8x16AVX512(&ch[r0*ldc], &ah[r0*rsa], &bh[0], nil, ldc, rsa, csa, ldb, r0+TriTile, mask, 0, TriTile)
				}
			}
		}
		return true
	}
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

// TriGemmTFast reports whether TriGemmTN runs an assembly kernel for T
// and N: the AVX-512 Gemm, T a positive multiple of 16 and N of 8.
func TriGemmTFast(t, n int) bool {
	return useAVX512 && t > 0 && t%16 == 0 && n > 0 && n%8 == 0
}

// triTAsm is one product of TriGemmTN (TriGemmTFast true), in 32-column
// panels [i0, i0+32) of Cᵀ, B's N columns as the tiles' rows (A operand
// rsa 1, csa ldb) and at's rows as their columns (B operand, row stride
// T). Lower A (at upper triangular, at[p·T+i] = 0 for p > i): p < i0+16
// for the whole panel, then p in [i0+16, i0+32) for its right half,
// accumulated. Upper A (at[p·T+i] = 0 for p < i): p in [i0, i0+16) for
// the left half, then p ≥ i0+16 for the whole panel, accumulated onto
// the left half and onto a zeroed right half (fma(a, b, +0) is the first
// product itself, as from the kernel's own +0). A panel 16 wide (T an odd
// multiple of 16) takes its half's range alone.
func triTAsm(ct, at, b []float32, ldb, t, n int, upper bool) {
	const all, half = ^uint32(0), uint32(0xffff)
	for i0 := 0; i0 < t; i0 += 32 {
		wide := t-i0 >= 32
		switch {
		case !upper && wide:
			gemm8x32AVX512(&ct[i0], &b[0], &at[i0], nil, t, 1, ldb, t, i0+16, all, 0, n, nil)
			gemm8x16AVX512(&ct[i0+16], &b[(i0+16)*ldb], &at[(i0+16)*t+i0+16], nil, t, 1, ldb, t, 16, half, flagAcc, n)
		case !upper:
			gemm8x16AVX512(&ct[i0], &b[0], &at[i0], nil, t, 1, ldb, t, i0+16, half, 0, n)
		case wide:
			gemm8x16AVX512(&ct[i0], &b[i0*ldb], &at[i0*t+i0], nil, t, 1, ldb, t, 16, half, 0, n)
			for r := range n {
				clear(ct[r*t+i0+16 : r*t+i0+32])
			}
			gemm8x32AVX512(&ct[i0], &b[(i0+16)*ldb], &at[(i0+16)*t+i0], nil, t, 1, ldb, t, t-i0-16, all, flagAcc, n, nil)
		default:
			gemm8x16AVX512(&ct[i0], &b[i0*ldb], &at[i0*t+i0], nil, t, 1, ldb, t, 16, half, 0, n)
		}
	}
}

// upper32x8AVX512 is UpperGemm for T = 32 and K = 8: B's 8x32 block stays
// in Z16–Z31 while the rows of C go by, two zmm each for rows 0–15 and
// the right one for rows 16–31.
//
//go:noescape
func upper32x8AVX512(c, a, b *float32, ldc, lda, ldb int)

// upperAsmN runs UpperGemm's float32 kernel on each product of bt when
// this machine and shape have one (the AVX-512 Gemm, T a multiple of 8;
// its own kernel for T = 32, K = 8) and reports whether it did (all or
// none).
func upperAsmN(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, t, k int, bt Batch) bool {
	if t%8 == 0 && !(t == 32 && k == 8) && k > 0 && useAVX512 {
		// Other shapes: upperTiles' 16-row tiles (8 for the last when T
		// is an odd multiple of 8) straight to the 8x32 kernel, one call
		// per 32-column panel right of the tile's start.
		for h := range bt.Count {
			ch, ah, bh := c[h*bt.SC:], a[h*bt.SA:], b[h*bt.SB:]
			for j0 := 0; j0 < t; j0 += UpperTile {
				rows := min(UpperTile, t-j0)
				for i0 := j0; i0 < t; i0 += 32 {
					mask := ^uint32(0)
					if w := t - i0; w < 32 {
						mask = uint32(1)<<w - 1
					}
					gemm8x32AVX512(&ch[j0*ldc+i0], &ah[j0*lda], &bh[i0], nil, ldc, lda, 1, ldb, k, mask, 0, rows, nil)
				}
			}
		}
		return true
	}
	if t != 32 || k != 8 || !useAVX512 {
		return false
	}
	for h := range bt.Count {
		upper32x8AVX512(&c[h*bt.SC], &a[h*bt.SA], &b[h*bt.SB], ldc, lda, ldb)
	}
	return true
}

// triPairAVX512 is tri16AVX512 on two 8-wide heads at once (T a positive
// multiple of 16), one zmm row for both: A's pairs broadcast 64 bits at a
// time, B's row permuted into lanes 2k+h (pairIn) and each row of C back
// (pairOut). upper is 0 (lower) or 1.
//
//go:noescape
func triPairAVX512(c, a, b *float32, ldc, rsa, csa, ldb, t, upper int)

// pairIn puts head h's column k (lane 8h+k of a row of B) in lane 2k+h;
// pairOut undoes it.
var (
	pairIn  = [16]int32{0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15}
	pairOut = [16]int32{0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15}
)

// TriGemmPairsFast reports whether TriGemmPairs runs its assembly kernel
// for T: the AVX-512 Gemm and T a positive multiple of 16.
func TriGemmPairsFast(t int) bool { return useAVX512 && t > 0 && t%16 == 0 }

// triPairAsm runs triPairAVX512 on each pair of bt (TriGemmPairsFast).
func triPairAsm(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, t int, upper bool, bt Batch) {
	u := 0
	if upper {
		u = 1
	}
	for q := range bt.Count {
		triPairAVX512(&c[q*bt.SC], &a[q*bt.SA], &b[q*bt.SB], ldc, rsa, csa, ldb, t, u)
	}
}

// axpyFMA sets y[i] = fma32(a, x[i], y[i]) for i < n, n a positive
// multiple of 8 (AVX2 with FMA).
//
//go:noescape
func axpyFMA(y, x *float32, a float32, n int)

// axpyVec runs axpy's float32 loop on the longest prefix of x whose
// length is a multiple of 8, in vector FMAs where the CPU has them (the
// same bits as fma32), and returns that length (0 where it ran nothing).
func axpyVec(y []float32, a float32, x []float32) int {
	n := len(x) &^ 7
	if n == 0 || !hasAVX2 {
		return 0
	}
	y = y[:len(x)] // y is at least as long: axpy's contract
	axpyFMA(&y[0], &x[0], a, n)
	return n
}
