package idea

import "math"

// rmsForward RMS-normalizes one row v into y with gain g and returns the
// reciprocal RMS r: ms = Σ v²/n in increasing index, r = 1/√(ms + eps)
// in float64 rounded to F, y = g·(v·r). qk-norm (per head) and rmsnorm
// (per token) share it.
func rmsForward[F Float](y, v, g []F, eps float64) F {
	var ss F
	for _, e := range v {
		ss += F(e * e)
	}
	r := F(1 / math.Sqrt(float64(ss)/float64(len(v))+eps))
	for k, e := range v {
		y[k] = F(g[k] * F(e*r))
	}
	return r
}

// rmsBackward mirrors rmsForward on one row: with n = v·r and dn = dy·g,
//
//	dg += dy·n,  dv = r·(dn − n·Σ(dn·n)/len(v))
//
// the sum in increasing index; dv is overwritten.
func rmsBackward[F Float](dv, dg, dy, v, g []F, r F) {
	var dot F
	for k, e := range v {
		n := F(e * r)
		dn := F(dy[k] * g[k])
		dg[k] += F(dy[k] * n)
		dot += F(dn * n)
	}
	mean := dot / F(len(v))
	for k, e := range v {
		n := F(e * r)
		dn := F(dy[k] * g[k])
		dv[k] = F(r * (dn - F(n*mean)))
	}
}
