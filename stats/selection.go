package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Arm is one arm's sweep: for each cfg of its grid, the per-seed val
// metrics (which selection ranks) and test metrics (which the comparison
// reads), (G,N) each, seeds in the same order in both arms. Diverged,
// (G,N) or nil for none, marks the trials whose training diverged (their
// metrics are then a substitute, the worst finite value).
type Arm struct {
	Val, Test [][]float64
	Diverged  [][]bool
}

// Select returns the protocol's choice of cfg: the fewest diverged seeds,
// then the best mean val metric, the first on ties.
func (a Arm) Select(dir Direction) int {
	best, bestDiv, bestMean := 0, 0, math.NaN()
	for j, v := range a.Val {
		m, d := mean(v), 0
		if a.Diverged != nil {
			for _, x := range a.Diverged[j] {
				if x {
					d++
				}
			}
		}
		better := (dir == LowerIsBetter && m < bestMean) || (dir == HigherIsBetter && m > bestMean)
		if j == 0 || d < bestDiv || d == bestDiv && better {
			best, bestDiv, bestMean = j, d, m
		}
	}
	return best
}

// SelectionPValue is the two-sided p-value of a paired permutation test
// that repeats the selection of each arm's cfg under every relabelling,
// so it stays valid when the arms pick different cfgs of paired grids.
//
// The paired sign-flip test (Compare) treats the chosen cfgs as fixed.
// When the idea does nothing, each arm's chosen cfg is still the noisy
// winner of its own val sweep, and the two often differ (another learning
// rate, say); the sign-flip test then detects the difference between
// those cfgs, which is real but is not the idea's. Here grid index j of
// the idea arm is paired with index j of the baseline (same length G):
// under the null that the idea changes nothing, a seed's whole sweep
// (val and test of every cfg) is exchangeable between the arms. For a
// relabelling s ∈ {±1}^N that swaps the arms on the seeds with s_i = -1,
// each arm's cfg is selected again (Select: diverged seeds, then the val
// means) on the swapped trials, and
//
//	S(s) = |1/N · Σ_i (x_{ĵx(s)}(i) - b_{ĵb(s)}(i))|      test metrics of the reselected cfgs
//	p    = #{s : S(s) >= S(1) - tol} / 2^N           exact for N <= opt.ExactMaxN
//	p    = (1 + #{draws with S >= S(1) - tol}) / (1 + draws)   Monte Carlo otherwise
//
// with tol as in Compare (the randomization test of Fisher 1935 with the
// selection step inside the statistic, as in the permutation treatment of
// data-dependent choices in Good 2005, §3). Swapping every seed swaps the
// arms, so s and -s give the same S. The draws come from
// rand.NewPCG(opt.Seed, 1). It is Suite's test on one track (selectionTest
// runs both).
func SelectionPValue(b, x Arm, dir Direction, opt *Options) (float64, error) {
	o := DefaultOptions()
	if opt != nil {
		o = *opt
	}
	if err := o.validate(); err != nil {
		return 0, err
	}
	g := len(b.Val)
	if g == 0 || len(x.Val) != g || len(b.Test) != g || len(x.Test) != g {
		return 0, fmt.Errorf("stats: SelectionPValue: the arms' grids have %d and %d cfgs; the test needs paired grids of equal length", len(b.Val), len(x.Val))
	}
	n := len(b.Val[0])
	if n == 0 {
		return 0, errors.New("stats: SelectionPValue: no seeds")
	}
	for _, a := range []Arm{b, x} {
		for j := range g {
			if len(a.Val[j]) != n || len(a.Test[j]) != n || a.Diverged != nil && (len(a.Diverged) != g || len(a.Diverged[j]) != n) {
				return 0, fmt.Errorf("stats: SelectionPValue: every cfg needs the same %d seeds", n)
			}
		}
	}
	track := SuiteTrack{Baseline: clone(b), Idea: clone(x)}
	p, _ := selectionTest([]SuiteTrack{track}, dir, o.ExactMaxN, o.MonteCarloDraws, o.Seed, 1)
	return p, nil
}

// selectionTest is the permutation engine of SelectionPValue (one
// stratum) and Suite (a stratum a track): the two-sided p-value of the
// selection-aware permutation test with the seeds of each stratum
// relabelled independently. A relabelling s swaps the arms' whole sweeps
// on the seeds with s_i = -1, each stratum's cfgs are selected again
// (Arm.Select), and with d_ki = x_k,ĵx(s)(i) - b_k,ĵb(s)(i),
//
//	S(s)  = |1/K · Σ_k 1/n_k · Σ_i d_ki|
//	tol   = tieRelTol · 1/K · Σ_k 1/n_k · Σ_i |d_ki|      at the observed labels
//	p     = #{s : S(s) >= S(1) - tol} / 2^(N-1)         exact, N = Σ n_k <= exactMaxN
//	p     = (1 + #{draws with S >= S(1) - tol}) / (1 + draws)   otherwise
//
// The exact count walks a Gray code over the first N-1 seeds, one swap a
// step (s and -s give the same S, so the last seed stays); a draw flips
// each seed with probability ½ from rand.NewPCG(seed, stream), one
// Uint64 a seed in order. strata must be working copies with Diverged
// allocated (clone): they are swapped in place, and every swap is undone
// before selectionTest returns.
func selectionTest(strata []SuiteTrack, dir Direction, exactMaxN, draws int, seed, stream uint64) (p float64, method string) {
	type seedRef struct{ k, i int }
	var seeds []seedRef
	for k, t := range strata {
		for i := range t.Baseline.Val[0] {
			seeds = append(seeds, seedRef{k, i})
		}
	}
	swap := func(q int) {
		t, i := strata[seeds[q].k], seeds[q].i
		for j := range t.Baseline.Val {
			t.Baseline.Val[j][i], t.Idea.Val[j][i] = t.Idea.Val[j][i], t.Baseline.Val[j][i]
			t.Baseline.Test[j][i], t.Idea.Test[j][i] = t.Idea.Test[j][i], t.Baseline.Test[j][i]
			t.Baseline.Diverged[j][i], t.Idea.Diverged[j][i] = t.Idea.Diverged[j][i], t.Baseline.Diverged[j][i]
		}
	}
	stat := func() (s, scale float64) {
		var e float64
		for _, t := range strata {
			b, x := t.Baseline.Test[t.Baseline.Select(dir)], t.Idea.Test[t.Idea.Select(dir)]
			n := float64(len(b))
			var sum float64
			for i := range b {
				d := x[i] - b[i]
				sum += d
				scale += math.Abs(d) / n
			}
			e += sum / n
		}
		k := float64(len(strata))
		return math.Abs(e / k), scale / k
	}
	obs, scale := stat()
	tol := tieRelTol * scale
	hits := 0
	total := len(seeds)
	if total <= exactMaxN {
		half := 1 << (total - 1)
		for k := range half {
			if k > 0 {
				swap(trailingZeros(k))
			}
			if s, _ := stat(); s >= obs-tol {
				hits++
			}
		}
		// Undo the Gray code's swaps: after 2^(N-1)-1 steps it sits at
		// the code of 2^(N-1)-1, bit N-2 alone set.
		if total > 1 {
			swap(total - 2)
		}
		return float64(hits) / float64(half), MethodExact
	}
	rng := rand.New(rand.NewPCG(seed, stream))
	flip := make([]bool, total)
	for range draws {
		for q := range flip {
			flip[q] = rng.Uint64()&1 == 1
			if flip[q] {
				swap(q)
			}
		}
		if s, _ := stat(); s >= obs-tol {
			hits++
		}
		for q, f := range flip {
			if f {
				swap(q)
			}
		}
	}
	return float64(1+hits) / float64(1+draws), MethodMonteCarlo
}

// trailingZeros is the index of the bit a Gray code flips at step k >= 1.
func trailingZeros(k int) int {
	i := 0
	for k&1 == 0 {
		k >>= 1
		i++
	}
	return i
}

// clone copies a, with Diverged allocated (all false where a has none),
// so that a relabelling can swap it.
func clone(a Arm) Arm {
	c := Arm{Val: make([][]float64, len(a.Val)), Test: make([][]float64, len(a.Test)), Diverged: make([][]bool, len(a.Val))}
	for j := range a.Val {
		c.Val[j] = append([]float64(nil), a.Val[j]...)
		c.Test[j] = append([]float64(nil), a.Test[j]...)
		c.Diverged[j] = make([]bool, len(a.Val[j]))
		if a.Diverged != nil {
			copy(c.Diverged[j], a.Diverged[j])
		}
	}
	return c
}
