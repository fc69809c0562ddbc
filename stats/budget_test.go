package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBudgetHand: two cfgs, val 1 (test 10) and val 2 (test 20), lower is
// better. One draw picks either: E[val] = 1.5, E[test] = 15. Two draws
// miss the better cfg only when both are the worse one (1/4): E[val] =
// 3/4·1 + 1/4·2 = 1.25, E[test] = 12.5.
func TestBudgetHand(t *testing.T) {
	pts, err := Budget([]float64{2, 1}, []float64{20, 10}, LowerIsBetter)
	require.NoError(t, err)
	require.Equal(t, []BudgetPoint{{K: 1, Val: 1.5, Test: 15}, {K: 2, Val: 1.25, Test: 12.5}}, pts)
	// Higher is better reverses the ranks.
	pts, err = Budget([]float64{2, 1}, []float64{20, 10}, HigherIsBetter)
	require.NoError(t, err)
	require.Equal(t, BudgetPoint{K: 2, Val: 1.75, Test: 17.5}, pts[1])
	// A tie goes to the earlier cfg, as the selection rule does: with
	// equal vals the first cfg's test is the pick at every k once drawn.
	pts, err = Budget([]float64{1, 1}, []float64{10, 30}, LowerIsBetter)
	require.NoError(t, err)
	require.Equal(t, 20.0, pts[0].Test)
	require.Equal(t, 0.75*10+0.25*30, pts[1].Test)
	_, err = Budget(nil, nil, LowerIsBetter)
	require.Error(t, err)
}

// TestBudgetSimulated: the closed form matches drawing k cfgs with
// replacement and picking the best val (first among equals).
func TestBudgetSimulated(t *testing.T) {
	val := []float64{0.3, 0.1, 0.4, 0.1, 0.2}
	test := []float64{3, 1.5, 4, 1, 2}
	pts, err := Budget(val, test, LowerIsBetter)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(1, 1))
	const sims = 200000
	for _, pt := range pts {
		var sv, st float64
		for range sims {
			best := -1
			for range pt.K {
				c := r.IntN(len(val))
				if best < 0 || val[c] < val[best] || val[c] == val[best] && c < best {
					best = c
				}
			}
			sv += val[best]
			st += test[best]
		}
		require.InDelta(t, pt.Val, sv/sims, 0.002, "k=%d", pt.K)
		require.InDelta(t, pt.Test, st/sims, 0.01, "k=%d", pt.K)
	}
	require.False(t, math.IsNaN(pts[0].Val))
}
