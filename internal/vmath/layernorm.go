package vmath

// The elementwise halves of LayerNorm over N rows of C features. The row
// statistics (sums over features, whose order matters) are the caller's;
// these apply them, one independent operation per element, so a vector
// kernel gives the same bits as the Go loop.

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
}

var genericLN = lnImpl{"generic", layerNormApplyGeneric, layerNormGradApplyGeneric}

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
