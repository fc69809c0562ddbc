package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Holm returns Holm's step-down adjusted p-values (Holm 1979, "A simple
// sequentially rejective multiple test procedure"), in the order of p:
// with p sorted ascending, p_(1) <= … <= p_(m),
//
//	p̃_(i) = max_{j <= i} min(1, (m - j + 1)·p_(j))
//
// Rejecting every hypothesis with p̃ < α controls the family-wise error
// rate at α under any dependence between the tests. Ties keep their input
// order. It panics on a p outside [0,1].
func Holm(p []float64) []float64 {
	m := len(p)
	idx := make([]int, m)
	for i := range idx {
		idx[i] = i
		if !(p[i] >= 0 && p[i] <= 1) {
			panic(fmt.Sprintf("stats: Holm: p[%d] = %v is not a probability", i, p[i]))
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	out := make([]float64, m)
	run := 0.0
	for j, i := range idx {
		run = max(run, min(1, float64(m-j)*p[i]))
		out[i] = run
	}
	return out
}

// ClopperPearson returns the exact (Clopper and Pearson 1934) two-sided
// confidence interval at level conf (e.g. 0.95) for a binomial proportion
// with k successes in n trials, from Beta quantiles:
//
//	lo = B(a/2; k, n-k+1),  hi = B(1-a/2; k+1, n-k),  a = 1 - conf
//
// with lo = 0 when k = 0 and hi = 1 when k = n.
func ClopperPearson(k, n int, conf float64) (lo, hi float64) {
	if n < 1 || k < 0 || k > n || !(conf > 0 && conf < 1) {
		panic(fmt.Sprintf("stats: ClopperPearson: k = %d, n = %d, conf = %v", k, n, conf))
	}
	a := 1 - conf
	lo, hi = 0, 1
	if k > 0 {
		lo = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a / 2)
	}
	if k < n {
		hi = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a/2)
	}
	return lo, math.Min(hi, 1)
}
