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
			binary(8, geluBackwardAVX2, geluBackwardGeneric)})
	}
	if cpu.X86.HasAVX512F {
		s = append(s, impl{"avx512",
			unary(16, expAVX512, expGeneric),
			unary(16, geluAVX512, geluGeneric),
			binary(16, geluBackwardAVX512, geluBackwardGeneric)})
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

// binary is unary for GELUBackward's signature.
func binary(lanes int, kernel func(dinp, inp, dout *float32, n int), tail func(dinp, inp, dout []float32)) func(dinp, inp, dout []float32) {
	return func(dinp, inp, dout []float32) {
		dinp, dout = dinp[:len(inp)], dout[:len(inp)]
		n := len(inp) &^ (lanes - 1)
		if n > 0 {
			kernel(&dinp[0], &inp[0], &dout[0], n)
		}
		tail(dinp[n:], inp[n:], dout[n:])
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
