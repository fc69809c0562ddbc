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
// Each row's sums run left to right over its C features. float32 runs
// vmath.LayerNormStats and vmath.LayerNormApply (vectorized, these bits);
// float64, the gradient check, runs the loops below.
func layerNormForward[F Float](out, mean, rstd, inp, w, b []F, n, c int) {
	if o32, ok := any(out).([]float32); ok {
		f := func(s []F, k int) []float32 { return any(s).([]float32)[:k] }
		vmath.LayerNormStats(f(mean, n), f(rstd, n), f(inp, n*c), n, c, LayerNormEps)
		vmath.LayerNormApply(o32[:n*c], f(inp, n*c), f(w, c), f(b, c), f(mean, n), f(rstd, n), n, c)
		return
	}
	for i := range n {
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
		r := F(1 / math.Sqrt(float64(vs/F(c))+LayerNormEps))
		mean[i], rstd[i] = m, r
		y := out[i*c : i*c+c]
		for j, v := range x {
			y[j] = F(F((v-m)*r)*w[j]) + b[j]
		}
	}
}

// layerNormBackward mirrors layerNormForward, accumulating into dinp (N,C),
// dw (C) and db (C); gm and gxm (N) are scratch. With x̂ = (x-μ)·r and
// g = dout·w:
//
//	dinp += r·(g - mean(g) - x̂·mean(g·x̂)),  dw += dout·x̂,  db += dout
//
// The row means of g and g·x̂ are summed left to right; the second pass
// accumulates dw and db row after row. float32 runs
// vmath.LayerNormGradMeans and vmath.LayerNormGradApply.
func layerNormBackward[F Float](dinp, dw, db, dout, inp, mean, rstd, w, gm, gxm []F, n, c int) {
	if d32, ok := any(dinp).([]float32); ok {
		f := func(s []F, k int) []float32 { return any(s).([]float32)[:k] }
		vmath.LayerNormGradMeans(f(gm, n), f(gxm, n), f(dout, n*c), f(inp, n*c), f(w, c), f(mean, n), f(rstd, n), n, c)
		vmath.LayerNormGradApply(d32[:n*c], f(dw, c), f(db, c), f(dout, n*c), f(inp, n*c), f(w, c),
			f(mean, n), f(rstd, n), f(gm, n), f(gxm, n), n, c)
		return
	}
	for i := range n {
		m, r := mean[i], rstd[i]
		dx, dy, x := dinp[i*c:][:c], dout[i*c:][:c], inp[i*c:][:c]
		var gs, gx F
		for j, v := range x {
			xh := F((v - m) * r)
			g := F(dy[j] * w[j])
			gs += g
			gx += F(g * xh)
		}
		gmi, gxi := gs/F(c), gx/F(c)
		for j, v := range x {
			xh := F((v - m) * r)
			g := F(dy[j] * w[j])
			db[j] += dy[j]
			dw[j] += F(dy[j] * xh)
			dx[j] += F(r * (g - gmi - F(xh*gxi)))
		}
	}
}

// geluScale is √(2/π) of the tanh approximation of GELU (Hendrycks and
// Gimpel 2016, eq. for "approximate='tanh'" in PyTorch).
var geluScale = math.Sqrt(2 / math.Pi)

// geluForward overwrites out with GELU(inp), tanh approximation, and grad
// with its derivative gelu'(inp), for the backward pass
// (kernel.LinearBackwardScaled); grad may be inp:
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

// add sets dst = x + y elementwise (dst may be x or y); float32 runs
// vmath.Add.
func add[F Float](dst, x, y []F) {
	if d32, ok := any(dst).([]float32); ok {
		vmath.Add(d32[:len(x)], any(x).([]float32), any(y).([]float32)[:len(x)])
		return
	}
	dst, y = dst[:len(x)], y[:len(x)]
	for i, v := range x {
		dst[i] = v + y[i]
	}
}
