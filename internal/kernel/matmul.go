package kernel

import "sync"

// Float is the element type of the kernels.
type Float interface{ ~float32 | ~float64 }

// Linear overwrites out (N,Out) with inp (N,In) · wᵀ + bias, where w is
// (Out,In) and bias is (Out) or nil:
//
//	out[n,o] = (Σ_i inp[n,i]·w[o,i]) + bias[o]
//
// Each dot product is summed left to right over i, starting from zero, and
// the bias is added last (Gemm's canonical order). wᵀ is packed into a
// scratch (In,Out) buffer first, so the kernel streams rows of inp against
// contiguous columns.
func Linear[F Float](out, inp, w, bias []F, n, in, outF int) {
	checkLen("Linear: out", out, n*outF)
	checkLen("Linear: inp", inp, n*in)
	checkLen("Linear: w", w, outF*in)
	if bias != nil {
		checkLen("Linear: bias", bias, outF)
	}
	if n == 0 || outF == 0 {
		return
	}
	wt, entry := scratch[F](in * outF)
	defer release(entry)
	PackT(wt, w, outF, in)
	LinearT(out, inp, wt, bias, n, in, outF)
}

// PackT overwrites wt (In,Out) with the transpose of w (Out,In), the
// operand layout of LinearT.
func PackT[F Float](wt, w []F, outF, in int) {
	checkLen("PackT: wt", wt, outF*in)
	checkLen("PackT: w", w, outF*in)
	// Blocks of 8 rows of w, so that each row of wt is written in runs of 8
	// contiguous values and the 8 source rows stay in L1.
	o := 0
	for ; o+8 <= outF; o += 8 {
		w0, w1, w2, w3 := w[o*in:][:in], w[(o+1)*in:][:in], w[(o+2)*in:][:in], w[(o+3)*in:][:in]
		w4, w5, w6, w7 := w[(o+4)*in:][:in], w[(o+5)*in:][:in], w[(o+6)*in:][:in], w[(o+7)*in:][:in]
		for i, v := range w0 {
			d := wt[i*outF+o:][:8]
			d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = v, w1[i], w2[i], w3[i], w4[i], w5[i], w6[i], w7[i]
		}
	}
	for ; o < outF; o++ {
		for i, v := range w[o*in : o*in+in] {
			wt[i*outF+o] = v
		}
	}
}

// LinearT is Linear with the weight already transposed by PackT, wt
// (In,Out): the same Gemm and the same bits, without the packing, for
// callers that reuse one packed weight across calls.
func LinearT[F Float](out, inp, wt, bias []F, n, in, outF int) {
	linearT(out, inp, wt, bias, nil, n, in, outF)
}

// LinearTAdd is LinearT followed by a residual sum: out (N,Out) =
// inp·wt + bias + res, with the bits of LinearT followed by out += res
// (GemmAdd: the AVX-512 kernel adds res in its epilogue). out must not
// overlap res.
func LinearTAdd[F Float](out, inp, wt, bias, res []F, n, in, outF int) {
	checkLen("LinearTAdd: res", res, n*outF)
	linearT(out, inp, wt, bias, res, n, in, outF)
}

// linearT is LinearT, plus res when res is not nil.
func linearT[F Float](out, inp, wt, bias, res []F, n, in, outF int) {
	checkLen("LinearT: out", out, n*outF)
	checkLen("LinearT: inp", inp, n*in)
	checkLen("LinearT: wt", wt, outF*in)
	if bias != nil {
		checkLen("LinearT: bias", bias, outF)
	}
	if n == 0 || outF == 0 {
		return
	}
	if res != nil {
		GemmAdd(out, outF, inp, in, 1, wt, outF, bias, res, n, outF, in)
		return
	}
	Gemm(out, outF, inp, in, 1, wt, outF, bias, n, outF, in, false)
}

// LinearBackward is the mirror of Linear. Given dout (N,Out) it
// overwrites the input gradient and accumulates the parameter gradients:
//
//	dinp[n,i]  = Σ_o dout[n,o]·w[o,i]    (N,In), skipped when dinp is nil
//	dw[o,i]   += Σ_n dout[n,o]·inp[n,i]  (Out,In)
//	dbias[o]  += Σ_n dout[n,o]           (Out), skipped when dbias is nil
//
// Each sum runs over its index in increasing order, starting from +0 for
// dinp and from the old value for dw and dbias. All three are Gemm sums:
// dinp = dout·w, dw = doutᵀ·inp (A read transposed through its strides)
// and dbias = 1ᵀ·dout (A a broadcast one, so the products are exact and
// the sum is a plain left-to-right sum). Where the AVX-512 kernel can (In
// a multiple of 32, Out of 8), dbias is summed in the same pass as dw,
// with the same bits.
func LinearBackward[F Float](dinp, dw, dbias, dout, inp, w []F, n, in, outF int) {
	linearBackward(dinp, dw, dbias, dout, inp, w, nil, n, in, outF)
}

// LinearBackwardScaled is LinearBackward for a layer whose input is an
// elementwise function of x, inp = f(x), with s (N,In) = f'(x): the input
// gradient lands on x directly,
//
//	dinp[n,i] = (Σ_o dout[n,o]·w[o,i])·s[n,i]
//
// one rounding after the sum, so the bits are those of LinearBackward
// followed by a separate elementwise multiply (GemmScaled); dinp must not
// be nil. dw and dbias are LinearBackward's.
func LinearBackwardScaled[F Float](dinp, dw, dbias, dout, inp, w, s []F, n, in, outF int) {
	if dinp == nil {
		panic("kernel: LinearBackwardScaled: dinp is nil")
	}
	checkLen("LinearBackwardScaled: s", s, n*in)
	linearBackward(dinp, dw, dbias, dout, inp, w, s, n, in, outF)
}

// linearBackward is LinearBackward, the input gradient scaled by s when s
// is not nil.
func linearBackward[F Float](dinp, dw, dbias, dout, inp, w, s []F, n, in, outF int) {
	checkLen("LinearBackward: dout", dout, n*outF)
	checkLen("LinearBackward: inp", inp, n*in)
	checkLen("LinearBackward: w", w, outF*in)
	checkLen("LinearBackward: dw", dw, outF*in)
	if dinp != nil {
		checkLen("LinearBackward: dinp", dinp, n*in)
		if s != nil {
			GemmScaled(dinp, in, dout, outF, 1, w, in, nil, s, n, in, outF)
		} else {
			Gemm(dinp, in, dout, outF, 1, w, in, nil, n, in, outF, false)
		}
	}
	if dbias != nil {
		checkLen("LinearBackward: dbias", dbias, outF)
		if dw32, ok := any(dw).([]float32); ok &&
			dwBiasAsm(dw32, any(dbias).([]float32), any(dout).([]float32), any(inp).([]float32), n, in, outF) {
			return
		}
	}
	if in == 1 {
		// dW is one column, (Out,1) = (1,Out) in memory: as the row
		// inpᵀ·dout it is a single streaming row kernel instead of Out rows
		// of one column each; the same products (x·y = y·x) in the same
		// order.
		Gemm(dw, outF, inp, 0, 1, dout, outF, nil, 1, outF, n, true)
	} else {
		Gemm(dw, in, dout, 1, outF, inp, in, nil, outF, in, n, true)
	}
	if dbias != nil {
		one := []F{1}
		Gemm(dbias, outF, one, 0, 0, dout, outF, nil, 1, outF, n, true)
	}
}

func checkLen[F Float](what string, s []F, want int) {
	if len(s) != want {
		panic("kernel: " + what + " has wrong length")
	}
}

// pool32 recycles float32 scratch buffers across calls and goroutines.
var pool32 = sync.Pool{New: func() any { return new([]float32) }}

// scratch returns a buffer of length n and the pool entry to give back
// with release (nil when there is none). float32 buffers come from a pool
// (the training path); other element types are allocated (the float64
// gradient check).
func scratch[F Float](n int) ([]F, *[]float32) {
	var zero F
	if _, ok := any(zero).(float32); !ok {
		return make([]F, n), nil
	}
	p := pool32.Get().(*[]float32)
	if cap(*p) < n {
		*p = make([]float32, n)
	}
	return any((*p)[:n]).([]F), p
}

func release(p *[]float32) {
	if p != nil {
		pool32.Put(p)
	}
}
