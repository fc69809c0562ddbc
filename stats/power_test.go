package stats

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPowerHand: differences without spread reject exactly when the
// smallest attainable p-value 2^(1-n) is below alpha, so the fewest seeds
// is 6 at alpha 0.05 (2^-5 = 0.031) and 7 at alpha 0.02 (2^-6 = 0.016);
// an effect of 0 needs no seeds.
func TestPowerHand(t *testing.T) {
	d := []float64{-1, -1, -1}
	for _, tc := range []struct {
		alpha float64
		need  int
	}{{0.05, 6}, {0.02, 7}, {0.01, 8}} {
		p, err := PowerOf(d, tc.alpha, 0, 1)
		require.NoError(t, err)
		require.Equal(t, 0.0, p.Observed.PowerNow, "3 seeds cannot reject")
		require.Equal(t, tc.need, p.Observed.SeedsNeeded)
		require.Equal(t, 1.0, p.Observed.PowerAtNeeded)
		require.Nil(t, p.Min)
	}
	p, err := PowerOf([]float64{0.1, -0.1, 0.2, -0.2}, 0.05, 0, 1)
	require.NoError(t, err)
	require.Equal(t, 0, p.Observed.SeedsNeeded, "mean 0: no number of seeds detects it")
	_, err = PowerOf([]float64{1}, 0.05, 0, 1)
	require.Error(t, err)
}

// TestPowerBruteForce: the search agrees with a brute-force scan over
// every n whose p-values are exact (the Monte Carlo rule beyond is
// checked at n = 14 against exact p-values), and the same seed gives the
// same answer.
func TestPowerBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	d := make([]float64, 8)
	for i := range d {
		d[i] = -0.4 + r.NormFloat64()
	}
	const alpha = 0.05
	const e = -0.8 // needs about 10-14 seeds at sd 1
	brute := 0
	for n := 2; n <= 16 && brute == 0; n++ {
		if bruteForcePower(d, e, alpha, n, 1000, 3) >= PowerTarget {
			brute = n
		}
	}
	require.NotZero(t, brute)
	p, err := PowerOf(d, alpha, e, 3)
	require.NoError(t, err)
	require.NotNil(t, p.Min)
	require.InDelta(t, brute, p.Min.SeedsNeeded, 1, "search %d, brute force %d", p.Min.SeedsNeeded, brute)
	again, err := PowerOf(d, alpha, e, 3)
	require.NoError(t, err)
	require.Equal(t, p, again)

	// The Monte Carlo rule against exact p-values at n = 14: the powers
	// agree within two binomial standard errors of 1000 studies.
	exact := bruteForcePower(d, e, alpha, 14, 1000, 3)
	mc := PowerAtN(d, e, alpha, 14, 1000, 3)
	require.InDelta(t, exact, mc, 0.03)
}

// bruteForcePower simulates studies of n seeds as PowerAtN does, with
// every p-value exact.
func bruteForcePower(d []float64, e, alpha float64, n, sims int, seed uint64) float64 {
	m := mean(d)
	r := rand.New(rand.NewPCG(seed, powerStream))
	sim := make([]float64, n)
	rejects := 0
	for range sims {
		for i := range sim {
			sim[i] = d[r.IntN(len(d))] - m + e
		}
		if signFlipExact(sim) < alpha {
			rejects++
		}
	}
	return float64(rejects) / float64(sims)
}
