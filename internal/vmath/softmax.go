package vmath

import "math"

// The causal softmax of one attention head, on scores stored transposed:
// a (T,T) block st with st[j·T+i] the score of query i against key j, so
// that the T queries are the lanes of a vector and the keys its rows. Key
// j is visible to query i when j ≤ i.

// CausalSoftmaxT overwrites st (T,T) with the causal softmax of each
// column i over its rows j ≤ i, scaled by scale first:
//
//	st[j,i] = exp(v_j − max_k≤i v_k) / Σ_j'≤i exp(v_j' − max), v_j = scale·st[j,i]   (j ≤ i)
//	st[j,i] = 0                                                                        (j > i)
//
// Per column the op sequence is fixed: v_j = scale·st[j,i] for j = 0…i;
// the running maximum m = v_j if v_j > m, from −Inf; e_j = exp(v_j − m)
// (Exp's sequence); the sum s = s + e_j from +0 in increasing j; inv =
// 1/s; st[j,i] = e_j·inv. Columns are independent, so the AVX-512 kernel
// runs 16 of them per vector with the same bits as the Go loop.
func CausalSoftmaxT(st []float32, t int, scale float32) {
	if len(st) != t*t {
		panic("vmath: CausalSoftmaxT: len(st) != T·T")
	}
	bestSoftmax.fwd(st, t, scale)
}

// CausalSoftmaxGradT is the backward pass of CausalSoftmaxT. On entry ds
// (T,T) holds G = ∂L/∂P in the same transposed layout (entries j > i are
// ignored) and pt the probabilities CausalSoftmaxT produced; on return ds
// holds the gradient of the scaled scores' input:
//
//	ds[j,i] = (P_ji·(G_ji − d_i))·scale,  d_i = Σ_j≤i P_ji·G_ji   (j ≤ i), 0 above
//
// with d_i summed from +0 in increasing j and each product rounded.
func CausalSoftmaxGradT(ds, pt []float32, t int, scale float32) {
	if len(ds) != t*t || len(pt) != t*t {
		panic("vmath: CausalSoftmaxGradT: len(ds) or len(pt) != T·T")
	}
	bestSoftmax.bwd(ds, pt, t, scale)
}

// CausalSoftmaxTN is CausalSoftmaxT on count consecutive (T,T) blocks of
// st (the heads of one attention window), the length checked once.
func CausalSoftmaxTN(st []float32, t, count int, scale float32) {
	if t < 0 || count < 0 || len(st) != count*t*t {
		panic("vmath: CausalSoftmaxTN: len(st) != count·T·T")
	}
	for h := range count {
		bestSoftmax.fwd(st[h*t*t:(h+1)*t*t], t, scale)
	}
}

// CausalSoftmaxGradTN is CausalSoftmaxGradT on count consecutive (T,T)
// blocks of ds and pt, the lengths checked once.
func CausalSoftmaxGradTN(ds, pt []float32, t, count int, scale float32) {
	if t < 0 || count < 0 || len(ds) != count*t*t || len(pt) != count*t*t {
		panic("vmath: CausalSoftmaxGradTN: len(ds) or len(pt) != count·T·T")
	}
	for h := range count {
		bestSoftmax.bwd(ds[h*t*t:(h+1)*t*t], pt[h*t*t:(h+1)*t*t], t, scale)
	}
}

// softmaxImpl is one implementation of the causal softmax pair.
type softmaxImpl struct {
	name string
	fwd  func(st []float32, t int, scale float32)
	bwd  func(ds, pt []float32, t int, scale float32)
}

var genericSoftmax = softmaxImpl{"generic", causalSoftmaxTGeneric, causalSoftmaxGradTGeneric}

var bestSoftmax = softmaxImpls[len(softmaxImpls)-1]

func causalSoftmaxTGeneric(st []float32, t int, scale float32) {
	for i := range t {
		m := float32(math.Inf(-1))
		for j := 0; j <= i; j++ {
			v := st[j*t+i] * scale
			st[j*t+i] = v
			if v > m {
				m = v
			}
		}
		var s float32
		for j := 0; j <= i; j++ {
			e := exp32(st[j*t+i] - m)
			st[j*t+i] = e
			s += e
		}
		inv := one / s
		for j := 0; j <= i; j++ {
			st[j*t+i] *= inv
		}
		for j := i + 1; j < t; j++ {
			st[j*t+i] = 0
		}
	}
}

func causalSoftmaxGradTGeneric(ds, pt []float32, t int, scale float32) {
	for i := range t {
		var d float32
		for j := 0; j <= i; j++ {
			d += float32(pt[j*t+i] * ds[j*t+i])
		}
		for j := 0; j <= i; j++ {
			ds[j*t+i] = float32(pt[j*t+i]*(ds[j*t+i]-d)) * scale
		}
		for j := i + 1; j < t; j++ {
			ds[j*t+i] = 0
		}
	}
}

// rowsSoftmax is the causal softmax pair walked row by row (key j, the
// queries i ≥ j contiguous) instead of column by column: each column's
// running maximum, sum and d_i take the same values in the same order (j
// increasing), so the bits are the Go loop's, but the rows are read
// contiguously and the exponentials of a row go through Exp (its vector
// kernel where the CPU has one). It is the kernel on CPUs without
// AVX-512, where the opmasks that make the column kernel pay are missing.
var rowsSoftmax = softmaxImpl{"rows", causalSoftmaxTRows, causalSoftmaxGradTRows}

// rowsScratch returns two zeroed scratch columns of t values: from buf
// when they fit, else allocated.
func rowsScratch(buf *[2 * 256]float32, t int) (a, b []float32) {
	if t <= 256 {
		a, b = buf[:t], buf[256:256+t]
		clear(a)
		clear(b)
		return a, b
	}
	return make([]float32, t), make([]float32, t)
}

func causalSoftmaxTRows(st []float32, t int, scale float32) {
	var buf [2 * 256]float32
	m, s := rowsScratch(&buf, t)
	for i := range m {
		m[i] = float32(math.Inf(-1))
	}
	for j := range t {
		row := st[j*t+j : j*t+t]
		mj := m[j:]
		for k, x := range row {
			v := x * scale
			row[k] = v
			if v > mj[k] {
				mj[k] = v
			}
		}
	}
	for j := range t {
		row := st[j*t+j : j*t+t]
		mj := m[j:]
		for k := range row {
			row[k] -= mj[k]
		}
		Exp(row, row)
		sj := s[j:]
		for k, e := range row {
			sj[k] += e
		}
	}
	for i := range s {
		s[i] = one / s[i] // inv
	}
	for j := range t {
		clear(st[j*t : j*t+j])
		row := st[j*t+j : j*t+t]
		sj := s[j:]
		for k := range row {
			row[k] *= sj[k]
		}
	}
}

func causalSoftmaxGradTRows(ds, pt []float32, t int, scale float32) {
	var buf [2 * 256]float32
	d, _ := rowsScratch(&buf, t)
	for j := range t {
		g, p, dj := ds[j*t+j:j*t+t], pt[j*t+j:j*t+t], d[j:]
		for k := range g {
			dj[k] += float32(p[k] * g[k])
		}
	}
	for j := range t {
		clear(ds[j*t : j*t+j])
		g, p, dj := ds[j*t+j:j*t+t], pt[j*t+j:j*t+t], d[j:]
		for k := range g {
			g[k] = float32(p[k]*(g[k]-dj[k])) * scale
		}
	}
}
