//go:build amd64 && !purego

package vmath

import "golang.org/x/sys/cpu"

// consts is the constant table of the asm kernels, each value replicated to
// fill a ymm register: the AVX2 kernels use rows as memory operands, the
// AVX-512 kernels broadcast their first element. The row order is that of
// the K_* offsets in vmath_amd64.s.
var consts = func() (t [16][8]float32) {
	for i, v := range [...]float32{
		expLo, expHi, log2e, expC1, expC2,
		expP0, expP1, expP2, expP3, expP4, expP5,
		one, geluC, geluK, geluC3, geluK2,
	} {
		for j := range t[i] {
			t[i][j] = v
		}
	}
	return t
}()

// impls lists genericImpl, then the asm kernels this CPU runs, slowest
// first. x/sys/cpu reports a feature only when the OS saves its registers.
// The AVX-512 kernels use AVX512F instructions only.
var impls = func() []impl {
	s := []impl{genericImpl}
	if cpu.X86.HasAVX2 {
		s = append(s, impl{"avx2",
			unary(8, expAVX2, expGeneric),
			unary(8, geluAVX2, geluGeneric),
			binary(8, geluBackwardAVX2, geluBackwardGeneric),
			binaryLast(8, geluWithGradAVX2, geluWithGradGeneric),
			binary(8, addAVX2, addGeneric),
			transpose8,
			adam(8, adamAVX2)})
	}
	if cpu.X86.HasAVX512F {
		s = append(s, impl{"avx512",
			unary(16, expAVX512, expGeneric),
			unary(16, geluAVX512, geluGeneric),
			binary(16, geluBackwardAVX512, geluBackwardGeneric),
			binaryLast(16, geluWithGradAVX512, geluWithGradGeneric),
			binary(16, addAVX512, addGeneric),
			transpose8,
			adam(16, adamAVX512)})
	}
	return s
}()

// unary runs kernel over the whole vectors of lanes elements (a power of
// two) and tail, the bit-identical Go code, over the rest.
func unary(lanes int, kernel func(dst, src *float32, n int), tail func(dst, src []float32)) func(dst, src []float32) {
	return func(dst, src []float32) {
		dst = dst[:len(src)] // the kernel must not write past dst
		n := len(src) &^ (lanes - 1)
		if n > 0 {
			kernel(&dst[0], &src[0], n)
		}
		tail(dst[n:], src[n:])
	}
}

// binary is unary for three slices of the length of the second (the
// signatures of GELUBackward and Add).
func binary(lanes int, kernel func(x, y, z *float32, n int), tail func(x, y, z []float32)) func(x, y, z []float32) {
	return func(x, y, z []float32) {
		n0 := len(y)
		x, z = x[:n0], z[:n0]
		n := n0 &^ (lanes - 1)
		if n > 0 {
			kernel(&x[0], &y[0], &z[0], n)
		}
		tail(x[n:], y[n:], z[n:])
	}
}

// binaryLast is binary with the length of the third slice (GELUWithGrad's
// source).
func binaryLast(lanes int, kernel func(x, y, z *float32, n int), tail func(x, y, z []float32)) func(x, y, z []float32) {
	return func(x, y, z []float32) {
		n0 := len(z)
		x, y = x[:n0], y[:n0]
		n := n0 &^ (lanes - 1)
		if n > 0 {
			kernel(&x[0], &y[0], &z[0], n)
		}
		tail(x[n:], y[n:], z[n:])
	}
}

// adam is unary for Adam.
func adam(lanes int, kernel func(p, g, m, v *float32, n int, k *AdamCoef)) func(p, g, m, v []float32, k *AdamCoef) {
	return func(p, g, m, v []float32, k *AdamCoef) {
		g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
		n := len(p) &^ (lanes - 1)
		if n > 0 {
			kernel(&p[0], &g[0], &m[0], &v[0], n, k)
		}
		adamGeneric(p[n:], g[n:], m[n:], v[n:], k)
	}
}

// The kernels of vmath_amd64.s; n is a positive multiple of the lane count
// (8 for AVX2, 16 for AVX-512).

//go:noescape
func expAVX2(dst, src *float32, n int)

//go:noescape
func geluAVX2(dst, src *float32, n int)

//go:noescape
func geluBackwardAVX2(dinp, inp, dout *float32, n int)

//go:noescape
func expAVX512(dst, src *float32, n int)

//go:noescape
func geluAVX512(dst, src *float32, n int)

//go:noescape
func geluBackwardAVX512(dinp, inp, dout *float32, n int)

// geluWithGrad kernels: dst, grad, then the source.

//go:noescape
func geluWithGradAVX2(dst, grad, src *float32, n int)

//go:noescape
func geluWithGradAVX512(dst, grad, src *float32, n int)

//go:noescape
func addAVX2(dst, x, y *float32, n int)

//go:noescape
func addAVX512(dst, x, y *float32, n int)

//go:noescape
func adamAVX2(p, grad, m, v *float32, n int, k *AdamCoef)

//go:noescape
func adamAVX512(p, grad, m, v *float32, n int, k *AdamCoef)

// transpose8 runs the ymm kernel on the rows in whole blocks of 8 and the
// Go code on the rest; a transpose moves values, so the two agree.
func transpose8(dst, src []float32, t, ld int) {
	t8 := t &^ 7
	if t8 > 0 {
		transpose8AVX(&dst[0], &src[0], t8, t, ld)
	}
	if t8 < t {
		// The tail columns of each destination row, through a (8,t-t8) buffer.
		var tail [8 * 8]float32
		r := t - t8
		transpose8Generic(tail[:8*r], src[t8*ld:], r, ld)
		for k := range 8 {
			copy(dst[k*t+t8:(k+1)*t], tail[k*r:(k+1)*r])
		}
	}
}

// transpose8AVX transposes rows [0, t8) (t8 a positive multiple of 8) of
// the (T,8) source into the first t8 columns of dst (8,T), one 8x8 block
// in ymm registers at a time.
//
//go:noescape
func transpose8AVX(dst, src *float32, t8, t, ld int)

// transpose16 runs TransposeTo's AVX-512 kernel when R and C are
// multiples of 16 and reports whether it did.
func transpose16(dst []float32, ldd int, src []float32, r, c int) bool {
	if r%16 != 0 || c%16 != 0 || !cpu.X86.HasAVX512F {
		return false
	}
	transpose16AVX512(&dst[0], &src[0], r, c, ldd)
	return true
}

// transpose16AVX512 is TransposeTo for R and C positive multiples of 16,
// one 16x16 block at a time (TRANSPOSE16).
//
//go:noescape
func transpose16AVX512(dst, src *float32, r, c, ldd int)

// interleave16 interleaves a and b into d (len(d) = 2·len(a) = 2·len(b))
// in 16-value steps with AVX-512 and returns how many values of a it
// covered (0 without AVX-512).
func interleave16(d, a, b []float32) int {
	n := len(a) &^ 15
	if n == 0 || !cpu.X86.HasAVX512F {
		return 0
	}
	interleaveAVX512(&d[0], &a[0], &b[0], n)
	return n
}

// interLo and interHi pick a's and b's lanes 0–7 and 8–15 alternately
// (VPERMT2PS indices: 0–15 the first table, 16–31 the second).
var (
	interLo = [16]int32{0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23}
	interHi = [16]int32{8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31}
)

// interleaveAVX512 writes a[k], b[k] to d[2k], d[2k+1] for k < n (n a
// positive multiple of 16).
//
//go:noescape
func interleaveAVX512(d, a, b *float32, n int)
