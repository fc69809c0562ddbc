package vmath

// impl is one implementation of the package's functions. All of them
// compute the same bits; they differ only in speed.
type impl struct {
	name         string
	exp          func(dst, src []float32)
	gelu         func(dst, src []float32)
	geluBackward func(dinp, inp, dout []float32)
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
