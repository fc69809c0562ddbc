package vmath

import "math"

// The constants of the op sequences in the package doc. The asm kernels
// read the same values from the table built in vmath_amd64.go.
const (
	expLo float32 = -87
	expHi float32 = 88
	log2e float32 = 1.44269504088896341
	expC1 float32 = 0.693359375
	expC2 float32 = -2.12194440e-4
	expP0 float32 = 1.9875691500e-4
	expP1 float32 = 1.3981999507e-3
	expP2 float32 = 8.3334519073e-3
	expP3 float32 = 4.1665795894e-2
	expP4 float32 = 1.6666665459e-1
	expP5 float32 = 5.0000001201e-1
	one   float32 = 1

	// sqrt2OverPi is √(2/π), untyped so that ±2·√(2/π) round once.
	sqrt2OverPi = 0.797884560802865355879892119868763737

	geluC  float32 = 0.044715
	geluK  float32 = -2 * sqrt2OverPi // equals −2·float32(√(2/π)): scaling by 2 commutes with rounding
	geluC3 float32 = 3 * 0.044715
	geluK2 float32 = 2 * sqrt2OverPi
)

// genericImpl is the pure-Go reference: the fallback, the tail of every asm
// call and the oracle of the bit-identity tests.
var genericImpl = impl{"generic", expGeneric, geluGeneric, geluBackwardGeneric, geluWithGradGeneric, addGeneric, transpose8Generic, adamGeneric}

func expGeneric(dst, src []float32) {
	dst = dst[:len(src)]
	for i, x := range src {
		dst[i] = exp32(x)
	}
}

func geluGeneric(dst, src []float32) {
	dst = dst[:len(src)]
	for i, x := range src {
		_, m := geluArg(x)
		dst[i] = x / (exp32(m) + one)
	}
}

func geluBackwardGeneric(dinp, inp, dout []float32) {
	dinp, dout = dinp[:len(inp)], dout[:len(inp)]
	for i, x := range inp {
		x2, m := geluArg(x)
		e := exp32(m)
		s := one / (e + one)
		a := float32(geluK2 * (float32(geluC3*x2) + one))
		g := float32(float32(float32(float32(e*s)*s)*x)*a) + s
		dinp[i] = dout[i] * g
	}
}

// exp32 is exp in the op sequence of the package doc. Every product that
// feeds a sum is converted to float32 explicitly: the Go spec lets a
// compiler fuse x*y + z otherwise, and it does on arm64.
func exp32(x float32) float32 {
	// Not max/min: these comparisons are what MAXPS/MINPS compute, NaN -> expLo.
	if !(x > expLo) {
		x = expLo
	}
	if !(x < expHi) {
		x = expHi
	}
	n := float32(math.RoundToEven(float64(float32(x * log2e)))) // exact: an integer in [-126, 127]
	r := x - float32(n*expC1)
	r = r - float32(n*expC2)
	p := float32(expP0*r) + expP1
	p = float32(p*r) + expP2
	p = float32(p*r) + expP3
	p = float32(p*r) + expP4
	p = float32(p*r) + expP5
	y := float32(p*float32(r*r)) + r
	y = y + one
	return y * math.Float32frombits(uint32(int32(n)+127)<<23)
}

// geluArg returns x² and m = K·(x + c·x³), the argument of exp in GELU.
func geluArg(x float32) (x2, m float32) {
	x2 = float32(x * x)
	x3 := float32(x2 * x)
	return x2, float32(geluK * (x + float32(geluC*x3)))
}

func geluWithGradGeneric(dst, grad, src []float32) {
	dst, grad = dst[:len(src)], grad[:len(src)]
	for i, x := range src {
		x2, m := geluArg(x)
		e := exp32(m)
		d := e + one
		s := one / d
		a := float32(geluK2 * (float32(geluC3*x2) + one))
		dst[i] = x / d
		grad[i] = float32(float32(float32(float32(e*s)*s)*x)*a) + s
	}
}

func addGeneric(dst, x, y []float32) {
	dst, y = dst[:len(x)], y[:len(x)]
	for i, v := range x {
		dst[i] = v + y[i]
	}
}

// adamGeneric is Adam's op sequence. The square root runs in float64 and
// is rounded once to float32, which gives the correctly rounded float32
// square root (SQRTPS): double rounding is harmless for √ when the wider
// format has at least 2·24+2 bits (Figueroa, "When is double rounding
// innocuous?", SIGNUM Newsletter 30(3), 1995).
func adamGeneric(p, g, m, v []float32, k *AdamCoef) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	for i, gi := range g {
		mi := float32(k.B1*m[i]) + float32(k.OmB1*gi)
		vi := float32(k.B2*v[i]) + float32(float32(k.OmB2*gi)*gi)
		m[i], v[i] = mi, vi
		p[i] -= float32(k.LR*(mi/k.C1)) / (float32(math.Sqrt(float64(vi/k.C2))) + k.Eps)
	}
}

// transpose8Generic slices the eight destination rows once, so the loop
// carries no bounds checks.
func transpose8Generic(dst, src []float32, t, ld int) {
	d0, d1, d2, d3 := dst[0*t:1*t], dst[1*t:2*t], dst[2*t:3*t], dst[3*t:4*t]
	d4, d5, d6, d7 := dst[4*t:5*t], dst[5*t:6*t], dst[6*t:7*t], dst[7*t:8*t]
	for i := range d0 {
		s := src[i*ld : i*ld+8 : i*ld+8]
		d0[i], d1[i], d2[i], d3[i] = s[0], s[1], s[2], s[3]
		d4[i], d5[i], d6[i], d7[i] = s[4], s[5], s[6], s[7]
	}
}
