package transformer

import "math"

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
func geluForward[F Float](out, inp []F) {
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

// attentionForward runs causal multi-head scaled dot-product attention.
// From qkv (B,T,3D), laid out [q | k | v] with head h at columns h·hs…,
// it overwrites att (B,NH,T,T) with the softmax probabilities (entries
// above the diagonal are left untouched and never read) and out (B,T,D):
//
//	att[b,h,t,t2] = softmax_{t2≤t}(q_t·k_t2 / √hs),  out[b,t,h] = Σ_{t2≤t} att·v_t2
func attentionForward[F Float](out, att, qkv []F, b, t, d, nh int) {
	hs := d / nh
	scale := F(1 / math.Sqrt(float64(hs)))
	for bi := range b {
		for h := range nh {
			for i := range t {
				q := qkv[(bi*t+i)*3*d+h*hs:][:hs]
				row := att[((bi*nh+h)*t+i)*t:][:i+1]
				mx := F(math.Inf(-1))
				for j := range row {
					k := qkv[(bi*t+j)*3*d+d+h*hs:][:hs]
					var s F
					for c, qv := range q {
						s += qv * k[c]
					}
					s *= scale
					row[j] = s
					mx = max(mx, s)
				}
				var sum F
				for j, s := range row {
					e := F(math.Exp(float64(s - mx)))
					row[j] = e
					sum += e
				}
				inv := 1 / sum
				o := out[(bi*t+i)*d+h*hs:][:hs]
				clear(o)
				for j := range row {
					row[j] *= inv
					v := qkv[(bi*t+j)*3*d+2*d+h*hs:][:hs]
					a := row[j]
					for c := range o {
						o[c] += a * v[c]
					}
				}
			}
		}
	}
}

// attentionBackward mirrors attentionForward, accumulating into dqkv
// (B,T,3D) from dout (B,T,D); datt is scratch of length ≥ T. With
// p = att row, g_j = dout·v_j:
//
//	dv_j += p_j·dout,  ds_j = p_j·(g_j - Σ_k p_k g_k),  dq += Σ_j ds_j·k_j/√hs,  dk_j += ds_j·q/√hs
func attentionBackward[F Float](dqkv, datt, dout, att, qkv []F, b, t, d, nh int) {
	hs := d / nh
	scale := F(1 / math.Sqrt(float64(hs)))
	for bi := range b {
		for h := range nh {
			for i := range t {
				q := qkv[(bi*t+i)*3*d+h*hs:][:hs]
				dq := dqkv[(bi*t+i)*3*d+h*hs:][:hs]
				do := dout[(bi*t+i)*d+h*hs:][:hs]
				row := att[((bi*nh+h)*t+i)*t:][:i+1]
				g := datt[:i+1]
				var dot F
				for j, p := range row {
					v := qkv[(bi*t+j)*3*d+2*d+h*hs:][:hs]
					dv := dqkv[(bi*t+j)*3*d+2*d+h*hs:][:hs]
					var s F
					for c, ov := range do {
						s += ov * v[c]
						dv[c] += p * ov
					}
					g[j] = s
					dot += p * s
				}
				for j, p := range row {
					ds := p * (g[j] - dot) * scale
					k := qkv[(bi*t+j)*3*d+d+h*hs:][:hs]
					dk := dqkv[(bi*t+j)*3*d+d+h*hs:][:hs]
					for c := range dq {
						dq[c] += ds * k[c]
						dk[c] += ds * q[c]
					}
				}
			}
		}
	}
}
