package transformer

import (
	"math"

	"github.com/ideabench/ideabench/internal/archname"
)

// Per-window instance normalizations (Config.Norm). Both subtract a
// per-window, per-channel level μ and divide by a scale σ before the
// model and take the forecast back with the target channel's:
//
//	revin  μ = mean_t x[t],  σ = √(mean_t (x[t]-μ)² + ε)   (RevIN, Kim et al. 2022, without its affine)
//	last   μ = x[T-1],       σ = 1                        (NLinear, Zeng et al. 2023)
const (
	NormRevIN = archname.NormRevIN
	NormLast  = archname.NormLast
)

// RevINEps is the ε added to a window's variance before its square root,
// as in the reference RevIN code (Kim et al. 2022).
const RevINEps = 1e-5

// NormalizeWindows is the model's input normalization under mode (Config.Norm,
// not ""), for callers that fit on the model's scale: it overwrites xn
// (B,T,C), mu (B,C) and sd (B,C) from x (B,T,C) as normForward does.
func NormalizeWindows[F Float](mode string, xn, mu, sd, x []F, b, t, c int) {
	if len(x) != b*t*c || len(xn) != len(x) || len(mu) != b*c || len(sd) != b*c {
		panic("transformer: NormalizeWindows shapes do not match (B,T,C) and (B,C)")
	}
	normForward(mode, xn, mu, sd, x, b, t, c)
}

// normForward overwrites xn (B,T,C), mu (B,C) and sd (B,C) from x (B,T,C)
// under mode: xn[t] = (x[t]-μ)/σ per window and channel. Sums run over t
// in increasing order, products rounded before they are added (no fused
// multiply-add on any GOARCH).
func normForward[F Float](mode string, xn, mu, sd, x []F, b, t, c int) {
	for bi := range b {
		w := x[bi*t*c : (bi+1)*t*c]
		for ch := range c {
			m, sig := w[(t-1)*c+ch], F(1)
			if mode == NormRevIN {
				var s F
				for ti := range t {
					s += w[ti*c+ch]
				}
				m = s / F(t)
				var vs F
				for ti := range t {
					d := w[ti*c+ch] - m
					vs += F(d * d)
				}
				sig = F(math.Sqrt(float64(vs/F(t)) + RevINEps))
			}
			mu[bi*c+ch], sd[bi*c+ch] = m, sig
			for ti := range t {
				xn[(bi*t+ti)*c+ch] = (w[ti*c+ch] - m) / sig
			}
		}
	}
}

// normDenorm maps the head's forecasts pred (B,per), per = N·H, back to
// the target channel's scale in place: pred = pred·σ + μ.
func normDenorm[F Float](pred, mu, sd []F, b, per, c, target int) {
	for bi := range b {
		m, sig := mu[bi*c+target], sd[bi*c+target]
		for i, v := range pred[bi*per : (bi+1)*per] {
			pred[bi*per+i] = F(v*sig) + m
		}
	}
}

// normDenormBackward mirrors normDenorm: it overwrites dhead (B,per), the
// gradient of the head's output, with dpred·σ.
func normDenormBackward[F Float](dhead, dpred, sd []F, b, per, c, target int) {
	for bi := range b {
		sig := sd[bi*c+target]
		for i, g := range dpred[bi*per : (bi+1)*per] {
			dhead[bi*per+i] = g * sig
		}
	}
}

// normInputBackward overwrites dx (B,T,C), the input gradient, from dxn
// (B,T,C), the gradient of the normalized input, and from the forecast's
// own dependence on the target channel's μ and σ (pred (B,per) is the
// denormalized forecast, dpred its gradient, p̂ = (pred-μ)/σ):
//
//	revin  dx[t] = (dxn[t] - mean(dxn) - xn[t]·mean(dxn·xn))/σ
//	       dx[t] += (Σ dpred)/T + (Σ dpred·p̂)·xn[t]/T          target channel
//	last   dx[t] = dxn[t] - [t = T-1]·Σ dxn
//	       dx[T-1] += Σ dpred                                    target channel
//
// (for revin the LayerNorm input gradient over the T positions, with
// ∂μ/∂x[t] = 1/T and ∂σ/∂x[t] = xn[t]/T).
func normInputBackward[F Float](mode string, dx, dxn, dpred, pred, xn, mu, sd []F, b, t, per, c, target int) {
	for bi := range b {
		for ch := range c {
			var g, gx, dmu, dsig F
			for ti := range t {
				i := (bi*t+ti)*c + ch
				g += dxn[i]
				gx += F(dxn[i] * xn[i])
			}
			if ch == target {
				sig := sd[bi*c+ch]
				for i, dp := range dpred[bi*per : (bi+1)*per] {
					dmu += dp
					dsig += F(dp * ((pred[bi*per+i] - mu[bi*c+ch]) / sig))
				}
			}
			if mode == NormLast {
				for ti := range t {
					i := (bi*t+ti)*c + ch
					dx[i] = dxn[i]
				}
				i := (bi*t+t-1)*c + ch
				dx[i] += dmu - g
				continue
			}
			g, gx, dmu, dsig = g/F(t), gx/F(t), dmu/F(t), dsig/F(t)
			sig := sd[bi*c+ch]
			for ti := range t {
				i := (bi*t+ti)*c + ch
				dx[i] = (dxn[i]-g-F(xn[i]*gx))/sig + dmu + F(dsig*xn[i])
			}
		}
	}
}
