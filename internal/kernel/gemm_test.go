package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// gemmCase is one Gemm call: shapes, the layout of A, padding of B and C,
// and the accumulate and bias switches.
type gemmCase struct {
	m, n, k  int
	layout   string // "rows" (rsa=K, csa=1), "cols" (transposed), "bcast" (csa=0), "padded"
	pad      int    // extra elements per row of B and C
	acc      bool
	withBias bool
}

func (g gemmCase) String() string {
	return fmt.Sprintf("m=%d/n=%d/k=%d/a=%s/pad=%d/acc=%t/bias=%t", g.m, g.n, g.k, g.layout, g.pad, g.acc, g.withBias)
}

func (g gemmCase) strides() (rsa, csa, la int) {
	switch g.layout {
	case "cols":
		return 1, g.m, g.m * g.k
	case "bcast":
		return g.k, 0, g.m*g.k + 1
	case "padded":
		return g.k + 3, 1, g.m*(g.k+3) + 1
	}
	return g.k, 1, g.m * g.k
}

// gemmCases covers the model's shapes and every kind of edge: sizes not a
// multiple of any tile (8x32, 4x16), sizes of 0 and 1, K = 0.
func gemmCases() []gemmCase {
	var cs []gemmCase
	sizes := []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 65}
	r := rand.New(rand.NewPCG(7, 7))
	layouts := []string{"rows", "cols", "bcast", "padded"}
	for range 300 {
		cs = append(cs, gemmCase{
			m: sizes[r.IntN(len(sizes))], n: sizes[r.IntN(len(sizes))], k: sizes[r.IntN(len(sizes))],
			layout: layouts[r.IntN(len(layouts))], pad: r.IntN(3) * 5, acc: r.IntN(2) == 0, withBias: r.IntN(2) == 0,
		})
	}
	for _, s := range [][3]int{{1024, 96, 32}, {1024, 128, 32}, {1024, 32, 128}, {96, 32, 1024}, {32, 32, 8}, {32, 8, 32}} {
		cs = append(cs, gemmCase{m: s[0], n: s[1], k: s[2], layout: "rows", acc: true, withBias: true})
	}
	// Past the cache blocks (128 rows, 256 columns of A) with tails in
	// every dimension, every layout.
	for i, l := range layouts {
		cs = append(cs, gemmCase{m: 300 - i, n: 70 + 9*i, k: 700 + i, layout: l, pad: i % 2 * 5, acc: i%2 == 1, withBias: i < 2})
	}
	// 8-column panels (attention heads): the 16-row and 8-row tiles and the
	// row tail, every layout.
	for i, m := range []int{16, 24, 32, 40, 48, 65} {
		for j, l := range layouts {
			cs = append(cs, gemmCase{m: m, n: 8, k: []int{1, 16, 32, 7}[(i+j)%4], layout: l, pad: j % 2 * 5, acc: (i+j)%2 == 0, withBias: i%2 == 0})
		}
	}
	return cs
}

type gemmData struct {
	c             []float32
	a, b, bias    []float32
	ldc, ldb      int
	rsa, csa      int
	m, n, k       int
	acc, withBias bool
}

func newGemmData(g gemmCase, seed uint64) gemmData {
	r := rand.New(rand.NewPCG(seed, uint64(g.m*10000+g.n*100+g.k)))
	rsa, csa, la := g.strides()
	ldb, ldc := g.n+g.pad, g.n+g.pad
	d := gemmData{ldc: ldc, ldb: ldb, rsa: rsa, csa: csa, m: g.m, n: g.n, k: g.k, acc: g.acc, withBias: g.withBias}
	d.a = f32(randn(r, la))
	d.b = f32(randn(r, g.k*ldb))
	d.c = f32(randn(r, g.m*ldc))
	for i := range d.c {
		if i%ldc >= g.n {
			d.c[i] = float32(math.NaN()) // padding: must stay untouched
		}
	}
	if g.withBias {
		d.bias = f32(randn(r, g.n))
	}
	return d
}

func (d gemmData) clone() gemmData {
	e := d
	e.c = append([]float32(nil), d.c...)
	return e
}

// TestGemmImplsBitIdentical checks every implementation this machine can
// run against the pure-Go kernel, bit for bit, padding included.
func TestGemmImplsBitIdentical(t *testing.T) {
	for _, im := range impls {
		t.Run("impl="+im.name, func(t *testing.T) {
			for _, g := range gemmCases() {
				d := newGemmData(g, 1)
				want, got := d.clone(), d.clone()
				gemmGeneric(want.c, d.ldc, d.a, d.rsa, d.csa, d.b, d.ldb, d.bias, 0, d.m, 0, d.n, d.k, d.acc)
				checkGemm(len(got.c), d.ldc, len(d.a), d.rsa, d.csa, len(d.b), d.ldb, len(d.bias), d.withBias, d.m, d.n, d.k)
				if d.m > 0 && d.n > 0 {
					im.gemm(got.c, d.ldc, d.a, d.rsa, d.csa, d.b, d.ldb, d.bias, d.m, d.n, d.k, d.acc)
				}
				for i := range want.c {
					if math.Float32bits(want.c[i]) != math.Float32bits(got.c[i]) {
						t.Fatalf("%v: C[%d,%d] = %v (%#x), generic %v (%#x)", g, i/d.ldc, i%d.ldc,
							got.c[i], math.Float32bits(got.c[i]), want.c[i], math.Float32bits(want.c[i]))
					}
				}
			}
		})
	}
}

// TestGemmDefinition checks the generic kernel against the definition in
// float64 (for float32 within rounding) and that Gemm dispatches float64.
func TestGemmDefinition(t *testing.T) {
	for _, g := range gemmCases()[:60] {
		t.Run(g.String(), func(t *testing.T) {
			d := newGemmData(g, 2)
			want := make([]float64, len(d.c))
			for i := range d.m {
				for j := range d.n {
					s := 0.0
					if d.acc {
						s = float64(d.c[i*d.ldc+j])
					}
					for p := range d.k {
						s += float64(d.a[i*d.rsa+p*d.csa]) * float64(d.b[p*d.ldb+j])
					}
					if d.withBias {
						s += float64(d.bias[j])
					}
					want[i*d.ldc+j] = s
				}
			}
			got := d.clone()
			Gemm(got.c, d.ldc, d.a, d.rsa, d.csa, d.b, d.ldb, d.bias, d.m, d.n, d.k, d.acc)
			c64 := make([]float64, len(d.c))
			for i, v := range d.c {
				c64[i] = float64(v)
			}
			Gemm(c64, d.ldc, f64(d.a), d.rsa, d.csa, f64(d.b), d.ldb, f64(d.bias), d.m, d.n, d.k, d.acc)
			for i := range d.m {
				for j := range d.n {
					tol := 1e-5 * float64(d.k+2)
					require.InDelta(t, want[i*d.ldc+j], float64(got.c[i*d.ldc+j]), tol)
					require.InDelta(t, want[i*d.ldc+j], c64[i*d.ldc+j], 1e-12)
				}
			}
		})
	}
}

func f64(v []float32) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = float64(x)
	}
	return out
}

func TestGemmPanics(t *testing.T) {
	c, a, b := make([]float32, 6), make([]float32, 6), make([]float32, 9)
	for _, tc := range []struct {
		name string
		call func()
		msg  string
	}{
		{"short C", func() { Gemm(c[:5], 3, a, 3, 1, b, 3, nil, 2, 3, 3, false) }, "C too short"},
		{"short A", func() { Gemm(c, 3, a[:5], 3, 1, b, 3, nil, 2, 3, 3, false) }, "A too short"},
		{"short B", func() { Gemm(c, 3, a, 3, 1, b[:8], 3, nil, 2, 3, 3, false) }, "B too short"},
		{"short bias", func() { Gemm(c, 3, a, 3, 1, b, 3, make([]float32, 2), 2, 3, 3, false) }, "bias too short"},
		{"ldc < N", func() { Gemm(c, 2, a, 3, 1, b, 3, nil, 2, 3, 3, false) }, "leading dimension"},
		{"negative", func() { Gemm(c, 3, a, 3, 1, b, 3, nil, -1, 3, 3, false) }, "negative size"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				r := recover()
				require.NotNil(t, r)
				require.Contains(t, r.(string), tc.msg)
			}()
			tc.call()
		})
	}
}

// matMulShapes are the model's products at batch 32, T 32 (B·T = 1024
// rows), d = 32: op fwd is x·Wᵀ (Linear, Wᵀ packed), bwd-dx is dout·W and
// bwd-dw is doutᵀ·x (A read transposed), attn the per-head Q·Kᵀ and P·V.
var matMulShapes = []struct {
	op      string
	m, k, n int
}{
	{"fwd", 1024, 32, 96}, {"fwd", 1024, 32, 32}, {"fwd", 1024, 32, 128}, {"fwd", 1024, 128, 32},
	{"bwd-dx", 1024, 96, 32}, {"bwd-dx", 1024, 128, 32}, {"bwd-dx", 1024, 32, 128},
	{"bwd-dw", 96, 1024, 32}, {"bwd-dw", 128, 1024, 32}, {"bwd-dw", 32, 1024, 128},
	{"attn", 32, 8, 32}, {"attn", 32, 32, 8}, {"attn", 8, 32, 32},
}

// fp32Peak measures the best FP32 rate of this core's probes (FMA on zmm
// where the CPU has AVX-512), once per process.
func fp32Peak() (float64, string) { return Peak() }

// BenchmarkPeak reports the FP32 throughput of register-only loops: the
// ceiling the matmul kernels are measured against.
func BenchmarkPeak(b *testing.B) {
	for _, p := range peakProbes {
		if !p.ok {
			continue
		}
		b.Run("probe="+p.name, func(b *testing.B) {
			const iters = 1 << 16
			for b.Loop() {
				p.run(iters)
			}
			b.ReportMetric(p.flopPerIter*iters*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkMatMul times Gemm on the model's shapes for each implementation,
// reporting GFLOP/s and the percentage of the measured FP32 FMA peak.
func BenchmarkMatMul(b *testing.B) {
	peak, _ := fp32Peak()
	for _, s := range matMulShapes {
		r := rand.New(rand.NewPCG(3, 3))
		var rsa, csa int
		switch s.op {
		case "bwd-dw":
			rsa, csa = 1, s.m // A = doutᵀ, dout is (K,M)
		default:
			rsa, csa = s.k, 1
		}
		a, bm, c := f32(randn(r, s.m*s.k)), f32(randn(r, s.k*s.n)), make([]float32, s.m*s.n)
		flops := 2 * float64(s.m*s.k*s.n)
		for _, im := range impls {
			b.Run(fmt.Sprintf("op=%s/m=%d/k=%d/n=%d/impl=%s", s.op, s.m, s.k, s.n, im.name), func(b *testing.B) {
				for b.Loop() {
					im.gemm(c, s.n, a, rsa, csa, bm, s.n, nil, s.m, s.n, s.k, s.op != "fwd")
				}
				g := flops * float64(b.N) / b.Elapsed().Seconds() / 1e9
				b.ReportMetric(g, "GFLOP/s")
				if peak > 0 {
					b.ReportMetric(100*g/peak, "%peak")
				}
			})
		}
	}
}
