package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestHolm: hand-derived cases. For (0.01, 0.04, 0.03) with m = 3, sorted
// 0.01, 0.03, 0.04: 3·0.01 = 0.03, 2·0.03 = 0.06, 1·0.04 = 0.04 raised to
// the running max 0.06; back in input order (0.03, 0.06, 0.06).
func TestHolm(t *testing.T) {
	for _, tc := range []struct {
		name    string
		p, want []float64
	}{
		{"three", []float64{0.01, 0.04, 0.03}, []float64{0.03, 0.06, 0.06}},
		{"one", []float64{0.2}, []float64{0.2}},
		// The larger p is multiplied by 1 only: (0.6, 2·0.02).
		{"step_down", []float64{0.6, 0.02}, []float64{0.6, 0.04}},
		// 2·0.6 is capped at 1, and the running max carries the cap on.
		{"cap", []float64{0.7, 0.6}, []float64{1, 1}},
		// Ties keep their input order: 2·0.01 then max(0.02, 1·0.01).
		{"ties", []float64{0.01, 0.01}, []float64{0.02, 0.02}},
		{"empty", nil, []float64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.InDeltaSlice(t, tc.want, Holm(tc.p), 1e-15)
		})
	}
	require.Panics(t, func() { Holm([]float64{1.5}) })
}

// TestClopperPearson: the closed forms at the edges (k = 0: hi =
// 1 - (a/2)^(1/n); k = n: lo = (a/2)^(1/n)), R's binom.test(5, 10), and
// for other cases the defining property, computed independently by
// summing the binomial pmf: P(X >= k | lo) = a/2 = P(X <= k | hi).
func TestClopperPearson(t *testing.T) {
	for _, tc := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 10, 0, 1 - math.Pow(0.025, 0.1)},
		{10, 10, math.Pow(0.025, 0.1), 1},
		{5, 10, 0.1870860, 0.8129140},
	} {
		lo, hi := ClopperPearson(tc.k, tc.n, 0.95)
		require.InDelta(t, tc.lo, lo, 1e-7, "%d/%d lo", tc.k, tc.n)
		require.InDelta(t, tc.hi, hi, 1e-7, "%d/%d hi", tc.k, tc.n)
	}
	pmf := func(i, n int, p float64) float64 {
		lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
		return math.Exp(lg(n) - lg(i) - lg(n-i) + float64(i)*math.Log(p) + float64(n-i)*math.Log1p(-p))
	}
	for _, c := range [][2]int{{1, 20}, {7, 40}, {81, 263}, {199, 200}} {
		k, n := c[0], c[1]
		lo, hi := ClopperPearson(k, n, 0.95)
		var up, down float64 // P(X >= k | lo), P(X <= k | hi)
		for i := range n + 1 {
			if i >= k {
				up += pmf(i, n, lo)
			}
			if i <= k {
				down += pmf(i, n, hi)
			}
		}
		require.InDelta(t, 0.025, up, 1e-9, "%d/%d", k, n)
		require.InDelta(t, 0.025, down, 1e-9, "%d/%d", k, n)
	}
	require.Panics(t, func() { ClopperPearson(3, 2, 0.95) })
}
