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
			}})
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
