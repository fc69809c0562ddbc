package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// Friedman is the Friedman test of k methods over N data sets with the
// Nemenyi critical difference, as Demšar (2006, "Statistical Comparisons
// of Classifiers over Multiple Data Sets", JMLR 7, §3.2.2) recommends
// for several methods: the data for a critical-difference diagram.
type Friedman struct {
	// Ranks are each method's average rank over the data sets (1 the
	// best; ties share the mean of their ranks).
	Ranks []float64 `json:"ranks"`
	// ChiSquare is Friedman's statistic and FF the Iman-Davenport
	// correction, with PValue from F(k-1, (k-1)(N-1)):
	//
	//	χ²_F = 12N/(k(k+1)) · (Σ_j R_j² - k(k+1)²/4)
	//	F_F  = (N-1)·χ²_F / (N(k-1) - χ²_F)
	//
	// When N(k-1) = χ²_F (every data set ranks the methods alike) F_F is
	// infinite: FF is then 0 and PValue 0. With one data set PValue is 1.
	ChiSquare float64 `json:"chi_square"`
	FF        float64 `json:"ff"`
	PValue    float64 `json:"p_value"`
	// CD is the Nemenyi critical difference at level 0.05: two methods
	// whose average ranks differ by more are different,
	//
	//	CD = q_0.05 · √(k(k+1)/(6N))
	//
	// with q_0.05 the studentized range quantile over √2 (Demšar's
	// Table 5a); 0 above 10 methods, which the table does not reach.
	CD float64 `json:"cd"`
}

// nemenyiQ05 is q_0.05 for k = 2..10 methods (Demšar 2006, Table 5a).
var nemenyiQ05 = []float64{1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164}

// FriedmanTest ranks the methods on each data set, scores (N,k), and
// returns the Friedman test (see Friedman). Each row needs at least 2
// methods, every row the same number, every score finite.
func FriedmanTest(scores [][]float64, dir Direction) (Friedman, error) {
	n := len(scores)
	if n == 0 {
		return Friedman{}, errors.New("stats: Friedman: no data sets")
	}
	k := len(scores[0])
	if k < 2 {
		return Friedman{}, fmt.Errorf("stats: Friedman: %d methods; the test compares at least 2", k)
	}
	ranks := make([]float64, k)
	for i, row := range scores {
		if len(row) != k {
			return Friedman{}, fmt.Errorf("stats: Friedman: data set %d has %d scores, the first %d", i, len(row), k)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Friedman{}, fmt.Errorf("stats: Friedman: data set %d, method %d: score %v is not finite", i, j, v)
			}
		}
		for j, r := range rank(row, dir) {
			ranks[j] += r / float64(n)
		}
	}
	return friedmanOf(ranks, n), nil
}

// friedmanOf is the test from the average ranks of k methods over n
// data sets.
func friedmanOf(ranks []float64, n int) Friedman {
	k := len(ranks)
	kf, nf := float64(k), float64(n)
	var ss float64
	for _, r := range ranks {
		ss += r * r
	}
	f := Friedman{Ranks: ranks}
	f.ChiSquare = 12 * nf / (kf * (kf + 1)) * (ss - kf*(kf+1)*(kf+1)/4)
	switch den := nf*(kf-1) - f.ChiSquare; {
	case n < 2:
		f.PValue = 1 // one data set: nothing to test
	case den > 1e-12*nf*kf:
		f.FF = (nf - 1) * f.ChiSquare / den
		f.PValue = 1 - distuv.F{D1: kf - 1, D2: (kf - 1) * (nf - 1)}.CDF(f.FF)
	}
	if k-2 < len(nemenyiQ05) {
		f.CD = nemenyiQ05[k-2] * math.Sqrt(kf*(kf+1)/(6*nf))
	}
	return f
}

// rank returns the ranks of row (1 the best in dir), ties sharing the
// mean of their ranks.
func rank(row []float64, dir Direction) []float64 {
	idx := make([]int, len(row))
	for i := range idx {
		idx[i] = i
	}
	better := func(a, b float64) bool { return (dir == LowerIsBetter) == (a < b) && a != b }
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case better(row[a], row[b]):
			return -1
		case better(row[b], row[a]):
			return 1
		}
		return 0
	})
	out := make([]float64, len(row))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && row[idx[j+1]] == row[idx[i]] {
			j++
		}
		mid := float64(i+j)/2 + 1
		for q := i; q <= j; q++ {
			out[idx[q]] = mid
		}
		i = j + 1
	}
	return out
}
