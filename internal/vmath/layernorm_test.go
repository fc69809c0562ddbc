package vmath

import (
	"fmt"
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
