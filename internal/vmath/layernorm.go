package vmath

import "math"

// LayerNorm over N rows of C features. The row statistics are sums whose
// order matters: each runs over a row's features j = 0, 1, …, C−1 in turn,
// starting from +0, and the vector kernels keep that order by putting one
// row in each lane. The elementwise halves apply them, one independent
// operation per element, so a vector kernel gives the same bits as the Go
// loop.

// LayerNormStats overwrites mean (N) and rstd (N) with each row's statistics
// of x (N,C), in float32 except for the square root:
//
//	mean[i] = (Σ_j x[i,j]) / C
//	rstd[i] = float32(1 / √(float64((Σ_j (x[i,j] − mean[i])²) / C) + eps))
func LayerNormStats(mean, rstd, x []float32, n, c int, eps float64) {
	if n < 0 || c <= 0 || len(x) != n*c || len(mean) != n || len(rstd) != n {
		panic("vmath: LayerNormStats: slice lengths do not match (N,C)")
	}
	bestLN.stats(mean, rstd, x, n, c, eps)
}

// LayerNormGradMeans overwrites gm (N) and gxm (N) with the row means of
// LayerNorm's backward pass, with x̂ = (x − mean)·rstd and g = dy·w:
//
//	gm[i]  = (Σ_j g[i,j]) / C
//	gxm[i] = (Σ_j g[i,j]·x̂[i,j]) / C
//
// dy and x are (N,C), w (C), mean and rstd (N) as LayerNormStats left them.
func LayerNormGradMeans(gm, gxm, dy, x, w, mean, rstd []float32, n, c int) {
	checkLN("LayerNormGradMeans", n, c, len(dy), len(x), len(w), len(w), len(mean), len(rstd))
	if len(gm) != n || len(gxm) != n {
		panic("vmath: LayerNormGradMeans: slice lengths do not match (N,C)")
	}
	if n == 0 || c == 0 {
		return
	}
	bestLN.gradMeans(gm, gxm, dy, x, w, mean, rstd, n, c)
}

// LayerNormApply overwrites y (N,C) with the normalized, scaled rows of x
// (N,C), given each row's mean (N) and reciprocal deviation rstd (N) and
// the affine weight w (C) and bias b (C):
//
//	y[i,j] = ((x[i,j] − mean[i])·rstd[i])·w[j] + b[j]
func LayerNormApply(y, x, w, b, mean, rstd []float32, n, c int) {
	checkLN("LayerNormApply", n, c, len(y), len(x), len(w), len(b), len(mean), len(rstd))
	if n == 0 || c == 0 {
		return
	}
	bestLN.apply(y, x, w, b, mean, rstd, n, c)
}

// LayerNormGradApply is the second pass of LayerNorm's backward pass.
// Given dy (N,C), x, w, mean, rstd as in LayerNormApply and each row's
// gm = mean(g) and gxm = mean(g·x̂) (N), with x̂ = (x − mean)·rstd and
// g = dy·w, it accumulates
//
//	dx[i,j] += rstd[i]·((g − gm[i]) − x̂·gxm[i])
//	dw[j]   += dy[i,j]·x̂[i,j]   (rows in increasing i)
//	db[j]   += dy[i,j]           (rows in increasing i)
func LayerNormGradApply(dx, dw, db, dy, x, w, mean, rstd, gm, gxm []float32, n, c int) {
	checkLN("LayerNormGradApply", n, c, len(dx), len(x), len(w), len(db), len(mean), len(rstd))
	checkLN("LayerNormGradApply", n, c, len(dy), len(x), len(dw), len(w), len(gm), len(gxm))
	if n == 0 || c == 0 {
		return
	}
	bestLN.gradApply(dx, dw, db, dy, x, w, mean, rstd, gm, gxm, n, c)
}

func checkLN(fn string, n, c, lnc1, lnc2, lc1, lc2, ln1, ln2 int) {
	if n < 0 || c < 0 || lnc1 != n*c || lnc2 != n*c || lc1 != c || lc2 != c || ln1 != n || ln2 != n {
		panic("vmath: " + fn + ": slice lengths do not match (N,C)")
	}
}

type lnImpl struct {
	name      string
	apply     func(y, x, w, b, mean, rstd []float32, n, c int)
	gradApply func(dx, dw, db, dy, x, w, mean, rstd, gm, gxm []float32, n, c int)
	stats     func(mean, rstd, x []float32, n, c int, eps float64)
	gradMeans func(gm, gxm, dy, x, w, mean, rstd []float32, n, c int)
}

var genericLN = lnImpl{"generic", layerNormApplyGeneric, layerNormGradApplyGeneric, layerNormStatsGeneric, layerNormGradMeansGeneric}

// layerNormStatsGeneric takes rows four at a time, so that four independent
// sums hide the latency of the adds; a row's bits do not depend on its
// neighbours.
func layerNormStatsGeneric(mean, rstd, x []float32, n, c int, eps float64) {
	fc := float32(c)
	i := 0
	for ; i+4 <= n; i += 4 {
		x0, x1, x2, x3 := x[i*c:][:c], x[(i+1)*c:][:c], x[(i+2)*c:][:c], x[(i+3)*c:][:c]
		var s0, s1, s2, s3 float32
		for j, v := range x0 {
			s0 += v
			s1 += x1[j]
			s2 += x2[j]
			s3 += x3[j]
		}
		m0, m1, m2, m3 := s0/fc, s1/fc, s2/fc, s3/fc
		var v0, v1, v2, v3 float32
		for j, v := range x0 {
			d0, d1, d2, d3 := v-m0, x1[j]-m1, x2[j]-m2, x3[j]-m3
			v0 += float32(d0 * d0)
			v1 += float32(d1 * d1)
			v2 += float32(d2 * d2)
			v3 += float32(d3 * d3)
		}
		mean[i], mean[i+1], mean[i+2], mean[i+3] = m0, m1, m2, m3
		rstd[i], rstd[i+1], rstd[i+2], rstd[i+3] = lnRstd(v0/fc, eps), lnRstd(v1/fc, eps), lnRstd(v2/fc, eps), lnRstd(v3/fc, eps)
	}
	for ; i < n; i++ {
		var s float32
		for _, v := range x[i*c : i*c+c] {
			s += v
		}
		m := s / fc
		var vs float32
		for _, v := range x[i*c : i*c+c] {
			d := v - m
			vs += float32(d * d)
		}
		mean[i], rstd[i] = m, lnRstd(vs/fc, eps)
	}
}

// lnRstd is 1/√(σ²+ε) in float64, rounded to float32.
func lnRstd(v float32, eps float64) float32 {
	return float32(1 / math.Sqrt(float64(v)+eps))
}

// layerNormGradMeansGeneric takes rows two at a time (four independent sums).
func layerNormGradMeansGeneric(gm, gxm, dy, x, w, mean, rstd []float32, n, c int) {
	fc := float32(c)
	w = w[:c]
	i := 0
	for ; i+2 <= n; i += 2 {
		x0, dy0, x1, dy1 := x[i*c:][:c], dy[i*c:][:c], x[(i+1)*c:][:c], dy[(i+1)*c:][:c]
		m0, r0, m1, r1 := mean[i], rstd[i], mean[i+1], rstd[i+1]
		var gs0, gs1, gx0, gx1 float32
		for j, v := range x0 {
			xh0, xh1 := float32((v-m0)*r0), float32((x1[j]-m1)*r1)
			g0, g1 := float32(dy0[j]*w[j]), float32(dy1[j]*w[j])
			gs0 += g0
			gs1 += g1
			gx0 += float32(g0 * xh0)
			gx1 += float32(g1 * xh1)
		}
		gm[i], gxm[i], gm[i+1], gxm[i+1] = gs0/fc, gx0/fc, gs1/fc, gx1/fc
	}
	for ; i < n; i++ {
		xr, dyr := x[i*c:][:c], dy[i*c:][:c]
		m, r := mean[i], rstd[i]
		var gs, gx float32
		for j, v := range xr {
			xh := float32((v - m) * r)
			g := float32(dyr[j] * w[j])
			gs += g
			gx += float32(g * xh)
		}
		gm[i], gxm[i] = gs/fc, gx/fc
	}
}

var bestLN = lnImpls[len(lnImpls)-1]

func layerNormApplyGeneric(y, x, w, b, mean, rstd []float32, n, c int) {
	for i := range n {
		m, r := mean[i], rstd[i]
		yr, xr := y[i*c:(i+1)*c], x[i*c:(i+1)*c]
		for j, v := range xr {
			yr[j] = float32(float32((v-m)*r)*w[j]) + b[j]
		}
	}
}

func layerNormGradApplyGeneric(dx, dw, db, dy, x, w, mean, rstd, gm, gxm []float32, n, c int) {
	for i := range n {
		m, r, g0, gx := mean[i], rstd[i], gm[i], gxm[i]
		dxr, dyr, xr := dx[i*c:(i+1)*c], dy[i*c:(i+1)*c], x[i*c:(i+1)*c]
		for j, v := range xr {
			xh := float32((v - m) * r)
			g := float32(dyr[j] * w[j])
			db[j] += dyr[j]
			dw[j] += float32(dyr[j] * xh)
			dxr[j] += float32(r * (g - g0 - float32(xh*gx)))
		}
	}
}
