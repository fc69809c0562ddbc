package transformer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPackTN checks the float32 packing of heads' transposes (vmath for
// 8-wide heads and multiples of 8) against the plain loop that float64
// runs, value for value.
func TestPackTN(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, tc := range []struct{ t, hs, nh int }{{32, 8, 4}, {96, 16, 4}, {96, 16, 8}, {7, 16, 2}, {9, 12, 3}, {5, 24, 1}} {
		t.Run(fmt.Sprintf("t=%d/hs=%d/nh=%d", tc.t, tc.hs, tc.nh), func(t *testing.T) {
			d := tc.hs * tc.nh
			ld := 3 * d
			src64 := make([]float64, tc.t*ld)
			for i := range src64 {
				src64[i] = r.NormFloat64()
			}
			src32 := make([]float32, len(src64))
			for i, x := range src64 {
				src32[i] = float32(x)
			}
			got := make([]float32, d*tc.t)
			want := make([]float64, d*tc.t)
			packTN(got, src32, tc.t, tc.hs, ld, tc.nh)
			packTN(want, src64, tc.t, tc.hs, ld, tc.nh)
			for h := range tc.nh {
				for c := range tc.hs {
					for i := range tc.t {
						k := (h*tc.hs+c)*tc.t + i
						require.Equal(t, float32(src64[i*ld+h*tc.hs+c]), got[k], "head %d column %d row %d", h, c, i)
						require.Equal(t, float32(want[k]), got[k], "head %d column %d row %d", h, c, i)
					}
				}
			}
		})
	}
}
