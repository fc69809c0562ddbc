package vmath

// impl is one implementation of the package's functions. All of them
// compute the same bits; they differ only in speed.
type impl struct {
	name         string
	exp          func(dst, src []float32)
	gelu         func(dst, src []float32)
	geluBackward func(dinp, inp, dout []float32)
	geluWithGrad func(dst, grad, src []float32)
	add          func(dst, x, y []float32)
	transpose8   func(dst, src []float32, t, ld int)
	adam         func(p, g, m, v []float32, k *AdamCoef)
}

// best is the fastest implementation this CPU runs, the last of impls
// (which lists genericImpl first, then the asm kernels from slow to fast).
var best = impls[len(impls)-1]

// Exp sets dst[i] = exp(src[i]), with the clamp of the package doc: inputs
// below −87 give exp(−87), inputs above 88 give exp(88).
//
//	dst (N) overwritten; src (N)
func Exp(dst, src []float32) {
	if len(dst) != len(src) {
		panic("vmath: Exp: length mismatch")
	}
	best.exp(dst, src)
}

// GELU sets dst[i] = gelu(src[i]), the tanh approximation
//
//	gelu(x) = 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
//
// computed as x/(1 + exp(−2u)), see the package doc.
//
//	dst (N) overwritten; src (N)
func GELU(dst, src []float32) {
	if len(dst) != len(src) {
		panic("vmath: GELU: length mismatch")
	}
	best.gelu(dst, src)
}

// GELUBackward sets dinp[i] = dout[i]·gelu'(inp[i]), the gradient of GELU
// at inp. It overwrites dinp; callers that accumulate add it themselves.
//
//	dinp (N) overwritten; inp (N) the input of GELU; dout (N) the gradient of its output
func GELUBackward(dinp, inp, dout []float32) {
	if len(dinp) != len(inp) || len(dout) != len(inp) {
		panic("vmath: GELUBackward: length mismatch")
	}
	best.geluBackward(dinp, inp, dout)
}

// GELUWithGrad sets dst[i] = gelu(src[i]) and grad[i] = gelu'(src[i]) in
// one pass, sharing the exp: the bits of GELU and of GELUBackward with a
// dout of ones. A training forward pass keeps grad so that its backward
// pass is one multiplication (in the up-projection's Gemm epilogue,
// kernel.LinearBackwardScaled).
//
//	dst (N) overwritten; grad (N) overwritten; src (N)
//
// Either destination may be src itself, but dst and grad must not overlap.
func GELUWithGrad(dst, grad, src []float32) {
	if len(dst) != len(src) || len(grad) != len(src) {
		panic("vmath: GELUWithGrad: length mismatch")
	}
	best.geluWithGrad(dst, grad, src)
}

// Add sets dst[i] = x[i] + y[i], one rounded float32 sum each (dst may be
// x or y: a residual connection accumulates in place).
//
//	dst (N) overwritten; x (N); y (N)
func Add(dst, x, y []float32) {
	if len(dst) != len(x) || len(y) != len(x) {
		panic("vmath: Add: length mismatch")
	}
	best.add(dst, x, y)
}

// Transpose8 overwrites dst (8,T) with the transpose of the (T,8) matrix
// whose row i is src[i·ld : i·ld+8] (ld ≥ 8): one attention head's
// queries or output gradients, packed for a Gemm operand.
func Transpose8(dst, src []float32, t, ld int) {
	if t < 0 || ld < 8 || len(dst) != 8*t || (t > 0 && len(src) < (t-1)*ld+8) {
		panic("vmath: Transpose8: slice lengths do not match (T,8) with row stride ld")
	}
	best.transpose8(dst, src, t, ld)
}

// Transpose8N is Transpose8 on count heads, the lengths checked once: dst
// holds count (8,T) blocks one after another, and head h's rows start at
// src[h·ss:] (ss ≥ 0; 8 for the heads of a [q | k | v] row).
func Transpose8N(dst, src []float32, t, ld, count, ss int) {
	if t < 0 || ld < 8 || count < 0 || ss < 0 || len(dst) != count*8*t ||
		(t > 0 && count > 0 && len(src) < (count-1)*ss+(t-1)*ld+8) {
		panic("vmath: Transpose8N: slice lengths do not match count (T,8) heads with row stride ld")
	}
	if t == 0 {
		return
	}
	for h := range count {
		best.transpose8(dst[h*8*t:(h+1)*8*t], src[h*ss:], t, ld)
	}
}

// Transpose overwrites dst (C,R) with the transpose of the row-major (R,C)
// matrix src: dst[j·R+i] = src[i·C+j]. The AVX-512 kernel moves 16x16
// blocks through registers when R and C are multiples of 16 (a linear
// layer's weight, packed for its Gemm once per step); other shapes and
// CPUs run a plain Go loop (kernel.PackT has a faster one for every
// element type). It only moves values, so every implementation gives
// the same bits.
func Transpose(dst, src []float32, r, c int) {
	if r < 0 || c < 0 || len(dst) != r*c || len(src) != r*c {
		panic("vmath: Transpose: slice lengths do not match (R,C)")
	}
	if r == 0 || c == 0 {
		return
	}
	if transpose16(dst, r, src, r, c) {
		return
	}
	transposeGeneric(dst, r, src, r, c)
}

// TransposeTo is Transpose into rows ldd ≥ R apart: dst[j·ldd+i] =
// src[i·C+j] for the row-major (R,C) src, the other elements of dst
// left alone (len(dst) ≥ (C-1)·ldd + R). An attention window's output,
// computed head channel by head channel (kernel.TriGemmTN), lands in the
// rows of a wider [q | k | v] gradient this way.
func TransposeTo(dst []float32, ldd int, src []float32, r, c int) {
	if r < 0 || c < 0 || ldd < r || len(src) != r*c {
		panic("vmath: TransposeTo: slice lengths do not match (R,C) into rows ldd apart")
	}
	if r == 0 || c == 0 {
		return
	}
	// len(dst) ≥ (C-1)·ldd + R, without overflow (ldd ≥ R > 0).
	if len(dst) < r || (len(dst)-r)/ldd < c-1 {
		panic("vmath: TransposeTo: slice lengths do not match (R,C) into rows ldd apart")
	}
	if transpose16(dst, ldd, src, r, c) {
		return
	}
	transposeGeneric(dst, ldd, src, r, c)
}

// transposeGeneric is TransposeTo in Go.
func transposeGeneric(dst []float32, ldd int, src []float32, r, c int) {
	for i := range r {
		for j, v := range src[i*c : i*c+c] {
			dst[j*ldd+i] = v
		}
	}
}

// InterleavePairs interleaves consecutive blocks of src two by two: src
// holds 2·count blocks of n values, and pair q of them, blocks 2q and
// 2q+1, lands in dst[q·2n:] element by element,
//
//	dst[q·2n + 2k + h] = src[(2q+h)·n + k]   (h = 0, 1; k < n)
//
// so that an attention window's heads, each a (T,T) block, share one
// 64-bit load per entry two by two (kernel.TriGemmPairs). The AVX-512
// kernel runs 16 values of each block at a time (n a multiple of 16); it
// only moves values, so every implementation gives the same bits. dst
// must not overlap src.
func InterleavePairs(dst, src []float32, n, count int) {
	// len(src) = 2·count·n, without overflow.
	if n < 0 || count < 0 || len(dst) != len(src) || len(src)%2 != 0 ||
		(count == 0 && len(src) != 0) || (count > 0 && (len(src)/2%count != 0 || len(src)/2/count != n)) {
		panic("vmath: InterleavePairs: len(src) or len(dst) != 2·count·n")
	}
	for q := range count {
		d, a, b := dst[q*2*n:(q+1)*2*n], src[2*q*n:(2*q+1)*n], src[(2*q+1)*n:(2*q+2)*n]
		k := interleave16(d, a, b)
		for ; k < n; k++ {
			d[2*k], d[2*k+1] = a[k], b[k]
		}
	}
}

// AdamCoef are the float32 coefficients of one Adam update (Kingma and Ba
// 2015, Algorithm 1). The asm kernels read them in this field order.
type AdamCoef struct {
	B1, B2     float32 // β1, β2
	OmB1, OmB2 float32 // 1−β1 and 1−β2, each one float32 subtraction
	C1, C2     float32 // the bias corrections 1−β1ᵗ and 1−β2ᵗ
	LR, Eps    float32 // learning rate and ε
}

// Adam applies one Adam update to every parameter, in this op sequence
// (each operation one rounded float32 operation; √ is correctly rounded):
//
//	m = B1·m + OmB1·g
//	v = B2·v + (OmB2·g)·g
//	p = p − (LR·(m/C1)) / (√(v/C2) + Eps)
//
//	p (P) updated; g (P); m, v (P) the moment estimates, updated
func Adam(p, g, m, v []float32, k AdamCoef) {
	if len(g) != len(p) || len(m) != len(p) || len(v) != len(p) {
		panic("vmath: Adam: length mismatch")
	}
	best.adam(p, g, m, v, &k)
}
