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
func layerNormForward[F Float](out, mean, rstd, inp, w, b []F, n, c int) {
	for i := range n {
		x := inp[i*c : i*c+c]
		var m F
		for _, v := range x {
			m += v
		}
		m /= F(c)
		var vr F
		for _, v := range x {
			d := v - m
			vr += d * d
		}
		vr /= F(c)
		r := F(1 / math.Sqrt(float64(vr)+LayerNormEps))
		y := out[i*c : i*c+c]
		for j, v := range x {
			y[j] = (v-m)*r*w[j] + b[j]
		}
		mean[i], rstd[i] = m, r
	}
}

// layerNormBackward mirrors layerNormForward, accumulating into dinp (N,C),
// dw (C) and db (C). With x̂ = (x-μ)·r and g = dout·w:
//
//	dinp += r·(g - mean(g) - x̂·mean(g·x̂)),  dw += dout·x̂,  db += dout
func layerNormBackward[F Float](dinp, dw, db, dout, inp, mean, rstd, w []F, n, c int) {
	for i := range n {
		x := inp[i*c : i*c+c]
		dy := dout[i*c : i*c+c]
		m, r := mean[i], rstd[i]
		var gMean, gxMean F
		for j, v := range x {
			xh := (v - m) * r
			g := dy[j] * w[j]
			gMean += g
			gxMean += g * xh
		}
		gMean /= F(c)
		gxMean /= F(c)
		dx := dinp[i*c : i*c+c]
		for j, v := range x {
			xh := (v - m) * r
			g := dy[j] * w[j]
			db[j] += dy[j]
			dw[j] += dy[j] * xh
			dx[j] += r * (g - gMean - xh*gxMean)
		}
	}
}

// geluScale is √(2/π) of the tanh approximation of GELU (Hendrycks and
// Gimpel 2016, eq. for "approximate='tanh'" in PyTorch).
var geluScale = math.Sqrt(2 / math.Pi)

// geluForward overwrites out with GELU(inp), tanh approximation:
//
//	gelu(x) = ½·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
//
// float32 runs vmath.GELU (vectorized, the same bits on every CPU);
// float64, the gradient check, runs the formula through math.Tanh.
func geluForward[F Float](out, inp []F) {
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

// geluBackward overwrites dinp with dout·gelu'(inp):
//
//	gelu'(x) = ½(1+tanh u) + ½·x·(1-tanh² u)·√(2/π)·(1 + 3·0.044715·x²),  u = √(2/π)(x+0.044715x³)
func geluBackward[F Float](dinp, inp, dout []F) {
	if d32, ok := any(dinp).([]float32); ok {
		vmath.GELUBackward(d32[:len(inp)], any(inp).([]float32), any(dout).([]float32)[:len(inp)])
		return
	}
	dinp = dinp[:len(inp)]
	dout = dout[:len(inp)]
	for i, v := range inp {
		x := float64(v)
		th := math.Tanh(geluScale * (x + 0.044715*x*x*x))
		sech2 := 1 - th*th
		d := 0.5*(1+th) + 0.5*x*sech2*geluScale*(1+3*0.044715*x*x)
		dinp[i] = F(d) * dout[i]
	}
}
