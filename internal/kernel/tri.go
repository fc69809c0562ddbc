package kernel

// TriGemm overwrites C (T,N) with A·B for a square (T,T) A that is
// triangular, read through strides like Gemm's (A[i,p] = a[i·rsa + p·csa]),
// and B (T,N) with row stride ldb:
//
//	lower (upper false): A[i,p] = 0 for p > i, so C[i,:] = Σ_{p≤i} A[i,p]·B[p,:]
//	upper (upper true):  A[i,p] = 0 for p < i, so C[i,:] = Σ_{p≥i} A[i,p]·B[p,:]
//
// These are the causal products of one attention head (P·V and dS·K are
// lower, Pᵀ·dO and dSᵀ·Q upper). Rows go in tiles of TriTile: a lower
// tile [r0, r0+TriTile) sums p < r0+TriTile, an upper one p ≥ r0, each
// sum in Gemm's canonical order from +0. The products it leaves out are
// exact zeros (0·x = ±0 for finite x), and adding ±0 to a sum that started
// from +0 changes no nonzero sum, so for finite operands C equals Gemm over
// the full range bit for bit but for the sign of a zero (a fused
// multiply-add that underflows to -0 stays -0 where Gemm adds a further
// +0); the zeros the tiles still straddle are summed
// like any other product. (The AVX-512 kernel for T a multiple of 16 runs
// 16-row tiles in two phases over p, which give each row exactly its
// 8-row tile's range.)
func TriGemm[F Float](c []F, ldc int, a []F, rsa, csa int, b []F, ldb int, t, n int, upper bool) {
	triGemmN("TriGemm", c, ldc, a, rsa, csa, b, ldb, t, n, upper, Batch{Count: 1})
}

// triTiles is TriGemm through Gemm, one call per row tile: every
// implementation but the AVX-512 one (triAsmN).
func triTiles[F Float](c []F, ldc int, a []F, rsa, csa int, b []F, ldb int, t, n int, upper bool) {
	for r0 := 0; r0 < t; r0 += TriTile {
		rows := min(TriTile, t-r0)
		if upper {
			Gemm(c[r0*ldc:], ldc, a[r0*rsa+r0*csa:], rsa, csa, b[r0*ldb:], ldb, nil, rows, n, t-r0, false)
		} else {
			Gemm(c[r0*ldc:], ldc, a[r0*rsa:], rsa, csa, b, ldb, nil, rows, n, min(t, r0+TriTile), false)
		}
	}
}

// TriGemmTN writes, for each of bt.Count products, the transpose of
// TriGemm's C: ct (N,T) row-major, ct[c·T+i] = C[i,c], where C = A·B as
// in TriGemm with A given transposed as the row-major (T,T) matrix at
// (A[i,p] = at[p·T+i], TriGemm's rsa 1, csa T) and B (T,N) with row
// stride ldb. The h-th product reads at[h·bt.SA:] and b[h·bt.SB:] and
// writes ct[h·bt.SC:]. Every entry is TriGemm's sum, bit for bit for
// finite operands but for the sign of a zero: it runs over p in
// increasing order from +0, and the products it adds beyond TriGemm's
// tiles are A's zeros, which change no nonzero sum; a sum that a fused
// multiply-add underflowed to -0 becomes +0 when such a zero is added
// after it, where TriGemm may stop at -0 (and Gemm over the full range
// gives +0 as here).
//
// With queries along T this is how an attention head's output comes out
// of the probabilities kept key-major (Pᵀ, the at of P·V and of dS·K): B's
// columns are A's rows in the kernel's tiles (8 rows of Cᵀ, one head
// channel each) and at's rows its 32 columns, so the 8-wide heads of the
// default model run 8x32 zmm tiles instead of TriGemm's 8x8 ymm ones.
// Where TriGemmTFast is false it is one Gemm over the whole range (the
// zeros included), correct but slower than TriGemm.
func TriGemmTN(ct, at, b []float32, ldb int, t, n int, upper bool, bt Batch) {
	if t < 0 || n < 0 {
		panic("kernel: TriGemmTN: negative size")
	}
	if t > 0 && n > 0 && ldb < n {
		panic("kernel: TriGemmTN: ldb is less than N")
	}
	bt.check("TriGemmTN", len(ct), len(at), len(b))
	if t == 0 || n == 0 || bt.Count == 0 {
		return
	}
	last := bt.Count - 1
	// Cᵀ (N,T) = Bᵀ·Aᵀ: Bᵀ read through B's strides (rsa 1, csa ldb).
	checkGemm(len(ct)-last*bt.SC, t, len(b)-last*bt.SB, 1, ldb, len(at)-last*bt.SA, t, 0, false, n, t, t)
	if TriGemmTFast(t, n) {
		for h := range bt.Count {
			triTAsm(ct[h*bt.SC:], at[h*bt.SA:], b[h*bt.SB:], ldb, t, n, upper)
		}
		return
	}
	for h := range bt.Count {
		Gemm(ct[h*bt.SC:], t, b[h*bt.SB:], 1, ldb, at[h*bt.SA:], t, nil, n, t, t, false)
	}
}

// TriTile is the row-tile height of TriGemm.
const TriTile = 8

// UpperGemm writes the part on and above the diagonal, in tiles of
// UpperTile rows, of C = A·B for A (T,K) with row stride lda, B (K,T) with
// row stride ldb and C (T,T) with row stride ldc: row j of C gets columns
// i ≥ j0, j0 = UpperTile·⌊j/UpperTile⌋, each
//
//	C[j,i] = Σ_p A[j,p]·B[p,i]
//
// summed from +0 in increasing p (Gemm's order); columns left of j0 are
// not written. These are the score-like products of one attention head
// kept key-major (Sᵀ = K·Qᵀ, Gᵀ = V·dOᵀ), whose consumers read only
// i ≥ j.
func UpperGemm[F Float](c []F, ldc int, a []F, lda int, b []F, ldb int, t, k int) {
	upperGemmN("UpperGemm", c, ldc, a, lda, b, ldb, t, k, Batch{Count: 1})
}

// upperTiles is UpperGemm through Gemm, one call per row tile.
func upperTiles[F Float](c []F, ldc int, a []F, lda int, b []F, ldb int, t, k int) {
	for j0 := 0; j0 < t; j0 += UpperTile {
		rows := min(UpperTile, t-j0)
		Gemm(c[j0*ldc+j0:], ldc, a[j0*lda:], lda, 1, b[j0:], ldb, nil, rows, t-j0, k, false)
	}
}

// UpperTile is the row-tile height of UpperGemm, one zmm of float32.
const UpperTile = 16

// Batch is the layout of count products of one shape in one call: the
// h-th reads and writes the slices at c[h·SC:], a[h·SA:] and b[h·SB:]
// (h = 0…Count-1), as the heads of one attention window do. SC, SA and
// SB are element offsets, zero or more.
type Batch struct {
	Count, SC, SA, SB int
}

// check panics unless the batch's offsets are valid and its last product
// starts inside C, A and B (of lengths lc, la, lb); the caller then checks
// that product's shape on the suffixes, which the earlier ones, starting
// lower, exceed.
func (bt Batch) check(what string, lc, la, lb int) {
	if bt.Count < 0 || bt.SC < 0 || bt.SA < 0 || bt.SB < 0 {
		panic("kernel: " + what + ": negative batch count or offset")
	}
	last := bt.Count - 1
	if lc < last*bt.SC || la < last*bt.SA || lb < last*bt.SB {
		panic("kernel: " + what + ": the batch's last product starts past the end of C, A or B")
	}
}

// TriGemmN is TriGemm on bt.Count products, bit for bit as as many calls,
// with the bounds checked once: the four causal products of an attention
// window's heads.
func TriGemmN[F Float](c []F, ldc int, a []F, rsa, csa int, b []F, ldb int, t, n int, upper bool, bt Batch) {
	triGemmN("TriGemmN", c, ldc, a, rsa, csa, b, ldb, t, n, upper, bt)
}

// triGemmN is TriGemmN, its panics naming the entry point what.
func triGemmN[F Float](what string, c []F, ldc int, a []F, rsa, csa int, b []F, ldb int, t, n int, upper bool, bt Batch) {
	if t < 0 || n < 0 {
		panic("kernel: " + what + ": negative size")
	}
	bt.check(what, len(c), len(a), len(b))
	if t == 0 || n == 0 || bt.Count == 0 {
		return
	}
	last := bt.Count - 1
	checkGemm(len(c)-last*bt.SC, ldc, len(a)-last*bt.SA, rsa, csa, len(b)-last*bt.SB, ldb, 0, false, t, n, t)
	if c32, ok := any(c).([]float32); ok && triAsmN(c32, ldc, any(a).([]float32), rsa, csa, any(b).([]float32), ldb, t, n, upper, bt) {
		return
	}
	for h := range bt.Count {
		triTiles(c[h*bt.SC:], ldc, a[h*bt.SA:], rsa, csa, b[h*bt.SB:], ldb, t, n, upper)
	}
}

// UpperGemmN is UpperGemm on bt.Count products, bit for bit as as many
// calls, with the bounds checked once.
func UpperGemmN[F Float](c []F, ldc int, a []F, lda int, b []F, ldb int, t, k int, bt Batch) {
	upperGemmN("UpperGemmN", c, ldc, a, lda, b, ldb, t, k, bt)
}

// upperGemmN is UpperGemmN, its panics naming the entry point what.
func upperGemmN[F Float](what string, c []F, ldc int, a []F, lda int, b []F, ldb int, t, k int, bt Batch) {
	if t < 0 || k < 0 {
		panic("kernel: " + what + ": negative size")
	}
	bt.check(what, len(c), len(a), len(b))
	if t == 0 || bt.Count == 0 {
		return
	}
	last := bt.Count - 1
	checkGemm(len(c)-last*bt.SC, ldc, len(a)-last*bt.SA, lda, 1, len(b)-last*bt.SB, ldb, 0, false, t, t, k)
	if c32, ok := any(c).([]float32); ok && k > 0 && upperAsmN(c32, ldc, any(a).([]float32), lda, any(b).([]float32), ldb, t, k, bt) {
		return
	}
	for h := range bt.Count {
		upperTiles(c[h*bt.SC:], ldc, a[h*bt.SA:], lda, b[h*bt.SB:], ldb, t, k)
	}
}

// TriGemmPairs is TriGemmN on 8-wide heads taken two at a time, their
// triangular operands interleaved: for pair q of bt.Count, head h (0 or
// 1) reads A_h[i,p] = a[q·bt.SA + h + i·rsa + p·csa] and its B at
// b[q·bt.SB + 8h:] (row stride ldb), and writes its C (T,8) at
// c[q·bt.SC + 8h:] (row stride ldc). Each head's C is TriGemm's, bit for
// bit: where TriGemmPairsFast holds, one assembly kernel runs both heads
// in zmm rows (lane 2k+h is head h's column k, the pair A_0, A_1 one
// 64-bit broadcast) over TriGemm's 16-row tiles and their two phases, in
// TriGemm's order; elsewhere it is TriGemmN on each head.
//
// Two 8-wide heads of an attention window (the default model) are the
// use: TriGemm's own kernel gives them 8-lane ymm rows, at half the zmm
// rate; interleaving the two heads' (T,T) probabilities or score
// gradients (vmath.InterleavePairs) lets them share full rows. The two
// heads' columns of C must not overlap (ldc ≥ 16).
func TriGemmPairs(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, t int, upper bool, bt Batch) {
	const what = "TriGemmPairs"
	if t < 0 {
		panic("kernel: " + what + ": negative size")
	}
	bt.check(what, len(c), len(a), len(b))
	if t == 0 || bt.Count == 0 {
		return
	}
	if ldc < 16 {
		panic("kernel: " + what + ": ldc < 16, so the two heads' columns of C overlap")
	}
	// The last pair's second head ends last in C, A and B (the batch's
	// offsets are not negative, its columns and pair member lie beyond the
	// first head's): checked before anything is written.
	last := bt.Count - 1
	if len(c) < last*bt.SC+8 || len(a) < last*bt.SA+1 || len(b) < last*bt.SB+8 {
		panic("kernel: " + what + ": the batch's last pair starts past the end of C, A or B")
	}
	checkGemm(len(c)-last*bt.SC-8, ldc, len(a)-last*bt.SA-1, rsa, csa, len(b)-last*bt.SB-8, ldb, 0, false, t, 8, t)
	if TriGemmPairsFast(t) {
		triPairAsm(c, ldc, a, rsa, csa, b, ldb, t, upper, bt)
		return
	}
	for q := range bt.Count {
		for h := range 2 {
			triGemmN(what, c[q*bt.SC+8*h:], ldc, a[q*bt.SA+h:], rsa, csa, b[q*bt.SB+8*h:], ldb, t, 8, upper, Batch{Count: 1})
		}
	}
}
