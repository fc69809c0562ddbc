// Package suite runs one comparison of an idea with the baseline on many
// tracks and gives one verdict over all of them.
//
// A win on one track is weak evidence. A suite (suitereport.Spec: the
// built-in Default and CI, or a JSON file) names tracks (synthetic ones,
// or known data sets found by name under a data directory and skipped
// with a note when absent); Run runs each as `ideabench run` does, its trials stored,
// resumed and sharded alike, and writes each track's report beside the
// suite report.
//
// The aggregate (stats.Suite) puts every track on one scale, the log ratio
// of the two arms' test metrics (positive: the idea is better), weighs the
// tracks equally with their seeds nested in them, and answers three ways
// at the suite's minimum effect: better, worse, practically equivalent,
// or undecided. Its p-value comes from a permutation test stratified by
// track that repeats each arm's choice of cfg under every relabelling, so
// it holds its level when the arms tune on validation; bootstrap
// intervals, the interquartile mean, the probability of improvement and
// the Bayesian signed-rank test stand beside it.
//
// Only tracks whose report says they can judge an idea
// (report.Informativeness.CanJudge), and where the idea acted (not
// report.Comparison.IdeaInert), enter the aggregate unless the spec says
// include_all; the others are listed with the reason. Confirmation
// tracks (suitereport.TrackSpec.Confirm) run after the development
// tracks and are aggregated apart, as held-out workloads.
//
// The suite report's schema, with its reading and writing, is package
// suitereport, which a reader of reports imports without this runner.
// Verify re-derives the suite report from the track reports it names,
// which it verifies on their own.
package suite
