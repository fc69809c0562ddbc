//go:build amd64 && !purego

package vmath

import "golang.org/x/sys/cpu"

// rowImpls lists genericRows and, with AVX-512F, the assembly kernels of
// rows_amd64.s; rows and widths they do not take go to the Go code.
var rowImpls = func() []rowImpl {
	s := []rowImpl{genericRows}
	if cpu.X86.HasAVX512F {
		s = append(s, rowImpl{"avx512", rowSumSq512, rowDot512, gateScale512, gateGradApply512})
	}
	return s
}()

// rowGroups returns how many leading rows the transposing kernels take:
// whole groups of 16, when C is a multiple of 16 and at most lnMaxC.
func rowGroups(n, c int) int {
	if c%16 != 0 || c > lnMaxC {
		return 0
	}
	return n &^ 15
}

func rowSumSq512(dst, x []float32, n, c int) {
	n16 := rowGroups(n, c)
	if n16 > 0 {
		rowSumSqAVX512(&dst[0], &x[0], n16, c)
	}
	rowSumSqGeneric(dst[n16:], x[n16*c:], n-n16, c)
}

func rowDot512(dst, x, y []float32, n, c int) {
	n16 := rowGroups(n, c)
	if n16 > 0 {
		rowDotAVX512(&dst[0], &x[0], &y[0], n16, c)
	}
	rowDotGeneric(dst[n16:], x[n16*c:], y[n16*c:], n-n16, c)
}

func gateScale512(y, a, s []float32, beta float32, n, c int) {
	if c%16 != 0 || n == 0 {
		gateScaleGeneric(y, a, s, beta, n, c)
		return
	}
	gateScaleAVX512(&y[0], &a[0], &s[0], n, c, beta)
}

func gateGradApply512(da, dy, a, s, u []float32, beta float32, n, c int) {
	if c%16 != 0 || n == 0 {
		gateGradApplyGeneric(da, dy, a, s, u, beta, n, c)
		return
	}
	gateGradApplyAVX512(&da[0], &dy[0], &a[0], &s[0], &u[0], n, c, beta, float32(c))
}

//go:noescape
func rowSumSqAVX512(dst, x *float32, n, c int)

//go:noescape
func rowDotAVX512(dst, x, y *float32, n, c int)

//go:noescape
func gateScaleAVX512(y, a, s *float32, n, c int, beta float32)

//go:noescape
func gateGradApplyAVX512(da, dy, a, s, u *float32, n, c int, beta, cf float32)
