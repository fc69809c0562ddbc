// Package derive computes every field of a report from its inputs
// (Derive: the protocol, the trials' results, the reference forecasters)
// and checks a report by computing it again (Verify).
//
// Derive picks each arm's cfg by mean validation metric, compares the
// chosen cfgs seed by seed (the selection-aware test, intervals, power,
// Holm across idea arms), judges the baseline's competence and the
// track's informativeness, reads the mechanism signature, runs the math
// check and the sequential design's looks, and collects the warnings.
// Verify reads the inputs back out of a report (or from the trial
// records), runs Derive and compares the two leaf by leaf, so one copy of
// the arithmetic serves both.
package derive
