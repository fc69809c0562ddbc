package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// A suite compares one idea with the baseline on K tracks, seeds nested
// in tracks. Each track is the two arms' sweeps (Arm, paired grids), and
// its effect on seed i is the log ratio of the two chosen cfgs' test
// metrics, signed so that a positive effect is an improvement:
//
//	e_ki = ln b_k,ĵb(i) - ln x_k,ĵx(i)    lower is better
//	e_ki = ln x_k,ĵx(i) - ln b_k,ĵb(i)    higher is better
//
// (100·(exp(e)-1) is the idea's improvement in percent). A log ratio
// compares across tracks whose metrics have different scales, and it is
// antisymmetric: swapping the arms negates it. Every track weighs the
// same in the suite's effect, whatever its number of seeds:
//
//	E = 1/K · Σ_k ē_k,    ē_k = 1/n_k · Σ_i e_ki
//
// Shape legend: K tracks, n_k seeds of track k, G_k cfgs of its grids.

// SuiteTrack is one track of a suite: both arms' sweeps over its seeds,
// paired grids of equal length (index j of the idea against index j of
// the baseline, as SelectionPValue takes them). Every test metric must be
// positive (its logarithm is taken).
type SuiteTrack struct {
	Baseline, Idea Arm
}

// SuiteOptions set a suite's statistics.
type SuiteOptions struct {
	// Alpha is the two-sided level of the test and of the intervals
	// (1 - Alpha); the equivalence test runs at Alpha each side.
	Alpha float64
	// ROPE is the half-width of the region of practical equivalence on
	// the log-ratio scale, > 0: effects within ±ROPE are too small to
	// matter (ln(1 + p/100) for an effect of p percent).
	ROPE float64
	// ExactMaxN, Draws and Seed set the permutation test: every
	// relabelling when the suite has at most ExactMaxN seeds in all, else
	// Draws seeded ones.
	ExactMaxN, Draws int
	// Boot is the number of stratified bootstrap resamples, Bayes the
	// number of posterior samples of the Bayesian signed-rank test.
	Boot, Bayes int
	Seed        uint64
	// Hier sets the sampler of the hierarchical model; Hier.Samples 0
	// leaves the model out.
	Hier HierarchicalOptions
}

// DefaultSuiteOptions are Alpha 0.05, a ROPE of minEffectPct percent,
// the permutation test exact up to 20 seeds and 20000 draws above,
// 10000 bootstrap resamples, 50000 posterior samples, the hierarchical
// model's DefaultHierarchicalOptions, seed 1.
func DefaultSuiteOptions(minEffectPct float64) SuiteOptions {
	return SuiteOptions{Alpha: 0.05, ROPE: math.Log1p(minEffectPct / 100), ExactMaxN: 20, Draws: 20000, Boot: 10000, Bayes: 50000, Seed: 1,
		Hier: DefaultHierarchicalOptions()}
}

func (o SuiteOptions) validate() error {
	switch {
	case !(o.Alpha > 0 && o.Alpha < 0.5):
		return fmt.Errorf("stats: SuiteOptions.Alpha = %v is outside (0,0.5); use 0.05", o.Alpha)
	case !(o.ROPE > 0) || math.IsInf(o.ROPE, 0):
		return fmt.Errorf("stats: SuiteOptions.ROPE = %v must be a finite log ratio > 0; use ln(1.01) for 1%%", o.ROPE)
	case o.ExactMaxN < 0 || o.ExactMaxN > maxExactN:
		return fmt.Errorf("stats: SuiteOptions.ExactMaxN = %d is outside [0,%d]", o.ExactMaxN, maxExactN)
	case o.Draws < 1 || o.Boot < 1 || o.Bayes < 1:
		return fmt.Errorf("stats: SuiteOptions: draws %d, bootstrap %d and posterior samples %d must be positive", o.Draws, o.Boot, o.Bayes)
	}
	return nil
}

// The verdicts of a suite (SuiteResult.Verdict).
const (
	SuiteBetter     = "better"
	SuiteWorse      = "worse"
	SuiteEquivalent = "practically equivalent"
	SuiteUndecided  = "undecided"
)

// SuiteResult is a suite's aggregate comparison. Effects are log ratios
// (positive: the idea is better); the *Pct fields are 100·(exp(·)-1).
type SuiteResult struct {
	// Effects holds e_ki, the chosen cfgs' per-seed effects of each
	// track, and TrackMeans ē_k; Mean is E, the suite's effect.
	Effects    [][]float64 `json:"effects"`
	TrackMeans []float64   `json:"track_means"`
	Mean       float64     `json:"mean"`
	MeanPct    float64     `json:"mean_pct"`

	// PValue is the two-sided p-value of the stratified selection-aware
	// permutation test (see Suite); Method and Draws say how it ran.
	PValue float64 `json:"p_value"`
	Method string  `json:"p_value_method"`
	Draws  int     `json:"p_value_draws,omitempty"`

	// Lo and Hi bound the stratified percentile bootstrap interval of E
	// at level 1 - Alpha; EqLo and EqHi at 1 - 2·Alpha, the interval of
	// the two one-sided tests of equivalence.
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
	EqLo float64 `json:"equivalence_lo"`
	EqHi float64 `json:"equivalence_hi"`

	// IQM is the interquartile mean of every seed's effect, pooled over
	// the tracks, with its bootstrap interval.
	IQM   float64 `json:"iqm"`
	IQMLo float64 `json:"iqm_lo"`
	IQMHi float64 `json:"iqm_hi"`

	// PoI is the average over tracks of the probability of improvement
	// (Intervals.PoI: the chance that the idea's test metric on a seed
	// drawn at random beats the baseline's on another), with its
	// bootstrap interval.
	PoI   float64 `json:"probability_of_improvement"`
	PoILo float64 `json:"probability_of_improvement_lo"`
	PoIHi float64 `json:"probability_of_improvement_hi"`

	// PWorse, PEquivalent and PBetter are the posterior probabilities of
	// the Bayesian signed-rank test on the track means (BayesSignedRank).
	PWorse      float64 `json:"p_worse"`
	PEquivalent float64 `json:"p_equivalent"`
	PBetter     float64 `json:"p_better"`
	// Hierarchical is the hierarchical model of seeds within tracks
	// (HierarchicalModel) on the effects, present from 2 tracks on when
	// the effects vary within every track (an idea that is exactly the
	// baseline on a track leaves the model out).
	Hierarchical *Hierarchical `json:"hierarchical,omitempty"`

	// ROPE is SuiteOptions.ROPE; Verdict is the three-way answer with
	// "undecided" (see Suite).
	ROPE    float64 `json:"rope"`
	Verdict string  `json:"verdict"`
}

// Suite returns the aggregate comparison of the tracks:
//
//   - The p-value of a stratified permutation test with the selection
//     inside it: under the null that the idea changes nothing, seed i of
//     track k is exchangeable between the arms (its whole sweep, val and
//     test of every cfg), independently across seeds and tracks. A
//     relabelling swaps the arms on some seeds of some tracks, each arm's
//     cfg is selected again on each track (Arm.Select), and
//
//     S(s) = |E(s)|,    p = #{s : S(s) >= S(1) - tol} / #relabellings
//
//     exact over every relabelling up to ExactMaxN seeds in all (one seed
//     held fixed: s and -s give the same S), else (1 + hits)/(1 + Draws)
//     over seeded draws (PCG stream 11); tol as in Compare. This is
//     SelectionPValue with the relabelling stratified by track (the
//     stratified permutation test of Good 2005, §3.5) and E as the
//     statistic; both run one engine (selectionTest), so on one track
//     Suite's p-value is SelectionPValue's on the arms' log metrics.
//
//   - Intervals of E and of the IQM from a stratified bootstrap (Agarwal et
//     al. 2021, "Deep Reinforcement Learning at the Edge of the
//     Statistical Precipice", §4): the tracks are kept, each track's seeds
//     resampled with replacement; the effects are those of the observed
//     choice of cfgs. The IQM is the mean of the pooled effects after
//     dropping ⌊N/4⌋ from each end (N = Σ n_k), as scipy's
//     trim_mean(x, 0.25).
//
//   - Equivalence by two one-sided tests at Alpha each (Schuirmann 1987):
//     the 1 - 2·Alpha interval [EqLo, EqHi] lies inside (-ROPE, ROPE).
//
//   - The Bayesian signed-rank test on the track means (BayesSignedRank),
//     and from 2 tracks on the hierarchical model of seeds within tracks
//     (HierarchicalModel).
//
// The verdict: "practically equivalent" when the equivalence test holds
// (even where the permutation test also rejects: a detectable effect too
// small to matter); else "better" or "worse" with p < Alpha, by the sign
// of E; else "undecided".
func Suite(tracks []SuiteTrack, dir Direction, o SuiteOptions) (SuiteResult, error) {
	if err := o.validate(); err != nil {
		return SuiteResult{}, err
	}
	if len(tracks) == 0 {
		return SuiteResult{}, errors.New("stats: Suite: no tracks")
	}
	logs := make([]SuiteTrack, len(tracks))
	r := SuiteResult{ROPE: o.ROPE}
	var e float64
	for k, t := range tracks {
		l, err := logTrack(t)
		if err != nil {
			return SuiteResult{}, fmt.Errorf("stats: Suite: track %d: %w", k, err)
		}
		logs[k] = l
		row := logEffects(l, dir)
		r.Effects = append(r.Effects, row)
		r.TrackMeans = append(r.TrackMeans, mean(row))
		e += mean(row)
	}
	r.Mean = e / float64(len(tracks))
	r.MeanPct = Pct(r.Mean)
	per := r.Effects

	// The permutation test, on the log metrics: logs are working copies.
	r.PValue, r.Method = selectionTest(logs, dir, o.ExactMaxN, o.Draws, o.Seed, suitePermStream)
	if r.Method == MethodMonteCarlo {
		r.Draws = o.Draws
	}

	// The stratified bootstrap of E, the IQM and the PoI.
	r.IQM = iqm(slices.Concat(per...))
	chosenB, chosenX := make([][]float64, len(tracks)), make([][]float64, len(tracks))
	for k, t := range tracks {
		chosenB[k] = t.Baseline.Test[t.Baseline.Select(dir)]
		chosenX[k] = t.Idea.Test[t.Idea.Select(dir)]
		r.PoI += poi(chosenB[k], chosenX[k], dir) / float64(len(tracks))
	}
	rng := rand.New(rand.NewPCG(o.Seed, suiteBootStream))
	means, iqms, pois := make([]float64, o.Boot), make([]float64, o.Boot), make([]float64, o.Boot)
	var pooled, rb, rx []float64
	for d := range o.Boot {
		pooled = pooled[:0]
		var e, p float64
		for k, row := range per {
			n := len(row)
			var s float64
			for range n {
				v := row[rng.IntN(n)]
				s += v
				pooled = append(pooled, v)
			}
			e += s / float64(n)
			rb, rx = rb[:0], rx[:0]
			for range n {
				rb = append(rb, chosenB[k][rng.IntN(n)])
			}
			for range n {
				rx = append(rx, chosenX[k][rng.IntN(n)])
			}
			p += poi(rb, rx, dir)
		}
		means[d], iqms[d], pois[d] = e/float64(len(per)), iqm(pooled), p/float64(len(per))
	}
	a := o.Alpha
	r.Lo, r.Hi = percentile(slices.Clone(means), a/2), percentile(slices.Clone(means), 1-a/2)
	r.EqLo, r.EqHi = percentile(slices.Clone(means), a), percentile(means, 1-a)
	r.IQMLo, r.IQMHi = percentile(slices.Clone(iqms), a/2), percentile(iqms, 1-a/2)
	r.PoILo, r.PoIHi = percentile(slices.Clone(pois), a/2), percentile(pois, 1-a/2)

	br := BayesSignedRank(r.TrackMeans, o.ROPE, o.Bayes, o.Seed)
	r.PWorse, r.PEquivalent, r.PBetter = br.Left, br.ROPE, br.Right
	if o.Hier.Samples > 0 && len(per) >= 2 {
		h := o.Hier
		h.Seed = o.Seed
		if hm, err := HierarchicalModel(per, o.ROPE, h); err == nil {
			r.Hierarchical = &hm
		}
	}
	r.Verdict = SuiteVerdict(r.PValue, r.Mean, r.EqLo, r.EqHi, o)
	return r, nil
}

// TrackEffects returns one track's per-seed effects as Suite computes
// them (e_ki above: each arm's cfg chosen by Arm.Select, the signed log
// ratio of their test metrics), after the same checks.
func TrackEffects(t SuiteTrack, dir Direction) ([]float64, error) {
	l, err := logTrack(t)
	if err != nil {
		return nil, fmt.Errorf("stats: TrackEffects: %w", err)
	}
	return logEffects(l, dir), nil
}

// logEffects is e_ki of track l, whose test metrics are logarithms
// (logTrack).
func logEffects(l SuiteTrack, dir Direction) []float64 {
	b, x := l.Baseline.Test[l.Baseline.Select(dir)], l.Idea.Test[l.Idea.Select(dir)]
	e := make([]float64, len(b))
	for i := range b {
		e[i] = effectSign(dir) * (b[i] - x[i])
	}
	return e
}

// effectSign is the sign of an effect ln b - ln x: positive when the
// idea is better in dir.
func effectSign(dir Direction) float64 {
	if dir == HigherIsBetter {
		return -1
	}
	return 1
}

// logTrack checks t (paired grids, finite val metrics, finite test
// metrics > 0) and returns a copy with the logarithms of its test
// metrics.
func logTrack(t SuiteTrack) (SuiteTrack, error) {
	if err := checkPaired(t.Baseline, t.Idea); err != nil {
		return SuiteTrack{}, err
	}
	b, x := clone(t.Baseline), clone(t.Idea)
	for _, a := range []Arm{b, x} {
		for j := range a.Test {
			for i, v := range a.Test[j] {
				if !(v > 0) || math.IsInf(v, 0) {
					return SuiteTrack{}, fmt.Errorf("cfg %d, seed %d: test metric %v; a log ratio needs finite metrics > 0", j, i, v)
				}
				a.Test[j][i] = math.Log(v)
			}
		}
	}
	return SuiteTrack{b, x}, nil
}

// SuiteVerdict is Suite's verdict from its p-value, its effect E and the
// equivalence interval [eqLo, eqHi].
func SuiteVerdict(p, mean, eqLo, eqHi float64, o SuiteOptions) string {
	switch {
	case eqLo > -o.ROPE && eqHi < o.ROPE:
		return SuiteEquivalent
	case p < o.Alpha && mean > 0:
		return SuiteBetter
	case p < o.Alpha && mean < 0:
		return SuiteWorse
	}
	return SuiteUndecided
}

// The PCG streams of a suite's draws.
const (
	suitePermStream  = 11
	suiteBootStream  = 12
	suiteBayesStream = 13
)

// checkPaired reports why b and x are not paired grids over one set of
// seeds.
func checkPaired(b, x Arm) error {
	g := len(b.Val)
	if g == 0 || len(x.Val) != g || len(b.Test) != g || len(x.Test) != g {
		return fmt.Errorf("the arms' grids have %d and %d cfgs; a suite needs paired grids of equal length", len(b.Val), len(x.Val))
	}
	n := len(b.Val[0])
	if n < 2 {
		return fmt.Errorf("%d seeds; a track needs at least 2", n)
	}
	for _, a := range []Arm{b, x} {
		for j := range g {
			if len(a.Val[j]) != n || len(a.Test[j]) != n || a.Diverged != nil && (len(a.Diverged) != g || len(a.Diverged[j]) != n) {
				return fmt.Errorf("every cfg needs the same %d seeds", n)
			}
			for i, v := range a.Val[j] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("cfg %d, seed %d: val metric %v is not finite", j, i, v)
				}
			}
		}
	}
	return nil
}

// Pct is 100·(exp(e)-1): a log ratio e of a suite (SuiteResult) as the
// percent change it stands for.
func Pct(e float64) float64 { return 100 * math.Expm1(e) }

// iqm is the interquartile mean of x: the mean after dropping ⌊n/4⌋
// values from each end of the sorted x (x itself is left unchanged).
func iqm(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	cut := len(s) / 4
	return mean(s[cut : len(s)-cut])
}

// BayesResult holds the posterior probabilities of the Bayesian
// signed-rank test: that the effect lies left of the ROPE (the idea is
// worse), inside it, or right of it (the idea is better).
type BayesResult struct{ Left, ROPE, Right float64 }

// BayesSignedRank is the Bayesian signed-rank test of Benavoli, Corani,
// Demšar and Zaffalon (2017, "Time for a change: a tutorial for comparing
// multiple classifiers through Bayesian analysis", JMLR 18(77), §5.2) on
// the effects z (one a data set: here a track's mean log ratio) with a
// region of practical equivalence (-rope, rope). The prior is a Dirichlet
// process of strength ½ with its pseudo-observation at z_0 = 0; the
// posterior of the weights of (z_0, z_1, ..., z_K) is Dirichlet(½, 1, ...,
// 1). A posterior sample w gives
//
//	θ_left  = Σ_{i,j} w_i·w_j·[z_i + z_j < -2·rope]
//	θ_rope  = Σ_{i,j} w_i·w_j·[-2·rope <= z_i + z_j <= 2·rope]
//	θ_right = Σ_{i,j} w_i·w_j·[z_i + z_j > 2·rope]
//
// (i, j over 0..K, i = j included), and each probability is the share of
// samples in which that θ is the largest (ties shared). Dirichlet
// weights are normalized Gamma variates: Gamma(1) is exponential,
// Gamma(½) is Z²/2 with Z standard normal. samples draws from
// rand.NewPCG(seed, 13).
//
// The posterior's mass lies on z_0, ..., z_K alone, so few effects do not
// spread it by themselves: effects all inside the ROPE give θ_rope = 1 in
// every sample and ROPE = 1 exactly, one effect or many. One effect z with
// rope < |z| <= 2·rope gives its side (1 - 2^(-½))^½ ≈ 0.54, one with
// |z| > 2·rope gives it 2^(-¼) ≈ 0.84 (TestBayesSignedRank derives both).
func BayesSignedRank(z []float64, rope float64, samples int, seed uint64) BayesResult {
	zs := append([]float64{0}, z...)
	n := len(zs)
	rng := rand.New(rand.NewPCG(seed, suiteBayesStream))
	w := make([]float64, n)
	var res BayesResult
	for range samples {
		g := rng.NormFloat64()
		w[0] = g * g / 2
		sum := w[0]
		for i := 1; i < n; i++ {
			w[i] = rng.ExpFloat64()
			sum += w[i]
		}
		var left, in, right float64
		for i := range n {
			for j := range n {
				p := w[i] * w[j] / (sum * sum)
				switch s := zs[i] + zs[j]; {
				case s > 2*rope:
					right += p
				case s < -2*rope:
					left += p
				default:
					in += p
				}
			}
		}
		best := max(left, in, right)
		var ties float64
		for _, v := range []float64{left, in, right} {
			if v == best {
				ties++
			}
		}
		if left == best {
			res.Left += 1 / ties
		}
		if in == best {
			res.ROPE += 1 / ties
		}
		if right == best {
			res.Right += 1 / ties
		}
	}
	s := float64(samples)
	return BayesResult{res.Left / s, res.ROPE / s, res.Right / s}
}
