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
// from +0 changes no bit, so for finite operands C equals Gemm over the
// full range bit for bit; the zeros the tiles still straddle are summed
// like any other product. (The AVX-512 kernel for T a multiple of 16 runs
// 16-row tiles in two phases over p, which give each row exactly its
// 8-row tile's range.)
func TriGemm[F Float](c []F, ldc int, a []F, rsa, csa int, b []F, ldb int, t, n int, upper bool) {
	if t < 0 || n < 0 {
		panic("kernel: TriGemm: negative size")
	}
	if t == 0 || n == 0 {
		return
	}
	checkGemm(len(c), ldc, len(a), rsa, csa, len(b), ldb, 0, false, t, n, t)
	if c32, ok := any(c).([]float32); ok && triAsm(c32, ldc, any(a).([]float32), rsa, csa, any(b).([]float32), ldb, t, n, upper) {
		return
	}
	triTiles(c, ldc, a, rsa, csa, b, ldb, t, n, upper)
}

// triTiles is TriGemm through Gemm, one call per row tile: every
// implementation but the N = 8 assembly kernel.
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
	if t < 0 || k < 0 {
		panic("kernel: UpperGemm: negative size")
	}
	if t == 0 {
		return
	}
	checkGemm(len(c), ldc, len(a), lda, 1, len(b), ldb, 0, false, t, t, k)
	if c32, ok := any(c).([]float32); ok && k > 0 && upperAsm(c32, ldc, any(a).([]float32), lda, any(b).([]float32), ldb, t, k) {
		return
	}
	upperTiles(c, ldc, a, lda, b, ldb, t, k)
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
