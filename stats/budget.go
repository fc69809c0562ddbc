package stats

import (
	"fmt"
	"math"
	"slices"
)

// BudgetPoint is an arm's expected outcome when k cfgs of its grid are
// tried: the expected best validation metric, and the expected test
// metric of the cfg that validation picks.
type BudgetPoint struct {
	K    int     `json:"k"`
	Val  float64 `json:"expected_val"`
	Test float64 `json:"expected_test"`
}

// BudgetMethod names the method in the report.
const BudgetMethod = "expected validation performance (Dodge et al. 2019): k cfgs drawn uniformly with replacement from the grid"

// Budget returns an arm's tuning-budget curve, k = 1..N, from its cfgs'
// mean validation and test metrics val and test, both (N), for a metric
// that improves in direction dir ("Show Your Work: Improved Reporting of
// Experimental Results", Dodge et al., EMNLP 2019, §3, eq. 1). With the
// cfgs ranked from worst to best validation metric, v_(1) .. v_(N) (ties
// ranked as the selection rule breaks them: the earlier cfg counts as
// better), the best of k cfgs drawn uniformly with replacement is v_(i)
// with probability
//
//	P_k(i) = (i/N)^k - ((i-1)/N)^k
//
// so E[best val | k] = Σ_i P_k(i)·v_(i) and E[test of the pick | k] =
// Σ_i P_k(i)·t_(i). At k = N the curve approaches the full grid's choice
// (it equals it as k → ∞).
func Budget(val, test []float64, dir Direction) ([]BudgetPoint, error) {
	n := len(val)
	if n == 0 || len(test) != n {
		return nil, fmt.Errorf("stats: Budget needs one val and one test metric per cfg (got %d and %d)", len(val), len(test))
	}
	for i := range n {
		if math.IsNaN(val[i]) || math.IsInf(val[i], 0) || math.IsNaN(test[i]) || math.IsInf(test[i], 0) {
			return nil, fmt.Errorf("stats: Budget: cfg %d has val %v, test %v; need finite metrics", i, val[i], test[i])
		}
	}
	// order: worst first. better(a, b): a's val is better, or equal and a
	// is the earlier cfg.
	better := func(a, b int) bool {
		if val[a] != val[b] {
			return (dir == LowerIsBetter) == (val[a] < val[b])
		}
		return a < b
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case better(b, a):
			return -1
		case better(a, b):
			return 1
		}
		return 0
	})
	out := make([]BudgetPoint, n)
	for k := 1; k <= n; k++ {
		pt := BudgetPoint{K: k}
		for r, c := range order {
			p := math.Pow(float64(r+1)/float64(n), float64(k)) - math.Pow(float64(r)/float64(n), float64(k))
			pt.Val += p * val[c]
			pt.Test += p * test[c]
		}
		out[k-1] = pt
	}
	return out, nil
}
