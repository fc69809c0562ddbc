package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// Direction says which way a metric improves.
type Direction int

const (
	// LowerIsBetter is for losses and errors (MSE, MAE): the idea improves
	// on seed i when idea_i < baseline_i.
	LowerIsBetter Direction = iota
	// HigherIsBetter is for scores (accuracy, R²): the idea improves on
	// seed i when idea_i > baseline_i.
	HigherIsBetter
)

// String returns the report's metric_direction text, "lower is better" or
// "higher is better".
func (d Direction) String() string {
	switch d {
	case LowerIsBetter:
		return "lower is better"
	case HigherIsBetter:
		return "higher is better"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// ParseDirection is the inverse of Direction.String: it accepts exactly
// "lower is better" or "higher is better".
func ParseDirection(s string) (Direction, error) {
	for _, d := range []Direction{LowerIsBetter, HigherIsBetter} {
		if s == d.String() {
			return d, nil
		}
	}
	return 0, fmt.Errorf("stats: metric direction %q is unknown; use %q or %q", s, LowerIsBetter, HigherIsBetter)
}

// Verdict texts of a Comparison.
const (
	// VerdictWin: p < Alpha and the idea is better on average.
	VerdictWin = "significant win"
	// VerdictLoss: p < Alpha and the idea is worse on average.
	VerdictLoss = "significant loss"
	// VerdictNoWin: anything else, including too few pairs to test.
	VerdictNoWin = "no significant win"
)

// p-value methods of a Comparison.
const (
	// MethodExact: all 2^N sign vectors were enumerated.
	MethodExact = "exact"
	// MethodMonteCarlo: Options.MonteCarloDraws random sign vectors.
	MethodMonteCarlo = "monte-carlo"
)

// Warnings that Compare may attach to a Comparison. Each entry of
// Comparison.Warnings wraps one of these, so test with errors.Is.
var (
	// ErrTooFewPairs: fewer than two pairs, so no test can reject; the
	// verdict is VerdictNoWin and PValue is 1.
	ErrTooFewPairs = errors.New("stats: too few paired seeds")
	// ErrMDEUndefined: fewer than two pairs leave the spread of the
	// differences undefined; MDE and MDERelPct are reported as 0.
	ErrMDEUndefined = errors.New("stats: MDE undefined")
	// ErrUnreachableAlpha: the smallest p-value the test can return is not
	// below Alpha, so no data could give a significant verdict.
	ErrUnreachableAlpha = errors.New("stats: significance unreachable")
	// ErrBelowMDE: |DeltaMean| is smaller than the MDE, so the study cannot
	// tell an effect of this size from seed noise.
	ErrBelowMDE = errors.New("stats: effect below MDE")
	// ErrRelativeMDEUndefined: the baseline mean is 0, so MDERelPct is
	// undefined and reported as 0.
	ErrRelativeMDEUndefined = errors.New("stats: relative MDE undefined")
)

// maxExactN bounds Options.ExactMaxN: the exact test visits 2^(N-1) sign
// vectors of N terms each, about 1.6·10^10 additions at N = 30, which is
// tens of seconds; beyond that Monte Carlo is the only sane choice.
const maxExactN = 30

// tieRelTol is the relative tolerance of the ">=" in the sign-flip count.
// Summing N terms in floating point errs by at most (N-1)·u·Σ|d_i| with
// u = 2^-53 (Higham 2002, "Accuracy and Stability of Numerical
// Algorithms", 2nd ed., §4.2), so two sums that are equal in exact
// arithmetic differ by at most 2(N-1)·u·Σ|d_i|. 1e-12 covers that for
// N up to about 4500 while staying far below any difference a benchmark
// metric can resolve.
const tieRelTol = 1e-12

// Options configures Compare. The zero value is not valid; start from
// DefaultOptions.
type Options struct {
	// Alpha is the two-sided significance level, in (0,1).
	Alpha float64
	// ExactMaxN is the largest number of pairs for which the sign-flip test
	// enumerates all 2^N sign vectors; above it the test uses Monte Carlo.
	// In [0, 30].
	ExactMaxN int
	// MonteCarloDraws is the number of random sign vectors of the Monte
	// Carlo test, at least 1.
	MonteCarloDraws int
	// Seed seeds the Monte Carlo generator, rand.NewPCG(Seed, 0), so a
	// Comparison is reproducible.
	Seed uint64
}

// DefaultOptions returns Alpha 0.05 (the conventional level of Fisher 1925,
// "Statistical Methods for Research Workers", §III.12), ExactMaxN
// 20 (2^19 vectors, milliseconds), MonteCarloDraws 100000 (standard error of
// p at most 0.5/sqrt(100000) ≈ 0.0016) and Seed 1.
func DefaultOptions() Options {
	return Options{Alpha: 0.05, ExactMaxN: 20, MonteCarloDraws: 100000, Seed: 1}
}

// Method says how the permutation tests of this package (Compare,
// SelectionPValue) compute the p-value of n seeds: MethodExact and 0
// draws when n <= ExactMaxN, else MethodMonteCarlo and MonteCarloDraws.
func (o Options) Method(n int) (method string, draws int) {
	if n <= o.ExactMaxN {
		return MethodExact, 0
	}
	return MethodMonteCarlo, o.MonteCarloDraws
}

func (o *Options) validate() error {
	if err := CheckAlpha(o.Alpha); err != nil {
		return fmt.Errorf("stats: Options.Alpha = %v: %w", o.Alpha, err)
	}
	if o.ExactMaxN < 0 || o.ExactMaxN > maxExactN {
		return fmt.Errorf("stats: Options.ExactMaxN = %d is outside [0,%d]; use 20 and let larger studies run Monte Carlo", o.ExactMaxN, maxExactN)
	}
	if o.MonteCarloDraws < 1 {
		return fmt.Errorf("stats: Options.MonteCarloDraws = %d is not positive; use 100000", o.MonteCarloDraws)
	}
	return nil
}

// Comparison is the report's "comparison" block plus the p-value method,
// draws and warnings.
type Comparison struct {
	// DeltaMean is mean(idea - baseline); negative is an improvement for
	// LowerIsBetter, positive for HigherIsBetter.
	DeltaMean float64
	// IdeaWins counts the seeds on which the idea is strictly better in the
	// metric's Direction; a tie (equal values) is not a win.
	IdeaWins int
	// NPairs is the number of paired seeds N.
	NPairs int
	// PerSeedDiffs is idea_i - baseline_i, (N).
	PerSeedDiffs []float64
	// PValue is the two-sided sign-flip permutation p-value: exact when
	// N <= Options.ExactMaxN, else seeded Monte Carlo. 1 when N < 2.
	PValue float64
	// PValueMethod is MethodExact or MethodMonteCarlo.
	PValueMethod string
	// PValueDraws is the number of Monte Carlo draws; 0 when exact.
	PValueDraws int
	// MDE is the minimum detectable effect of the differences at
	// Options.Alpha (see MDE); 0 when N < 2.
	MDE float64
	// MDERelPct is 100·MDE/|mean(baseline)|; 0 when N < 2 or the baseline
	// mean is 0.
	MDERelPct float64
	// Verdict is VerdictWin, VerdictLoss or VerdictNoWin.
	Verdict string
	// Warnings are statistical caveats, not failures; each wraps one of the
	// Err* warnings of this package.
	Warnings []error
}

// Compare compares the per-seed results of the two arms, baseline and idea,
// both (N) with entry i from seed i, for a metric that improves in direction
// dir. A nil opt means DefaultOptions(). The inputs are not modified.
//
// It returns an error when the lengths differ, N is 0, a value is NaN or
// ±Inf, dir is unknown or opt is invalid.
//
// With d_i = idea_i - baseline_i, the p-value is that of the paired
// sign-flip permutation test (Fisher 1935, "The Design of Experiments",
// §21; Good 2005, "Permutation, Parametric and Bootstrap Tests of
// Hypotheses", 3rd ed., §3.7.2): under the null hypothesis each d_i is as
// likely to carry either sign, so for sign vectors s ∈ {±1}^N
//
//	S(s) = |Σ s_i d_i|                        (|mean| times N, same ranking)
//	tol  = 1e-12 · Σ |d_i|
//	p    = #{s : S(s) >= S(1) - tol} / 2^N    exact, counts s = 1 itself
//	p    = (1 + #{draws with S >= S(1) - tol}) / (1 + draws)   Monte Carlo
//
// The Monte Carlo form is the exact p-value of a test that includes the
// observed vector among the draws, so it is never 0 (Phipson & Smyth 2010,
// "Permutation p-values should never be zero", Stat. Appl. Genet. Mol.
// Biol. 9(1)).
func Compare(baseline, idea []float64, dir Direction, opt *Options) (Comparison, error) {
	o := DefaultOptions()
	if opt != nil {
		o = *opt
	}
	if err := o.validate(); err != nil {
		return Comparison{}, err
	}
	if dir != LowerIsBetter && dir != HigherIsBetter {
		return Comparison{}, fmt.Errorf("stats: direction %v is unknown; use LowerIsBetter or HigherIsBetter", dir)
	}
	n := len(baseline)
	if len(idea) != n {
		return Comparison{}, fmt.Errorf("stats: baseline has %d seeds but idea has %d; run both arms on the same seed list", n, len(idea))
	}
	if n == 0 {
		return Comparison{}, errors.New("stats: no paired seeds; run at least 2 seeds per arm")
	}
	for _, arm := range []struct {
		name string
		x    []float64
	}{{"baseline", baseline}, {"idea", idea}} {
		for i, v := range arm.x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Comparison{}, fmt.Errorf("stats: %s[%d] = %v is not finite; rerun seed index %d or drop it from both arms", arm.name, i, v, i)
			}
		}
	}

	c := Comparison{NPairs: n, PerSeedDiffs: make([]float64, n)}
	for i := range c.PerSeedDiffs {
		d := idea[i] - baseline[i]
		c.PerSeedDiffs[i] = d
		if (dir == LowerIsBetter && d < 0) || (dir == HigherIsBetter && d > 0) {
			c.IdeaWins++
		}
	}
	c.DeltaMean = mean(c.PerSeedDiffs)

	// Smallest p the test can return: the observed vector and its mirror
	// when exact, the observed vector alone among the draws otherwise.
	var minP float64
	c.PValueMethod, c.PValueDraws = o.Method(n)
	if c.PValueMethod == MethodExact {
		c.PValue = signFlipExact(c.PerSeedDiffs)
		minP = math.Ldexp(1, 1-n)
	} else {
		rng := rand.New(rand.NewPCG(o.Seed, 0))
		c.PValue = signFlipMonteCarlo(c.PerSeedDiffs, o.MonteCarloDraws, rng)
		minP = 1 / float64(1+o.MonteCarloDraws)
	}

	c.Verdict = VerdictOf(c.PValue, c.DeltaMean, o.Alpha, dir, n)

	if n < 2 {
		c.PValue = 1
		c.Warnings = append(c.Warnings,
			fmt.Errorf("%w: n = %d pair cannot be tested, p is reported as 1; run at least 6 seeds per arm (2/2^6 < 0.05)", ErrTooFewPairs, n),
			fmt.Errorf("%w: n = %d pair has no spread, MDE is reported as 0", ErrMDEUndefined, n))
		return c, nil
	}
	if minP >= o.Alpha {
		c.Warnings = append(c.Warnings, fmt.Errorf("%w: with n = %d pairs the smallest attainable p is %.4g >= alpha = %v; run more seeds",
			ErrUnreachableAlpha, n, minP, o.Alpha))
	}
	c.MDE = MDE(c.PerSeedDiffs, o.Alpha)
	if bm := math.Abs(mean(baseline)); bm > 0 {
		c.MDERelPct = 100 * c.MDE / bm
	} else {
		c.Warnings = append(c.Warnings, fmt.Errorf("%w: baseline mean is 0, MDERelPct is reported as 0", ErrRelativeMDEUndefined))
	}
	if math.Abs(c.DeltaMean) < c.MDE {
		c.Warnings = append(c.Warnings, fmt.Errorf("%w: |delta_mean| = %.4g is below MDE = %.4g; the seeds cannot resolve an effect this small, run more seeds",
			ErrBelowMDE, math.Abs(c.DeltaMean), c.MDE))
	}
	return c, nil
}

// VerdictOf is the verdict rule: a significant win when n >= 2, p <
// alpha and the mean difference favours the idea, a significant loss
// when it favours the baseline, else no significant win. Compare applies
// it to its p-value; a caller applies it to an adjusted one (Holm).
func VerdictOf(p, deltaMean, alpha float64, dir Direction, n int) string {
	better := (dir == LowerIsBetter && deltaMean < 0) || (dir == HigherIsBetter && deltaMean > 0)
	worse := (dir == LowerIsBetter && deltaMean > 0) || (dir == HigherIsBetter && deltaMean < 0)
	switch {
	case n >= 2 && p < alpha && better:
		return VerdictWin
	case n >= 2 && p < alpha && worse:
		return VerdictLoss
	}
	return VerdictNoWin
}

// signFlipExact returns the exact two-sided sign-flip p-value of d, (N),
// 1 <= N <= maxExactN. Flipping every sign negates each partial sum exactly
// (IEEE rounding is symmetric), so a vector and its mirror have bit-identical
// S; it therefore enumerates only the 2^(N-1) vectors whose last sign is +.
func signFlipExact(d []float64) float64 {
	n := len(d)
	obs, tol := flipStatistic(d, []uint64{0}), tieRelTol*sumAbs(d)
	half := uint64(1) << (n - 1)
	hits := 0
	mask := []uint64{0}
	for m := range half {
		mask[0] = m
		if flipStatistic(d, mask) >= obs-tol {
			hits++
		}
	}
	return float64(hits) / float64(half)
}

// signFlipMonteCarlo returns the Monte Carlo sign-flip p-value of d, (N),
// from draws random sign vectors of rng.
func signFlipMonteCarlo(d []float64, draws int, rng *rand.Rand) float64 {
	words := make([]uint64, (len(d)+63)/64)
	obs, tol := flipStatistic(d, make([]uint64, len(words))), tieRelTol*sumAbs(d)
	hits := 0
	for range draws {
		for w := range words {
			words[w] = rng.Uint64()
		}
		if flipStatistic(d, words) >= obs-tol {
			hits++
		}
	}
	return float64(1+hits) / float64(1+draws)
}

// flipStatistic returns |Σ s_i d_i|, d (N), where s_i = -1 when bit i of
// the bit vector flip is set and +1 otherwise. The sum runs in index order
// so the observed statistic (no bits set) is bit-identical to the vector
// that reproduces it.
func flipStatistic(d []float64, flip []uint64) float64 {
	var s float64
	for i, v := range d {
		if flip[i/64]>>(i%64)&1 == 1 {
			s -= v
		} else {
			s += v
		}
	}
	return math.Abs(s)
}

// sumAbs returns Σ |x_i|, x (N): the largest |Σ s_i x_i| any sign vector
// reaches, hence the scale of the tie tolerance.
func sumAbs(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += math.Abs(v)
	}
	return s
}
