package transformer

import "math"

// RevINEps is the ε added to a window's variance before its square root,
// as in the reference RevIN code (Kim et al. 2022).
const RevINEps = 1e-5

// revinForward overwrites xn (B,T,C), mu (B,C) and sd (B,C) from x
// (B,T,C): each window's channel is normalized by its own statistics over
// the T inputs,
//
//	μ = mean_t x[t],  σ = √(mean_t (x[t]-μ)² + ε),  xn[t] = (x[t]-μ)/σ
//
// Sums run over t in increasing order, products rounded before they are
// added (no fused multiply-add on any GOARCH).
func revinForward[F Float](xn, mu, sd, x []F, b, t, c int) {
	for bi := range b {
		w := x[bi*t*c : (bi+1)*t*c]
		for ch := range c {
			var s F
			for ti := range t {
				s += w[ti*c+ch]
			}
			m := s / F(t)
			var vs F
			for ti := range t {
				d := w[ti*c+ch] - m
				vs += F(d * d)
			}
			sig := F(math.Sqrt(float64(vs/F(t)) + RevINEps))
			mu[bi*c+ch], sd[bi*c+ch] = m, sig
			for ti := range t {
				xn[(bi*t+ti)*c+ch] = (w[ti*c+ch] - m) / sig
			}
		}
	}
}

// revinDenorm maps the head's forecasts pred (B,per), per = N·H, back to
// the target channel's scale in place: pred = pred·σ + μ.
func revinDenorm[F Float](pred, mu, sd []F, b, per, c, target int) {
	for bi := range b {
		m, sig := mu[bi*c+target], sd[bi*c+target]
		for i, v := range pred[bi*per : (bi+1)*per] {
			pred[bi*per+i] = F(v*sig) + m
		}
	}
}

// revinDenormBackward mirrors revinDenorm: it overwrites dhead (B,per),
// the gradient of the head's output, with dpred·σ.
func revinDenormBackward[F Float](dhead, dpred, sd []F, b, per, c, target int) {
	for bi := range b {
		sig := sd[bi*c+target]
		for i, g := range dpred[bi*per : (bi+1)*per] {
			dhead[bi*per+i] = g * sig
		}
	}
}

// revinInputBackward overwrites dx (B,T,C), the input gradient, from dxn
// (B,T,C), the gradient of the normalized input, and from the forecast's
// own dependence on the target channel's μ and σ (pred (B,per) is the
// denormalized forecast, dpred its gradient):
//
//	dx[t] = (dxn[t] - mean(dxn) - xn[t]·mean(dxn·xn))/σ
//	dx[t] += (Σ dpred)/T + (Σ dpred·p̂)·xn[t]/T     target channel, p̂ = (pred-μ)/σ
//
// (the LayerNorm input gradient over the T positions; ∂μ/∂x[t] = 1/T,
// ∂σ/∂x[t] = xn[t]/T).
func revinInputBackward[F Float](dx, dxn, dpred, pred, xn, mu, sd []F, b, t, per, c, target int) {
	for bi := range b {
		for ch := range c {
			var g, gx F
			for ti := range t {
				i := (bi*t+ti)*c + ch
				g += dxn[i]
				gx += F(dxn[i] * xn[i])
			}
			g, gx = g/F(t), gx/F(t)
			sig := sd[bi*c+ch]
			var dmu, dsig F
			if ch == target {
				for i, dp := range dpred[bi*per : (bi+1)*per] {
					dmu += dp
					dsig += F(dp * ((pred[bi*per+i] - mu[bi*c+ch]) / sig))
				}
				dmu, dsig = dmu/F(t), dsig/F(t)
			}
			for ti := range t {
				i := (bi*t+ti)*c + ch
				dx[i] = (dxn[i]-g-F(xn[i]*gx))/sig + dmu + F(dsig*xn[i])
			}
		}
	}
}
