// Package stats compares two arms of a benchmark, baseline and idea, seed by
// seed, and decides whether the idea wins.
//
// Design stance: the trials are paired (seed i of the idea shares data order
// and initialisation with seed i of the baseline), so every statement is
// about the per-seed differences d_i = idea_i - baseline_i, never about the
// two arms as independent samples. The p-value comes from the sign-flip
// permutation test, which assumes only that d_i is symmetric about zero under
// the null hypothesis, not that it is normal; the t distribution is used only
// for the minimum detectable effect, a power statement that needs a scale.
// Statistical caveats (too few seeds, an effect smaller than the MDE) are
// Warnings on the result, never errors: an underpowered study is still a
// result the report must show.
//
// Every number in a Comparison is finite, so the report's JSON can always
// hold it; where a quantity is undefined it is reported as 0 and a warning
// says so.
//
// Pipeline of Compare:
//
//  1. Validate: equal lengths, at least one pair, every value finite.
//  2. Differences d_i = idea_i - baseline_i, their mean, and the number of
//     seeds on which the idea is strictly better in the metric's Direction.
//  3. p-value of the sign-flip test: all 2^n sign vectors when
//     n <= Options.ExactMaxN, else Options.MonteCarloDraws seeded draws.
//  4. Minimum detectable effect from the Student-t quantile and the sample
//     standard deviation of d, absolute and relative to the baseline mean.
//  5. Verdict from p < Options.Alpha and the sign of the mean difference,
//     then the warnings.
//
// Shape legend: N seeds (paired trials). Every slice in this package is (N).
package stats
