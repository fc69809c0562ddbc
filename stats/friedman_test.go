package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestFriedmanHandDerived(t *testing.T) {
	t.Run("three_methods_two_sets", func(t *testing.T) {
		// Ranks (1,2,3) and (1,3,2): averages (1, 2.5, 2.5);
		// χ² = 12·2/(3·4)·(1 + 6.25 + 6.25 - 12) = 3; F_F = 1·3/(2·2-3)
		// = 3; F(2,2) has CDF x/(1+x), so p = 1 - 3/4; CD = 2.343·√(12/12).
		f, err := FriedmanTest([][]float64{{0.1, 0.2, 0.3}, {0.5, 0.9, 0.7}}, LowerIsBetter)
		require.NoError(t, err)
		require.InDeltaSlice(t, []float64{1, 2.5, 2.5}, f.Ranks, 1e-12)
		require.InDelta(t, 3, f.ChiSquare, 1e-12)
		require.InDelta(t, 3, f.FF, 1e-12)
		require.InDelta(t, 0.25, f.PValue, 1e-9)
		require.InDelta(t, 2.343, f.CD, 1e-12)
	})
	t.Run("ties_and_direction", func(t *testing.T) {
		require.Equal(t, []float64{1.5, 1.5, 3}, rank([]float64{1, 1, 2}, LowerIsBetter))
		require.Equal(t, []float64{2.5, 2.5, 1}, rank([]float64{1, 1, 2}, HigherIsBetter))
		require.Equal(t, []float64{2, 2, 2}, rank([]float64{4, 4, 4}, LowerIsBetter))
	})
	t.Run("demsar_example", func(t *testing.T) {
		// Demšar 2006, §3.2.4: average ranks 3.143, 2.000, 2.893, 1.964
		// of 4 methods over N = 14 data sets give χ²_F = 9.28 and
		// F_F = 3.69, above F(3, 39)'s critical 2.85 at 0.05; and
		// CD = 2.569·√(20/84) = 1.25 (Table 5a's q for k = 4).
		f := friedmanOf([]float64{3.143, 2.000, 2.893, 1.964}, 14)
		require.InDelta(t, 9.28, f.ChiSquare, 0.005)
		require.InDelta(t, 3.69, f.FF, 0.005)
		require.Less(t, f.PValue, 0.05)
		require.Greater(t, f.PValue, 0.01)
		require.InDelta(t, 1.25, f.CD, 0.005)
		// The rank-sum form: χ²_F = 12/(N·k(k+1))·Σ S_j² - 3N(k+1).
		var ss float64
		for _, r := range f.Ranks {
			ss += (14 * r) * (14 * r)
		}
		require.InDelta(t, 12/(14.0*20)*ss-3*14*5, f.ChiSquare, 1e-9)
	})
	t.Run("unanimous", func(t *testing.T) {
		f, err := FriedmanTest([][]float64{{1, 2}, {1, 2}, {1, 2}}, LowerIsBetter)
		require.NoError(t, err)
		require.Equal(t, []float64{1, 2}, f.Ranks)
		require.Zero(t, f.PValue)
	})
	t.Run("errors", func(t *testing.T) {
		_, err := FriedmanTest(nil, LowerIsBetter)
		require.ErrorContains(t, err, "no data sets")
		_, err = FriedmanTest([][]float64{{1}}, LowerIsBetter)
		require.ErrorContains(t, err, "at least 2")
		_, err = FriedmanTest([][]float64{{1, 2}, {1}}, LowerIsBetter)
		require.ErrorContains(t, err, "data set 1 has 1")
		_, err = FriedmanTest([][]float64{{1, math.NaN()}}, LowerIsBetter)
		require.ErrorContains(t, err, "not finite")
	})
}
