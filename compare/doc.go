// Package compare compares arms whose trials ran elsewhere, from their
// per-seed metrics (Compare: one Row per arm, cfg and seed), with the
// statistics of a run's report: each arm's cfg by mean val metric, the
// selection-aware test, intervals, power, Holm across idea arms and the
// verdicts (derive.CompareArms, the code a run's report uses). Verify
// derives such a report again from the metrics it holds.
//
// What it cannot give is what needs the track: the reference forecasters,
// competence and informativeness; an external trainer (protocol.Trainer)
// gives those too.
package compare
