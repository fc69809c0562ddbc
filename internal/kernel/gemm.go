package kernel

import "fmt"

// Gemm computes C = A·B (acc false) or C += A·B (acc true) for an (M,K)
// matrix A, a (K,N) matrix B and an (M,N) matrix C, then adds bias (N)
// to every row of C when bias is not nil:
//
//	C[i,j] = (C[i,j] or 0) + Σ_p A[i,p]·B[p,j]  (+ bias[j])
//
// A is read through strides, A[i,p] = a[i·rsa + p·csa], so a transposed
// or broadcast operand needs no copy (csa = 0 repeats one column). B and C
// are row-major with leading dimensions ldb and ldc (ldb, ldc ≥ N).
//
// Summation order is fixed and the same for every implementation: each
// C[i,j] starts from its old value (or +0), takes A[i,p]·B[p,j] for
// p = 0, 1, …, K-1 in turn with a fused multiply-add (the exact product
// and sum, rounded once), and adds bias[j] last, so the assembly kernels
// (AVX-512, AVX2+FMA) and the pure-Go fallback produce identical bits.
func Gemm[F Float](c []F, ldc int, a []F, rsa, csa int, b []F, ldb int, bias []F, m, n, k int, acc bool) {
	checkGemm(len(c), ldc, len(a), rsa, csa, len(b), ldb, len(bias), bias != nil, m, n, k)
	if m == 0 || n == 0 {
		return
	}
	if c32, ok := any(c).([]float32); ok {
		a32, b32 := any(a).([]float32), any(b).([]float32)
		var bias32 []float32
		if bias != nil {
			bias32 = any(bias).([]float32)
		}
		if flops := 2 * float64(m) * float64(n) * float64(k); Threads() > 1 && flops >= ParMinFlops {
			parallelRows(m, flops, func(i0, i1 int) {
				gemm32(c32[i0*ldc:], ldc, a32[i0*rsa:], rsa, csa, b32, ldb, bias32, i1-i0, n, k, acc)
			})
			return
		}
		gemm32(c32, ldc, a32, rsa, csa, b32, ldb, bias32, m, n, k, acc)
		return
	}
	gemmGeneric(c, ldc, a, rsa, csa, b, ldb, bias, 0, m, 0, n, k, acc)
}

// GemmScaled is Gemm with acc false followed by an elementwise product
// with S, which has C's shape and leading dimension ldc:
//
//	C[i,j] = ((Σ_p A[i,p]·B[p,j]) (+ bias[j])) · S[i,j]
//
// The product is rounded once, as a separate multiply after Gemm would
// round it, so the bits are those of Gemm followed by C[i,j] *= S[i,j]
// (a backward pass through an elementwise activation: dx = (dy·W)⊙f').
// The AVX-512 kernel applies S in its epilogue while the tile is in
// registers, saving a pass over C.
func GemmScaled[F Float](c []F, ldc int, a []F, rsa, csa int, b []F, ldb int, bias, s []F, m, n, k int) {
	gemmEpi(c, ldc, a, rsa, csa, b, ldb, bias, s, false, m, n, k)
}

// GemmAdd is GemmScaled with a sum in place of the product, a residual
// connection after a layer:
//
//	C[i,j] = ((Σ_p A[i,p]·B[p,j]) (+ bias[j])) + R[i,j]
//
// with the bits of Gemm followed by C[i,j] += R[i,j]. C must not overlap R.
func GemmAdd[F Float](c []F, ldc int, a []F, rsa, csa int, b []F, ldb int, bias, r []F, m, n, k int) {
	gemmEpi(c, ldc, a, rsa, csa, b, ldb, bias, r, true, m, n, k)
}

// gemmEpi is GemmScaled (add false) and GemmAdd (add true).
func gemmEpi[F Float](c []F, ldc int, a []F, rsa, csa int, b []F, ldb int, bias, e []F, add bool, m, n, k int) {
	checkGemm(len(c), ldc, len(a), rsa, csa, len(b), ldb, len(bias), bias != nil, m, n, k)
	if m == 0 || n == 0 {
		return
	}
	if len(e) < (m-1)*ldc+n {
		panic(fmt.Sprintf("kernel: GemmScaled/GemmAdd (M=%d N=%d K=%d): the elementwise operand is too short", m, n, k))
	}
	if c32, ok := any(c).([]float32); ok {
		a32, b32, e32 := any(a).([]float32), any(b).([]float32), any(e).([]float32)
		var bias32 []float32
		if bias != nil {
			bias32 = any(bias).([]float32)
		}
		if flops := 2 * float64(m) * float64(n) * float64(k); Threads() > 1 && flops >= ParMinFlops {
			parallelRows(m, flops, func(i0, i1 int) {
				gemmEpi32(c32[i0*ldc:], ldc, a32[i0*rsa:], rsa, csa, b32, ldb, bias32, e32[i0*ldc:], add, i1-i0, n, k)
			})
			return
		}
		gemmEpi32(c32, ldc, a32, rsa, csa, b32, ldb, bias32, e32, add, m, n, k)
		return
	}
	gemmGeneric(c, ldc, a, rsa, csa, b, ldb, bias, 0, m, 0, n, k, false)
	epiBlock(c, e, add, ldc, 0, m, 0, n)
}

// epiBlock applies the elementwise op to the block rows [i0,i1), columns
// [j0,j1) of C with the same block of E (leading dimension ldc): C += E
// when add, C *= E otherwise; nothing when e is nil.
func epiBlock[F Float](c, e []F, add bool, ldc, i0, i1, j0, j1 int) {
	if e == nil {
		return
	}
	for i := i0; i < i1; i++ {
		row, er := c[i*ldc+j0:i*ldc+j1], e[i*ldc+j0:i*ldc+j1]
		for j, v := range er {
			if add {
				row[j] += v
			} else {
				row[j] *= v
			}
		}
	}
}

// gemmGeneric is Gemm on the sub-block rows [i0,i1) and columns [j0,j1)
// of C, in the canonical summation order. It walks a row of C as a
// sequence of axpy updates, which keeps every element's sum in increasing
// p, each step one fused multiply-add (fmaF).
func gemmGeneric[F Float](c []F, ldc int, a []F, rsa, csa int, b []F, ldb int, bias []F, i0, i1, j0, j1, k int, acc bool) {
	if i0 >= i1 || j0 >= j1 {
		return // an empty edge of a tiled product: nothing to walk
	}
	for i := i0; i < i1; i++ {
		row := c[i*ldc+j0 : i*ldc+j1]
		if !acc {
			clear(row)
		}
		for p := range k {
			axpy(row, a[i*rsa+p*csa], b[p*ldb+j0:p*ldb+j1])
		}
		if bias != nil {
			for j, bv := range bias[j0:j1] {
				row[j] += bv
			}
		}
	}
}

// checkGemm panics unless every element Gemm touches lies inside its
// slice: shapes are the caller's invariant, so a mismatch is a bug.
func checkGemm(lc, ldc, la, rsa, csa, lb, ldb, lbias int, hasBias bool, m, n, k int) {
	bad := func(what string) {
		panic(fmt.Sprintf("kernel: Gemm (M=%d N=%d K=%d): %s", m, n, k, what))
	}
	if m < 0 || n < 0 || k < 0 {
		bad("negative size")
	}
	if m == 0 || n == 0 {
		return
	}
	if ldc < n || ldb < n {
		bad("leading dimension smaller than N")
	}
	if rsa < 0 || csa < 0 {
		bad("negative stride of A")
	}
	if lc < (m-1)*ldc+n {
		bad("C too short")
	}
	if k > 0 {
		if la <= (m-1)*rsa+(k-1)*csa {
			bad("A too short")
		}
		if lb < (k-1)*ldb+n {
			bad("B too short")
		}
	}
	if hasBias && lbias < n {
		bad("bias too short")
	}
}

// impl is one float32 implementation of Gemm's core.
type impl struct {
	name string
	gemm func(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, bias []float32, m, n, k int, acc bool)
}
