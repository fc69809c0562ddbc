package protocol

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSpend: both spending functions spend nothing at t = 0 and alpha at
// t = 1, grow with t, and take the values worked by hand:
// O'Brien-Fleming 2 - 2Φ(1.959964/√0.25) = 2 - 2Φ(3.919928) = 8.857e-5,
// Pocock 0.05·ln(1 + (e-1)/2) = 0.05·0.620115 = 0.0310057.
func TestSpend(t *testing.T) {
	for _, kind := range []string{SpendOBrienFleming, SpendPocock} {
		require.Equal(t, 0.0, Spend(kind, 0.05, 0))
		require.InDelta(t, 0.05, Spend(kind, 0.05, 1), 1e-12, kind)
		prev := 0.0
		for t1 := 0.05; t1 <= 1; t1 += 0.05 {
			s := Spend(kind, 0.05, t1)
			require.Greater(t, s, prev, kind)
			prev = s
		}
	}
	require.InDelta(t, 8.857e-5, Spend(SpendOBrienFleming, 0.05, 0.25), 1e-8)
	require.InDelta(t, 0.05*math.Log(1+(math.E-1)/2), Spend(SpendPocock, 0.05, 0.5), 1e-15)
	require.InDelta(t, 0.0310057, Spend(SpendPocock, 0.05, 0.5), 1e-7)
}
