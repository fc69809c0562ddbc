// Package vmath holds vectorized float32 math for the hot loops of the
// transformer: exp, the tanh-approximate GELU and its derivative, the
// causal softmax (of one head, or of a window's heads in one call),
// LayerNorm's row statistics and elementwise passes, the gate's row sums
// and gains, Adam, and small helpers (Add, Transpose8 and Transpose8N,
// Transpose).
//
// Design stance: results are bit-identical on every CPU. Each function has
// three implementations, AVX-512 (16 lanes), AVX2 (8 lanes) and pure Go
// (the fallback on other CPUs and architectures and under the purego build
// tag), and all three perform exactly the same sequence of IEEE-754 float32
// operations, each rounded to float32 under round-to-nearest-even: the same
// constants, the same order, no fused multiply-add anywhere, and a division
// where the math divides (never a reciprocal estimate). A golden result
// therefore does not depend on the machine that produced it. The assembly
// handles whole vectors and the remainder goes through the Go code, which is
// bit-identical by construction.
//
// Shape legend: every slice is one flat run of N elements; arguments of one
// call have equal lengths (a mismatch panics) and the destination is
// overwritten, never accumulated into. A destination may be the same slice
// as a source (dst == src), but must not otherwise overlap it.
//
// # Exp
//
// exp follows the float32 exp of the Cephes library (expf.c, S. L. Moshier,
// https://www.netlib.org/cephes/), whose constants are used unchanged: a
// Cody-Waite reduction x = n·ln2 + r with ln2 split as C1 + C2, a degree-5
// polynomial for (exp(r) − 1 − r)/r², and a scaling by 2ⁿ built from its
// exponent bits. Every product and sum below is one float32 operation,
// rounded before the next (· is a multiplication, round is to nearest
// even):
//
//	x = x > −87 ? x : −87                  clamp, so that n ∈ [−126, 127]
//	x = x < 88 ? x : 88
//	n = round(x · log2e)                   log2e = 1.44269504088896341
//	r = x − n·C1                           C1 = 0.693359375 (exact in 9 bits)
//	r = r − n·C2                           C2 = −2.12194440e−4
//	p = P0·r + P1                          P0 = 1.9875691500e−4, P1 = 1.3981999507e−3
//	p = p·r + P2                           P2 = 8.3334519073e−3
//	p = p·r + P3                           P3 = 4.1665795894e−2
//	p = p·r + P4                           P4 = 1.6666665459e−1
//	p = p·r + P5                           P5 = 5.0000001201e−1
//	y = p·(r·r) + r + 1                    as z = r·r; y = p·z; y = y + r; y = y + 1
//	exp(x) = y · 2ⁿ                        2ⁿ from the bits uint32(n+127)<<23
//
// The clamp is written as the comparisons above, which is what the x86
// instructions MAXPS and MINPS compute, so NaN becomes −87 and exp(NaN) is
// exp(−87) ≈ 1.6458e−38, the same in every implementation. A consequence
// of the clamp is that exp(x) for x < −87 is exp(−87) instead of the true,
// smaller (subnormal or zero) value, and exp(x) for x > 88 is exp(88) ≈
// 1.6516e38 instead of a larger value or +Inf. Over every float32 in
// [−87, 88] the relative error against math.Exp is at most 8.2e−8, under
// 1 ulp.
//
// # GELU
//
// The tanh approximation of GELU (Hendrycks and Gimpel, "Gaussian Error
// Linear Units", 2016, arXiv:1606.08415, eq. 2; the form GPT-2 uses)
//
//	gelu(x) = 0.5·x·(1 + tanh(u)),  u = √(2/π)·(x + 0.044715·x³)
//
// is computed through 0.5·(1 + tanh(u)) = σ(2u) = 1/(1 + exp(−2u)) as
//
//	x2 = x·x
//	x3 = x2·x
//	m  = K·(x + c·x3)          c = 0.044715, K = −2·√(2/π) (the float32 −2k, k = float32(√(2/π)))
//	e  = exp(m)                as above, so e ∈ [exp(−87), exp(88)] and d is finite
//	d  = e + 1
//	gelu(x) = x / d
//
// Each line is one operation per product or sum (x + c·x3 is t = c·x3,
// then x + t), rounded in turn. Over every float32 in [−10, 10] the error
// against the float64 formula is at most 5.2e−7 absolute, and for x > 0
// (normal results) at most 1.5e−7 relative (2 ulp). For x < 0 the relative
// error grows with |m|, the error of m being amplified by exp: 1.1e−6 on
// [−3, 0), 1.4e−5 on [−10, 0), where gelu is below 1e−20. For x below about
// −10.1, m passes the clamp at 88 and gelu(x) is x/(1 + exp(88)), about
// −6e−39·|x|, a tiny negative number instead of the true underflowing one;
// gelu(−Inf) is −Inf.
//
// GELUBackward uses the derivative
//
//	gelu'(x) = σ + 2·x·σ·(1 − σ)·u'(x),  σ = σ(2u),  u'(x) = √(2/π)·(1 + 3·0.044715·x²)
//
// with 1 − σ computed as e·σ, exact in the math and free of the
// cancellation of 1 − σ near σ = 1:
//
//	x2, m, e, d as in gelu
//	s = 1 / d                  σ
//	a = c3·x2                  c3 = 0.134145 (3·0.044715, rounded once)
//	a = a + 1
//	a = K2·a                   K2 = 2·√(2/π) (the float32 2k); a = 2·u'(x)
//	g = e·s                    1 − σ
//	g = g·s
//	g = g·x
//	g = g·a
//	g = g + s                  gelu'(x)
//	dinp = dout·g
//
// Over every float32 in [−10, 10] the absolute error against the float64
// formula is at most 2.4e−7. For |x| ≳ 1.8e19, x² overflows and gelu'(x)
// is ±Inf; the model never gets there.
//
// GELUWithGrad computes both gelu(x) and gelu'(x) from one exp, with the
// operations above (so its two outputs have the bits of GELU and of
// GELUBackward with dout = 1).
//
// # Row sums
//
// Sums over a row's C features (LayerNormStats, LayerNormGradMeans, RowSumSq,
// RowDot) run over j = 0, 1, …, C−1 in turn, starting from +0, each
// product rounded before it is added. The AVX-512 kernels keep that order
// while vectorizing by putting one row in each lane: they transpose each
// 16x16 block of 16 rows in registers into a scratch buffer in their frame,
// then add one column vector per feature. They take rows in groups of 16
// when C is a multiple of 16 (at most 128); other rows and widths, and
// other CPUs, run the Go loops.
//
// # Adam
//
// Adam's update is the op sequence of AdamCoef's doc, one rounded float32
// operation each, with VSQRTPS for the square root; the Go code takes the
// square root in float64 and rounds it once, which gives the same, correctly
// rounded float32.
//
// NaN inputs of GELU and GELUBackward give NaN outputs. On amd64 the three
// implementations agree on NaN bits too; across architectures only non-NaN
// results are guaranteed, since CPUs differ in the NaN an invalid operation
// creates.
package vmath
