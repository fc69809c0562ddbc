package vmath

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestLayerNormBitIdentical checks the assembly LayerNorm passes against
// the Go loops, bit for bit, on widths that are and are not multiples of
// the vector.
func TestLayerNormBitIdentical(t *testing.T) {
	for _, im := range lnImpls[1:] {
		for _, s := range [][2]int{{1, 1}, {3, 5}, {4, 16}, {7, 17}, {64, 32}, {5, 33}, {9, 100}} {
			n, c := s[0], s[1]
			t.Run(fmt.Sprintf("impl=%s/n=%d/c=%d", im.name, n, c), func(t *testing.T) {
				r := rand.New(rand.NewPCG(21, uint64(n*1000+c)))
				rnd := func(k int) []float32 {
					v := make([]float32, k)
					for i := range v {
						v[i] = float32(r.NormFloat64())
					}
					return v
				}
				x, w, b, mean, rstd := rnd(n*c), rnd(c), rnd(c), rnd(n), rnd(n)
				y0, y1 := rnd(n*c), make([]float32, n*c)
				copy(y1, y0)
				genericLN.apply(y0, x, w, b, mean, rstd, n, c)
				im.apply(y1, x, w, b, mean, rstd, n, c)
				requireBits(t, "apply", y0, y1)

				dy, gm, gxm := rnd(n*c), rnd(n), rnd(n)
				dx0, dw0, db0 := rnd(n*c), rnd(c), rnd(c)
				dx1, dw1, db1 := append([]float32(nil), dx0...), append([]float32(nil), dw0...), append([]float32(nil), db0...)
				genericLN.gradApply(dx0, dw0, db0, dy, x, w, mean, rstd, gm, gxm, n, c)
				im.gradApply(dx1, dw1, db1, dy, x, w, mean, rstd, gm, gxm, n, c)
				requireBits(t, "dx", dx0, dx1)
				requireBits(t, "dw", dw0, dw1)
				requireBits(t, "db", db0, db1)
			})
		}
	}
}

// lnRowStats is one row's statistics summed left to right, the definition
// the kernels must reproduce.
func lnRowStats(x []float32, eps float64) (mean, rstd float32) {
	var s float32
	for _, v := range x {
		s += v
	}
	mean = s / float32(len(x))
	var vs float32
	for _, v := range x {
		d := v - mean
		vs += float32(d * d) // rounded: no fused multiply-add on any GOARCH
	}
	return mean, float32(1 / math.Sqrt(float64(vs/float32(len(x)))+eps))
}

// TestLayerNormStatsBitIdentical checks the row statistics of every
// implementation against a one-row-at-a-time loop, on row counts around
// the 16-row groups and widths the kernels take (multiples of 16 up to
// 128) and leave to Go (others, and wider rows).
func TestLayerNormStatsBitIdentical(t *testing.T) {
	for _, im := range lnImpls {
		for _, s := range [][2]int{{0, 16}, {1, 1}, {3, 5}, {15, 16}, {16, 16}, {17, 32}, {33, 32}, {64, 32}, {1024, 32}, {48, 48}, {32, 128}, {16, 144}, {20, 33}} {
			n, c := s[0], s[1]
			t.Run(fmt.Sprintf("impl=%s/n=%d/c=%d", im.name, n, c), func(t *testing.T) {
				r := rand.New(rand.NewPCG(22, uint64(n*1000+c)))
				rnd := func(k int, off float64) []float32 {
					v := make([]float32, k)
					for i := range v {
						v[i] = float32(off + r.NormFloat64())
					}
					return v
				}
				x, w, dy := rnd(n*c, 3), rnd(c, 1), rnd(n*c, 0)
				mean, rstd := make([]float32, n), make([]float32, n)
				im.stats(mean, rstd, x, n, c, 1e-5)
				gm, gxm := make([]float32, n), make([]float32, n)
				im.gradMeans(gm, gxm, dy, x, w, mean, rstd, n, c)
				for i := range n {
					m, rs := lnRowStats(x[i*c:(i+1)*c], 1e-5)
					var gs, gx float32
					for j, v := range x[i*c : (i+1)*c] {
						xh := float32((v - m) * rs)
						g := float32(dy[i*c+j] * w[j])
						gs += g
						gx += float32(g * xh)
					}
					want := []float32{m, rs, gs / float32(c), gx / float32(c)}
					got := []float32{mean[i], rstd[i], gm[i], gxm[i]}
					if math.Float32bits(got[0]) != math.Float32bits(want[0]) || math.Float32bits(got[1]) != math.Float32bits(want[1]) ||
						math.Float32bits(got[2]) != math.Float32bits(want[2]) || math.Float32bits(got[3]) != math.Float32bits(want[3]) {
						t.Fatalf("row %d: mean, rstd, gm, gxm = %v, want %v", i, got, want)
					}
				}
			})
		}
	}
}

// TestLayerNormStatsHandDerived: the row (1, 2, 3, 4) has mean 2.5 and
// variance ((1.5²+0.5²)·2)/4 = 1.25; with w = 1 and dy = x̂, mean(g) = 0 and
// mean(g·x̂) = mean(x̂²) = 1.25·rstd².
func TestLayerNormStatsHandDerived(t *testing.T) {
	x := []float32{1, 2, 3, 4}
	mean, rstd := make([]float32, 1), make([]float32, 1)
	LayerNormStats(mean, rstd, x, 1, 4, 1e-5)
	wantR := 1 / math.Sqrt(1.25+1e-5)
	if mean[0] != 2.5 || math.Abs(float64(rstd[0])-wantR) > 1e-7 {
		t.Fatalf("mean, rstd = %v, %v, want 2.5, %v", mean[0], rstd[0], wantR)
	}
	dy := make([]float32, 4)
	for j, v := range x {
		dy[j] = (v - mean[0]) * rstd[0]
	}
	gm, gxm := make([]float32, 1), make([]float32, 1)
	LayerNormGradMeans(gm, gxm, dy, x, []float32{1, 1, 1, 1}, mean, rstd, 1, 4)
	if math.Abs(float64(gm[0])) > 1e-7 || math.Abs(float64(gxm[0])-1.25*wantR*wantR) > 1e-6 {
		t.Fatalf("gm, gxm = %v, %v, want 0, %v", gm[0], gxm[0], 1.25*wantR*wantR)
	}
}
