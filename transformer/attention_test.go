package transformer

import (
	"fmt"
	"math"
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

// TestAttentionPairsKeepBits checks that the backward pass with 8-wide
// heads run two by two (pairsFast) gives the gradients of the head by
// head one, bit for bit: the default model's window (T 32, 4 heads) and
// other pairable shapes, several windows a call.
func TestAttentionPairsKeepBits(t *testing.T) {
	for _, tc := range []struct{ t, nh, b int }{{32, 4, 3}, {16, 2, 2}, {48, 6, 1}, {96, 2, 1}} {
		t.Run(fmt.Sprintf("t=%d/nh=%d/b=%d", tc.t, tc.nh, tc.b), func(t *testing.T) {
			tt, nh, b, d := tc.t, tc.nh, tc.b, 8*tc.nh
			r := rand.New(rand.NewPCG(51, uint64(tt)))
			qkv, dout := normals32(r, b*tt*3*d), normals32(r, b*tt*d)
			out, att := make([]float32, b*tt*d), make([]float32, b*nh*tt*tt)
			ds, kt, pair := make([]float32, nh*tt*tt), make([]float32, d*tt), make([]float32, nh*tt*tt)
			attentionForward(out, att, kt, qkv, nil, b, tt, d, nh)
			if !pairsFast(pair, tt, 8, nh) {
				t.Skip("no pair kernel on this machine and build")
			}
			want, got := make([]float32, b*tt*3*d), make([]float32, b*tt*3*d)
			attentionBackward(want, ds, nil, kt, dout, att, qkv, nil, b, tt, d, nh)
			attentionBackward(got, ds, pair, kt, dout, att, qkv, nil, b, tt, d, nh)
			for i := range want {
				if math.Float32bits(want[i]) != math.Float32bits(got[i]) {
					t.Fatalf("dqkv[%d] = %v paired, %v head by head", i, got[i], want[i])
				}
			}
		})
	}
}
