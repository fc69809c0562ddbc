package kernel

import (
	"math"
	"unsafe"
)

// fma32 returns a·b + c rounded once to float32 (round to nearest, ties
// to even): the IEEE 754 fusedMultiplyAdd of binary32 that VFMADD231PS
// computes, so the pure-Go kernel keeps the assembly kernels' bits.
//
// The product of two float32 values is exact in float64 (24+24 < 53 bits
// of significand, and its exponent stays in float64's range), so only the
// sum s = p + c rounds. Rounded again to float32, s gives the correctly
// rounded result unless it landed exactly on a float32 midpoint (rounding
// is monotonic, and every float32 midpoint is a float64), where the first
// rounding may have erased which side the exact sum lies on; a sum in
// float32's subnormal range, whose midpoints have fewer bits, is treated
// alike. Those rare sums take fma32Odd.
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b)
	s := p + float64(c)
	if r, ok := round32(s); ok {
		return r
	}
	return fma32Odd(p, float64(c), s)
}

// round32 returns s rounded to float32 and whether that is the sum's
// correct rounding: s is no float32 midpoint (25 significant bits, the
// float64's low 29 bits 1 followed by 28 zeros) and not in float32's
// subnormal range (exponent below 2^-126).
func round32(s float64) (float32, bool) {
	bits := math.Float64bits(s)
	return float32(s), bits&(1<<29-1) != 1<<28 && (bits>>52)&0x7ff >= 1023-126
}

// fma32Odd rounds p + q (s = p + q in float64) to float32 through
// rounding to odd: the float64 nearest the exact sum with an odd last bit
// whenever the sum is inexact, then rounded to nearest float32, is the
// correctly rounded sum, since float64 keeps 53 ≥ 24+2 bits (Boldo &
// Melquiond 2008, "Emulation of FMA and correctly rounded sums: proved
// algorithms using rounding to odd", IEEE Trans. Computers 57(4)). The
// error of s comes exactly from Knuth's TwoSum.
func fma32Odd(p, q, s float64) float32 {
	bb := s - p
	e := (p - (s - bb)) + (q - bb) // s + e = p + q exactly; NaN when s is not finite
	if e != 0 && e == e && math.Float64bits(s)&1 == 0 {
		// Inexact with an even last bit: the neighbour toward the exact
		// sum has the odd one (s is not zero: a sum that rounds to zero
		// is exact).
		toward := math.Inf(1)
		if e < 0 {
			toward = math.Inf(-1)
		}
		s = math.Nextafter(s, toward)
	}
	return float32(s)
}

// axpy sets y[j] to the fused a·x[j] + y[j] for every j of x.
func axpy[F Float](y []F, a F, x []F) {
	if unsafe.Sizeof(a) == 4 {
		y32 := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(y))), len(y))
		x32 := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(x))), len(x))
		a64 := float64(float32(a))
		k := axpyVec(y32, float32(a), x32)
		y32, x32 = y32[k:], x32[k:]
		for j, xv := range x32 {
			// fma32, its common case inlined.
			p, q := a64*float64(xv), float64(y32[j])
			s := p + q
			r, ok := round32(s)
			if !ok {
				r = fma32Odd(p, q, s)
			}
			y32[j] = r
		}
		return
	}
	for j, xv := range x {
		y[j] = F(math.FMA(float64(a), float64(xv), float64(y[j])))
	}
}
