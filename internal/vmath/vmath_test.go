package vmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// uniform returns n values drawn uniformly from [lo, hi].
func uniform(r *rand.Rand, n int, lo, hi float64) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(lo + (hi-lo)*r.Float64())
	}
	return v
}

// edges are the inputs where clamps, overflow and rounding take over.
var edges = []float32{
	0, float32(math.Copysign(0, -1)),
	1e-30, -1e-30,
	87, -87, -87.5, // -87 is the low clamp, -87.5 is beyond it
	88, -88, 88.5, // 88 is the high clamp
	-10.2, -10.1, 10.1, // where exp's argument in GELU crosses the clamps
	1e30, -1e30, // x² and x³ overflow in GELU
	math.SmallestNonzeroFloat32, -math.SmallestNonzeroFloat32,
	0x1p-126, -0x1p-126, // smallest normal
	math.MaxFloat32, -math.MaxFloat32,
	float32(math.Inf(1)), float32(math.Inf(-1)),
	float32(math.NaN()), // on amd64 all implementations agree on NaN bits too
}

// fn is one of the package's functions as an implementation provides it,
// in the two-slice form: geluBackward gets dout from the test's fixed
// stream.
type fn struct {
	name string
	get  func(impl) func(dst, src []float32)
}

var fns = []fn{
	{"exp", func(m impl) func(dst, src []float32) { return m.exp }},
	{"gelu", func(m impl) func(dst, src []float32) { return m.gelu }},
	{"geluBackward", func(m impl) func(dst, src []float32) {
		return func(dst, src []float32) { m.geluBackward(dst, src, douts(len(src))) }
	}},
	{"geluWithGrad/value", func(m impl) func(dst, src []float32) {
		return func(dst, src []float32) { m.geluWithGrad(dst, make([]float32, len(src)), src) }
	}},
	{"geluWithGrad/grad", func(m impl) func(dst, src []float32) {
		return func(dst, src []float32) { m.geluWithGrad(make([]float32, len(src)), dst, src) }
	}},
	{"add", func(m impl) func(dst, src []float32) {
		return func(dst, src []float32) { m.add(dst, src, douts(len(src))) }
	}},
}

// douts returns the gradients dout of length n, the same on every call.
func douts(n int) []float32 {
	return uniform(rand.New(rand.NewPCG(7, 7)), n, -2, 2)
}

// requireSameBits fails at the first element whose bits differ.
func requireSameBits(t *testing.T, x, got, want []float32) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("len %d, want %d", len(got), len(want))
	}
	for i := range got {
		if g, w := math.Float32bits(got[i]), math.Float32bits(want[i]); g != w {
			t.Fatalf("x[%d] = %v (%#08x): got %v (%#08x), want %v (%#08x)",
				i, x[i], math.Float32bits(x[i]), got[i], g, want[i], w)
		}
	}
}

// apply returns f(x) in a fresh slice pre-filled with garbage, and checks
// that f writes nothing past len(x).
func apply(t *testing.T, f func(dst, src []float32), x []float32) []float32 {
	t.Helper()
	const guard = 16
	buf := make([]float32, len(x)+guard)
	for i := range buf {
		buf[i] = -12345 // every element must be overwritten
	}
	f(buf[:len(x)], x)
	for i, v := range buf[len(x):] {
		if v != -12345 {
			t.Fatalf("wrote dst[%d] past the end", len(x)+i)
		}
	}
	return buf[:len(x)]
}

// TestBitIdentical checks that every implementation computes the bits of
// the generic one, on random inputs, edge values and every tail length.
func TestBitIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	inputs := []struct {
		name string
		x    []float32
	}{
		{"uniform[-100,100]", uniform(r, 100_000, -100, 100)},
		{"uniform[-10,10]", uniform(r, 100_000, -10, 10)},
		{"uniform[-1,1]", uniform(r, 100_000, -1, 1)},
		{"edges", edges},
		// Every 4093rd float32 of [-100, 100] (about 5·10⁵ values): each
		// exponent and rounding of exp's n, both clamps of exp and of
		// GELU's argument, and the subnormal results near them.
		{"sweep[-100,100]", floats32(-100, 100, 4093)},
	}
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 100} {
		inputs = append(inputs, struct {
			name string
			x    []float32
		}{fmt.Sprintf("len=%d", n), uniform(r, n, -10, 10)})
	}
	for _, m := range impls[1:] {
		for _, f := range fns {
			for _, in := range inputs {
				t.Run(fmt.Sprintf("impl=%s/fn=%s/x=%s", m.name, f.name, in.name), func(t *testing.T) {
					want := apply(t, f.get(genericImpl), in.x)
					got := apply(t, f.get(m), in.x)
					requireSameBits(t, in.x, got, want)
				})
			}
		}
	}
}

// TestAliasing checks that a destination may be a source.
func TestAliasing(t *testing.T) {
	x := uniform(rand.New(rand.NewPCG(3, 4)), 37, -10, 10) // 2 vectors of 16 and a tail
	dout := douts(len(x))
	for _, m := range impls {
		t.Run("impl="+m.name, func(t *testing.T) {
			for _, f := range fns[:2] {
				want := apply(t, f.get(m), x)
				got := append([]float32(nil), x...)
				f.get(m)(got, got)
				requireSameBits(t, x, got, want)
			}
			want := make([]float32, len(x))
			m.geluBackward(want, x, dout)
			got := append([]float32(nil), x...)
			m.geluBackward(got, got, dout) // dinp == inp
			requireSameBits(t, x, got, want)
			got = append([]float32(nil), dout...)
			m.geluBackward(got, x, got) // dinp == dout
			requireSameBits(t, x, got, want)
		})
	}
}

// TestGELUWithGrad checks that the fused pass gives the bits of GELU and
// of GELUBackward with a dout of ones, also when a destination is src.
func TestGELUWithGrad(t *testing.T) {
	x := append(uniform(rand.New(rand.NewPCG(8, 9)), 1000, -12, 12), edges...)
	ones := make([]float32, len(x))
	for i := range ones {
		ones[i] = 1
	}
	for _, m := range impls {
		t.Run("impl="+m.name, func(t *testing.T) {
			wantY, wantG := make([]float32, len(x)), make([]float32, len(x))
			m.gelu(wantY, x)
			m.geluBackward(wantG, x, ones)
			y, g := make([]float32, len(x)), make([]float32, len(x))
			m.geluWithGrad(y, g, x)
			requireSameBits(t, x, y, wantY)
			requireSameBits(t, x, g, wantG)
			g = append([]float32(nil), x...)
			m.geluWithGrad(y, g, g) // grad == src
			requireSameBits(t, x, y, wantY)
			requireSameBits(t, x, g, wantG)
			y = append([]float32(nil), x...)
			m.geluWithGrad(y, g, y) // dst == src
			requireSameBits(t, x, y, wantY)
			requireSameBits(t, x, g, wantG)
		})
	}
}

// adamState is one Adam problem: parameters, gradients and moments.
type adamState struct{ p, g, m, v []float32 }

func newAdamState(r *rand.Rand, n int) adamState {
	s := adamState{uniform(r, n, -1, 1), uniform(r, n, -1e-2, 1e-2), uniform(r, n, -1e-3, 1e-3), uniform(r, n, 0, 1e-5)}
	if n > 3 {
		s.g[1], s.g[2], s.v[3] = 0, float32(math.Copysign(0, -1)), 0 // zero gradients and moments
	}
	return s
}

func (s adamState) clone() adamState {
	c := func(x []float32) []float32 { return append([]float32(nil), x...) }
	return adamState{c(s.p), c(s.g), c(s.m), c(s.v)}
}

// adamCoef is step t of Adam with the paper's defaults.
func adamCoef(t int, lr float32) AdamCoef {
	b1, b2 := float32(0.9), float32(0.999)
	return AdamCoef{B1: b1, B2: b2, OmB1: 1 - b1, OmB2: 1 - b2,
		C1: float32(1 - math.Pow(0.9, float64(t))), C2: float32(1 - math.Pow(0.999, float64(t))), LR: lr, Eps: 1e-8}
}

// TestAdamBitIdentical runs three steps of every implementation against the
// generic one on every tail length.
func TestAdamBitIdentical(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 11))
	for _, n := range []int{0, 1, 7, 8, 15, 16, 17, 33, 1000, 27_000} {
		s0 := newAdamState(r, n)
		for _, m := range impls[1:] {
			t.Run(fmt.Sprintf("impl=%s/n=%d", m.name, n), func(t *testing.T) {
				want, got := s0.clone(), s0.clone()
				for step := 1; step <= 3; step++ {
					k := adamCoef(step, 1e-3)
					genericImpl.adam(want.p, want.g, want.m, want.v, &k)
					m.adam(got.p, got.g, got.m, got.v, &k)
				}
				requireSameBits(t, s0.p, got.p, want.p)
				requireSameBits(t, s0.m, got.m, want.m)
				requireSameBits(t, s0.v, got.v, want.v)
			})
		}
	}
}

// TestAdamFirstStep checks the hand-derived first update: from zero moments,
// m = (1−β1)·g and v = (1−β2)·g², so m/(1−β1) = g, √(v/(1−β2)) = |g| and the
// step is lr·g/(|g|+ε), lr·sign(g) up to rounding and ε. The float32
// coefficients move it: 1−β1 = 1−0.9 rounds to 0.1·(1+2.4e−7) and
// 1−β2 = 1−float32(0.999) is 0.001·(1−1.3e−5), so the step is lr·sign(g)
// within a relative 1e−5 and m is (1−β1)·g within 3e−7.
func TestAdamFirstStep(t *testing.T) {
	g := []float32{0.5, -0.25, 1e-3, -3, 0}
	for _, m := range impls {
		t.Run("impl="+m.name, func(t *testing.T) {
			p := make([]float32, len(g))
			mom, v := make([]float32, len(g)), make([]float32, len(g))
			k := adamCoef(1, 0.01)
			m.adam(p, g, mom, v, &k)
			for i, gi := range g {
				want := -0.01 * float64(gi) / (math.Abs(float64(gi)) + 1e-8)
				if math.Abs(float64(p[i])-want) > 1e-5*math.Abs(want)+1e-12 {
					t.Errorf("g = %v: p = %v, want %v", gi, p[i], want)
				}
				if wm := 0.1 * float64(gi); math.Abs(float64(mom[i])-wm) > 3e-7*math.Abs(wm) {
					t.Errorf("g = %v: m = %v, want %v", gi, mom[i], wm)
				}
			}
		})
	}
}

func TestLengthMismatchPanics(t *testing.T) {
	a, b := make([]float32, 3), make([]float32, 4)
	for _, tc := range []struct {
		name string
		call func()
	}{
		{"Exp", func() { Exp(a, b) }},
		{"GELU", func() { GELU(b, a) }},
		{"GELUBackward/inp", func() { GELUBackward(a, b, a) }},
		{"GELUBackward/dout", func() { GELUBackward(a, a, b) }},
		{"GELUWithGrad/grad", func() { GELUWithGrad(a, b, a) }},
		{"GELUWithGrad/src", func() { GELUWithGrad(a, a, b) }},
		{"Add", func() { Add(a, b, a) }},
		{"Adam", func() { Adam(a, a, b, a, AdamCoef{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("no panic")
				}
			}()
			tc.call()
		})
	}
}

// geluGrad64 is gelu'(x) of the package doc in float64.
func geluGrad64(x float64) float64 {
	k := math.Sqrt(2 / math.Pi)
	u := k * (x + 0.044715*x*x*x)
	s := 1 / (1 + math.Exp(-2*u))
	du := k * (1 + 3*0.044715*x*x)
	return s + 2*x*s*(1-s)*du
}

// gelu64 is the tanh GELU as published, in float64.
func gelu64(x float64) float64 {
	return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
}

// floats32 returns the float32 values in [lo, hi] whose bit patterns are
// multiples of stride apart, about n(lo,hi)/stride values.
func floats32(lo, hi float32, stride uint32) []float32 {
	var v []float32
	for _, sign := range []uint32{0, 1 << 31} {
		for b := uint32(0); b < 0x7f800000; b += stride {
			x := math.Float32frombits(sign | b)
			if x >= lo && x <= hi {
				v = append(v, x)
			}
		}
	}
	return v
}

// TestExpAccuracy bounds the relative error of Exp against math.Exp on
// [-87, 88], sampling every 97th float32 (about 2·10⁷ values).
func TestExpAccuracy(t *testing.T) {
	x := floats32(-87, 88, 97)
	got := make([]float32, len(x))
	Exp(got, x)
	var worst float64
	var at float32
	for i, xi := range x {
		want := math.Exp(float64(xi))
		if e := math.Abs(float64(got[i])-want) / want; e > worst {
			worst, at = e, xi
		}
	}
	t.Logf("max relative error %.3g at x = %v (float32 epsilon 2^-23 = %.3g)", worst, at, 0x1p-23)
	if worst > 9e-8 { // over every float32 in [-87, 88] it is 8.16e-8
		t.Errorf("max relative error %.3g at x = %v, want <= 9e-8", worst, at)
	}
}

// TestGELUAccuracy bounds GELU and GELUBackward against their float64
// formulas on [-10, 10], sampling every 97th float32 (about 2·10⁷ values).
func TestGELUAccuracy(t *testing.T) {
	x := floats32(-10, 10, 97)
	got := make([]float32, len(x))
	GELU(got, x)
	var worstAbs, worstRel float64
	for i, xi := range x {
		want := gelu64(float64(xi))
		e := math.Abs(float64(got[i]) - want)
		worstAbs = max(worstAbs, e)
		if xi >= 0x1p-125 { // below it gelu(x) ≈ x/2 is subnormal
			worstRel = max(worstRel, e/want)
		}
	}
	t.Logf("gelu: max abs error %.3g, max relative error for x >= 2^-125 %.3g", worstAbs, worstRel)
	// Over every float32 in [-10, 10]: 5.2e-7 abs (half an ulp of 10 is
	// 4.8e-7), 1.47e-7 relative.
	if worstAbs > 6e-7 || worstRel > 1.6e-7 {
		t.Errorf("gelu: max abs error %.3g (want <= 6e-7), max relative error for x >= 2^-125 %.3g (want <= 1.6e-7)", worstAbs, worstRel)
	}

	ones := make([]float32, len(x))
	for i := range ones {
		ones[i] = 1
	}
	GELUBackward(got, x, ones)
	worstAbs = 0
	for i, xi := range x {
		worstAbs = max(worstAbs, math.Abs(float64(got[i])-geluGrad64(float64(xi))))
	}
	t.Logf("gelu': max abs error %.3g", worstAbs)
	if worstAbs > 3e-7 { // over every float32 in [-10, 10] it is 2.33e-7
		t.Errorf("gelu': max abs error %.3g, want <= 3e-7", worstAbs)
	}
}

// TestGELUDerivative checks the formula of gelu' against a central finite
// difference of gelu in float64, whose truncation error is about h²·gelu⁽³⁾/6.
func TestGELUDerivative(t *testing.T) {
	const h = 1e-5
	for x := -8.0; x <= 8; x += 1.0 / 64 {
		fd := (gelu64(x+h) - gelu64(x-h)) / (2 * h)
		if d := geluGrad64(x); math.Abs(fd-d) > 1e-9 {
			t.Errorf("x = %v: gelu' = %v, finite difference %v", x, d, fd)
		}
	}
}
