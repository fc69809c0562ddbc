package transformer

import (
	"math"

	"github.com/ideabench/ideabench/internal/vmath"
)

// LayerNormEps is the ε added to the variance, as in PyTorch's default.
const LayerNormEps = 1e-5

// layerNormForward overwrites out (N,C), mean (N) and rstd (N) from inp (N,C):
//
//	μ = mean(x), σ² = mean((x-μ)²), r = 1/√(σ²+ε), out = (x-μ)·r·w + b
//
// Each row's sums run left to right over its C features. Rows are taken
// four at a time so that four independent sums hide the latency of the
// adds; a row's bits do not depend on its neighbours. The elementwise
// pass is vmath.LayerNormApply for float32.
func layerNormForward[F Float](out, mean, rstd, inp, w, b []F, n, c int) {
	i := 0
	for ; i+4 <= n; i += 4 {
		x0, x1, x2, x3 := inp[i*c:][:c], inp[(i+1)*c:][:c], inp[(i+2)*c:][:c], inp[(i+3)*c:][:c]
		var s0, s1, s2, s3 F
		for j, v := range x0 {
			s0 += v
			s1 += x1[j]
			s2 += x2[j]
			s3 += x3[j]
		}
		m0, m1, m2, m3 := s0/F(c), s1/F(c), s2/F(c), s3/F(c)
		var v0, v1, v2, v3 F
		for j, v := range x0 {
			d0, d1, d2, d3 := v-m0, x1[j]-m1, x2[j]-m2, x3[j]-m3
			v0 += F(d0 * d0)
			v1 += F(d1 * d1)
			v2 += F(d2 * d2)
			v3 += F(d3 * d3)
		}
		mean[i], mean[i+1], mean[i+2], mean[i+3] = m0, m1, m2, m3
		rstd[i], rstd[i+1], rstd[i+2], rstd[i+3] = lnRstd(v0, c), lnRstd(v1, c), lnRstd(v2, c), lnRstd(v3, c)
	}
	for ; i < n; i++ {
		x := inp[i*c : i*c+c]
		var s F
		for _, v := range x {
			s += v
		}
		m := s / F(c)
		var vs F
		for _, v := range x {
			d := v - m
			vs += F(d * d)
		}
		mean[i], rstd[i] = m, lnRstd(vs, c)
	}
	if o32, ok := any(out).([]float32); ok {
		vmath.LayerNormApply(o32[:n*c], any(inp).([]float32)[:n*c], any(w).([]float32), any(b).([]float32),
			any(mean).([]float32)[:n], any(rstd).([]float32)[:n], n, c)
		return
	}
	for i := range n {
		m, r := mean[i], rstd[i]
		y := out[i*c : i*c+c]
		for j, v := range inp[i*c : i*c+c] {
			y[j] = F(F((v-m)*r)*w[j]) + b[j]
		}
	}
}

// lnRstd is r = 1/√(σ²+ε) from the sum of squared deviations vs of C
// features.
func lnRstd[F Float](vs F, c int) F {
	return F(1 / math.Sqrt(float64(vs/F(c))+LayerNormEps))
}

// layerNormBackward mirrors layerNormForward, accumulating into dinp (N,C),
// dw (C) and db (C); gm and gxm (N) are scratch. With x̂ = (x-μ)·r and
// g = dout·w:
//
//	dinp += r·(g - mean(g) - x̂·mean(g·x̂)),  dw += dout·x̂,  db += dout
//
// The row means of g and g·x̂ are summed left to right, two rows at a time
// as in the forward pass; the second pass (vmath.LayerNormGradApply for
// float32) accumulates dw and db row after row.
func layerNormBackward[F Float](dinp, dw, db, dout, inp, mean, rstd, w, gm, gxm []F, n, c int) {
	i := 0
	for ; i+2 <= n; i += 2 {
		gm[i], gxm[i], gm[i+1], gxm[i+1] = lnGradMeans2(inp[i*c:][:c], dout[i*c:][:c], inp[(i+1)*c:][:c], dout[(i+1)*c:][:c], w, mean[i:i+2], rstd[i:i+2])
	}
	for ; i < n; i++ {
		x, dy := inp[i*c:][:c], dout[i*c:][:c]
		m, r := mean[i], rstd[i]
		var gs, gx F
		for j, v := range x {
			xh := (v - m) * r
			g := dy[j] * w[j]
			gs += g
			gx += F(g * xh)
		}
		gm[i], gxm[i] = gs/F(c), gx/F(c)
	}
	if d32, ok := any(dinp).([]float32); ok {
		f := func(s []F, k int) []float32 { return any(s).([]float32)[:k] }
		vmath.LayerNormGradApply(d32[:n*c], f(dw, c), f(db, c), f(dout, n*c), f(inp, n*c), f(w, c),
			f(mean, n), f(rstd, n), f(gm, n), f(gxm, n), n, c)
		return
	}
	for i := range n {
		m, r := mean[i], rstd[i]
		dx, dy, x := dinp[i*c:][:c], dout[i*c:][:c], inp[i*c:][:c]
		for j, v := range x {
			xh := (v - m) * r
			g := dy[j] * w[j]
			db[j] += dy[j]
			dw[j] += F(dy[j] * xh)
			dx[j] += F(r * (g - gm[i] - F(xh*gxm[i])))
		}
	}
}

// lnGradMeans2 returns mean(g) and mean(g·x̂) of two rows at once (four
// independent sums).
func lnGradMeans2[F Float](x0, dy0, x1, dy1, w, mean, rstd []F) (gm0, gx0, gm1, gx1 F) {
	m0, r0, m1, r1 := mean[0], rstd[0], mean[1], rstd[1]
	w, dy0, x1, dy1 = w[:len(x0)], dy0[:len(x0)], x1[:len(x0)], dy1[:len(x0)]
	var gs0, gs1, gxs0, gxs1 F
	for j, v := range x0 {
		xh0, xh1 := F((v-m0)*r0), F((x1[j]-m1)*r1)
		g0, g1 := F(dy0[j]*w[j]), F(dy1[j]*w[j])
		gs0 += g0
		gs1 += g1
		gxs0 += F(g0 * xh0)
		gxs1 += F(g1 * xh1)
	}
	c := F(len(x0))
	return gs0 / c, gxs0 / c, gs1 / c, gxs1 / c
}

// geluScale is √(2/π) of the tanh approximation of GELU (Hendrycks and
// Gimpel 2016, eq. for "approximate='tanh'" in PyTorch).
var geluScale = math.Sqrt(2 / math.Pi)

// geluForward overwrites out with GELU(inp), tanh approximation, and grad
// with its derivative gelu'(inp), for geluBackward; grad may be inp:
//
//	gelu(x)  = ½·x·(1 + tanh(u)),  u = √(2/π)·(x + 0.044715·x³)
//	gelu'(x) = ½(1+tanh u) + ½·x·(1-tanh² u)·√(2/π)·(1 + 3·0.044715·x²)
//
// float32 runs vmath.GELUWithGrad (vectorized, the same bits on every CPU,
// and those of vmath.GELU and vmath.GELUBackward); float64, the gradient
// check, runs the formulas through math.Tanh.
func geluForward[F Float](out, grad, inp []F) {
	if o32, ok := any(out).([]float32); ok {
		vmath.GELUWithGrad(o32[:len(inp)], any(grad).([]float32)[:len(inp)], any(inp).([]float32))
		return
	}
	out, grad = out[:len(inp)], grad[:len(inp)]
	for i, v := range inp {
		x := float64(v)
		th := math.Tanh(geluScale * (x + 0.044715*x*x*x))
		out[i] = F(0.5 * x * (1 + th))
		grad[i] = F(0.5*(1+th) + 0.5*x*(1-th*th)*geluScale*(1+3*0.044715*x*x))
	}
}

// geluValue overwrites out with GELU(inp) alone: geluForward's first output,
// bit for bit.
func geluValue[F Float](out, inp []F) {
	if o32, ok := any(out).([]float32); ok {
		vmath.GELU(o32[:len(inp)], any(inp).([]float32))
		return
	}
	out = out[:len(inp)]
	for i, v := range inp {
		x := float64(v)
		out[i] = F(0.5 * x * (1 + math.Tanh(geluScale*(x+0.044715*x*x*x))))
	}
}

// geluBackward overwrites dinp with dout·grad, grad being gelu' at the
// forward input as geluForward left it.
func geluBackward[F Float](dinp, grad, dout []F) {
	if d32, ok := any(dinp).([]float32); ok {
		vmath.Mul(d32[:len(grad)], any(grad).([]float32), any(dout).([]float32)[:len(grad)])
		return
	}
	dinp, dout = dinp[:len(grad)], dout[:len(grad)]
	for i, g := range grad {
		dinp[i] = g * dout[i]
	}
}
