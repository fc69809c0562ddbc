package vmath

// Row kernels of the fading-memory gate over N rows of C features: the
// energy Σ_j x_j² and the dot product Σ_j x_j·y_j of each row (summed over
// j = 0, 1, … in turn from +0, one row per lane in the vector kernels, as
// LayerNormStats), and the two elementwise passes that apply a per-row
// gain. The gate package composes them into its forward and backward
// passes.

// RowSumSq overwrites dst (N) with Σ_j x[i,j]² of each row of x (N,C).
func RowSumSq(dst, x []float32, n, c int) {
	if n < 0 || c <= 0 || len(x) != n*c || len(dst) != n {
		panic("vmath: RowSumSq: slice lengths do not match (N,C)")
	}
	bestRows.sumSq(dst, x, n, c)
}

// RowDot overwrites dst (N) with Σ_j x[i,j]·y[i,j] of each row of x and y
// (N,C).
func RowDot(dst, x, y []float32, n, c int) {
	if n < 0 || c <= 0 || len(x) != n*c || len(y) != n*c || len(dst) != n {
		panic("vmath: RowDot: slice lengths do not match (N,C)")
	}
	bestRows.dot(dst, x, y, n, c)
}

// GateScale overwrites y (N,C) with each row of a (N,C) times its gain
// g = 1/(1 + beta·s[i]), s (N):
//
//	y[i,j] = g_i·a[i,j]
//
// y may be a.
func GateScale(y, a, s []float32, beta float32, n, c int) {
	if n < 0 || c <= 0 || len(a) != n*c || len(y) != n*c || len(s) != n {
		panic("vmath: GateScale: slice lengths do not match (N,C)")
	}
	bestRows.gateScale(y, a, s, beta, n, c)
}

// GateGradApply accumulates the gate's input gradient into da (N,C) from
// dy and a (N,C), the states s (N) and the state adjoints u (N):
//
//	da[i,j] += dy[i,j]·g_i + k_i·a[i,j],  g_i = 1/(1 + beta·s[i]),  k_i = (2·u[i])/C
//
// with dy·g + k·a summed before it is added to da.
func GateGradApply(da, dy, a, s, u []float32, beta float32, n, c int) {
	if n < 0 || c <= 0 || len(da) != n*c || len(dy) != n*c || len(a) != n*c || len(s) != n || len(u) != n {
		panic("vmath: GateGradApply: slice lengths do not match (N,C)")
	}
	bestRows.gateGradApply(da, dy, a, s, u, beta, n, c)
}

type rowImpl struct {
	name          string
	sumSq         func(dst, x []float32, n, c int)
	dot           func(dst, x, y []float32, n, c int)
	gateScale     func(y, a, s []float32, beta float32, n, c int)
	gateGradApply func(da, dy, a, s, u []float32, beta float32, n, c int)
}

var genericRows = rowImpl{"generic", rowSumSqGeneric, rowDotGeneric, gateScaleGeneric, gateGradApplyGeneric}

var bestRows = rowImpls[len(rowImpls)-1]

// rowSumSqGeneric takes rows four at a time: four independent sums.
func rowSumSqGeneric(dst, x []float32, n, c int) {
	i := 0
	for ; i+4 <= n; i += 4 {
		r0, r1, r2, r3 := x[i*c:][:c], x[(i+1)*c:][:c], x[(i+2)*c:][:c], x[(i+3)*c:][:c]
		var s0, s1, s2, s3 float32
		for j, v := range r0 {
			s0 += float32(v * v)
			s1 += float32(r1[j] * r1[j])
			s2 += float32(r2[j] * r2[j])
			s3 += float32(r3[j] * r3[j])
		}
		dst[i], dst[i+1], dst[i+2], dst[i+3] = s0, s1, s2, s3
	}
	for ; i < n; i++ {
		var s float32
		for _, v := range x[i*c : i*c+c] {
			s += float32(v * v)
		}
		dst[i] = s
	}
}

// rowDotGeneric takes rows four at a time.
func rowDotGeneric(dst, x, y []float32, n, c int) {
	i := 0
	for ; i+4 <= n; i += 4 {
		x0, x1, x2, x3 := x[i*c:][:c], x[(i+1)*c:][:c], x[(i+2)*c:][:c], x[(i+3)*c:][:c]
		y0, y1, y2, y3 := y[i*c:][:c], y[(i+1)*c:][:c], y[(i+2)*c:][:c], y[(i+3)*c:][:c]
		var s0, s1, s2, s3 float32
		for j, v := range x0 {
			s0 += float32(v * y0[j])
			s1 += float32(x1[j] * y1[j])
			s2 += float32(x2[j] * y2[j])
			s3 += float32(x3[j] * y3[j])
		}
		dst[i], dst[i+1], dst[i+2], dst[i+3] = s0, s1, s2, s3
	}
	for ; i < n; i++ {
		var s float32
		yr := y[i*c : i*c+c]
		for j, v := range x[i*c : i*c+c] {
			s += float32(v * yr[j])
		}
		dst[i] = s
	}
}

func gateScaleGeneric(y, a, s []float32, beta float32, n, c int) {
	for i := range n {
		g := 1 / (1 + float32(beta*s[i]))
		yr := y[i*c : i*c+c]
		for j, v := range a[i*c : i*c+c] {
			yr[j] = g * v
		}
	}
}

func gateGradApplyGeneric(da, dy, a, s, u []float32, beta float32, n, c int) {
	fc := float32(c)
	for i := range n {
		g := 1 / (1 + float32(beta*s[i]))
		k := 2 * u[i] / fc
		dar, dyr, ar := da[i*c:i*c+c], dy[i*c:i*c+c], a[i*c:i*c+c]
		for j, d := range dyr {
			dar[j] += float32(d*g) + float32(k*ar[j])
		}
	}
}
