//go:build amd64 && !purego

package vmath

import "golang.org/x/sys/cpu"

// lnImpls lists genericLN and, with AVX-512F, the assembly kernels, which
// mask the last partial vector of a row instead of handing it to Go.
var lnImpls = func() []lnImpl {
	s := []lnImpl{genericLN}
	if cpu.X86.HasAVX512F {
		s = append(s, lnImpl{"avx512",
			func(y, x, w, b, mean, rstd []float32, n, c int) {
				layerNormApplyAVX512(&y[0], &x[0], &w[0], &b[0], &mean[0], &rstd[0], n, c)
			},
			func(dx, dw, db, dy, x, w, mean, rstd, gm, gxm []float32, n, c int) {
				for c0 := 0; c0 < c; c0 += 16 {
					layerNormGradApplyAVX512(&dx[c0], &dw[c0], &db[c0], &dy[c0], &x[c0], &w[c0],
						&mean[0], &rstd[0], &gm[0], &gxm[0], n, c, min(16, c-c0))
				}
			},
			layerNormStats512, layerNormGradMeans512})
	}
	return s
}()

// layerNormApplyAVX512 runs LayerNormApply over all rows.
//
//go:noescape
func layerNormApplyAVX512(y, x, w, b, mean, rstd *float32, n, c int)

// layerNormGradApplyAVX512 runs LayerNormGradApply on one chunk of at most
// 16 columns (width) of every row, keeping that chunk of dw and db in
// registers across the rows; the pointers point at the chunk's column 0,
// rows are c apart.
//
//go:noescape
func layerNormGradApplyAVX512(dx, dw, db, dy, x, w, mean, rstd, gm, gxm *float32, n, c, width int)

// lnMaxC is the widest row the statistics kernels transpose: their scratch
// is their stack frame (16 or 32 rows of lnMaxC floats).
const lnMaxC = 128

// layerNormStats512 runs the kernel on the rows in whole groups of 16 when
// C is a multiple of 16 (and at most lnMaxC), the Go code on the rest.
func layerNormStats512(mean, rstd, x []float32, n, c int, eps float64) {
	n16 := 0
	if c%16 == 0 && c <= lnMaxC {
		n16 = n &^ 15
	}
	if n16 > 0 {
		layerNormStatsAVX512(&mean[0], &rstd[0], &x[0], n16, c, eps)
	}
	layerNormStatsGeneric(mean[n16:], rstd[n16:], x[n16*c:], n-n16, c, eps)
}

// layerNormGradMeans512 is layerNormStats512 for LayerNormGradMeans.
func layerNormGradMeans512(gm, gxm, dy, x, w, mean, rstd []float32, n, c int) {
	n16 := 0
	if c%16 == 0 && c <= lnMaxC {
		n16 = n &^ 15
	}
	if n16 > 0 {
		layerNormGradMeansAVX512(&gm[0], &gxm[0], &dy[0], &x[0], &w[0], &mean[0], &rstd[0], n16, c)
	}
	layerNormGradMeansGeneric(gm[n16:], gxm[n16:], dy[n16*c:], x[n16*c:], w, mean[n16:], rstd[n16:], n-n16, c)
}

// layerNormStatsAVX512 computes the statistics of n rows (a multiple of
// 16) of c features (a multiple of 16, at most lnMaxC).
//
//go:noescape
func layerNormStatsAVX512(mean, rstd, x *float32, n, c int, eps float64)

// layerNormGradMeansAVX512 is layerNormStatsAVX512 for the backward
// means.
//
//go:noescape
func layerNormGradMeansAVX512(gm, gxm, dy, x, w, mean, rstd *float32, n, c int)
