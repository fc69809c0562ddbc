package kernel

// Float is the element type of the kernels.
type Float interface{ ~float32 | ~float64 }

// Linear overwrites out (N,Out) with inp (N,In) · wᵀ + bias, where w is
// (Out,In) and bias is (Out) or nil:
//
//	out[n,o] = bias[o] + Σ_i inp[n,i]·w[o,i]
//
// Each dot product is summed left to right over i, starting from zero, and
// the bias is added last.
func Linear[F Float](out, inp, w, bias []F, n, in, outF int) {
	checkLen("Linear: out", out, n*outF)
	checkLen("Linear: inp", inp, n*in)
	checkLen("Linear: w", w, outF*in)
	if bias != nil {
		checkLen("Linear: bias", bias, outF)
	}
	for r := range n {
		x := inp[r*in : r*in+in]
		y := out[r*outF : r*outF+outF]
		for o := range outF {
			y[o] = Dot(x, w[o*in:o*in+in])
		}
		if bias != nil {
			for o, b := range bias {
				y[o] += b
			}
		}
	}
}

// LinearBackward is the mirror of Linear. Given dout (N,Out) it accumulates
//
//	dinp[n,i] += Σ_o dout[n,o]·w[o,i]    (N,In), skipped when dinp is nil
//	dw[o,i]   += Σ_n dout[n,o]·inp[n,i]  (Out,In)
//	dbias[o]  += Σ_n dout[n,o]           (Out), skipped when dbias is nil
//
// Sums run over n and then o in increasing order.
func LinearBackward[F Float](dinp, dw, dbias, dout, inp, w []F, n, in, outF int) {
	checkLen("LinearBackward: dout", dout, n*outF)
	checkLen("LinearBackward: inp", inp, n*in)
	checkLen("LinearBackward: w", w, outF*in)
	checkLen("LinearBackward: dw", dw, outF*in)
	if dinp != nil {
		checkLen("LinearBackward: dinp", dinp, n*in)
	}
	if dbias != nil {
		checkLen("LinearBackward: dbias", dbias, outF)
	}
	for r := range n {
		x := inp[r*in : r*in+in]
		g := dout[r*outF : r*outF+outF]
		var dx []F
		if dinp != nil {
			dx = dinp[r*in : r*in+in]
		}
		for o, d := range g {
			if dx != nil {
				Axpy(dx, d, w[o*in:o*in+in])
			}
			Axpy(dw[o*in:o*in+in], d, x)
			if dbias != nil {
				dbias[o] += d
			}
		}
	}
}

// Dot returns Σ_i x[i]·y[i], summed left to right. x and y have equal length.
func Dot[F Float](x, y []F) F {
	y = y[:len(x)]
	var s F
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// Axpy accumulates dst[i] += a·x[i]. dst and x have equal length.
func Axpy[F Float](dst []F, a F, x []F) {
	x = x[:len(dst)]
	for i := range dst {
		dst[i] += a * x[i]
	}
}

func checkLen[F Float](what string, s []F, want int) {
	if len(s) != want {
		panic("kernel: " + what + " has wrong length")
	}
}
