// Package harness runs the seeded protocol that compares an idea with a
// tuned baseline and writes, reads and verifies its JSON report.
//
// Design stance: a trial (one cfg of one arm on one seed) is a pure
// function of the protocol, the cfg and the seed, so trials run in any
// order, on any number of workers or machines, are stored under a content
// address and reused, and the report is the same bytes whatever ran them.
// Everything the report derives from trials, Verify derives again.
//
// The pipeline (Run):
//
//  1. Protocol: a profile (FullProfile, SeedProfile, CIProfileFor) with a
//     config file over it, validated field by field (Protocol.Validate).
//  2. Data: the track from its seed or file (Protocol.Data).
//  3. Trials: every cfg of the baseline, the idea and any further idea
//     arm on every seed (TrainTrial: AdamW under a learning-rate
//     schedule, per-epoch validation, early stopping), reused from and
//     saved to a Store as they finish; Merge assembles sharded runs.
//  4. Selection (Derive, from the report's Inputs: the trials' results
//     and the reference forecasters): each arm's cfg with the lowest mean
//     val metric.
//  5. Comparison: the chosen cfgs' per-seed test metrics, paired by seed
//     (package stats), decided by the selection-aware test, which repeats
//     each arm's choice under every relabelling of the seeds (the seed
//     profile keeps the seed report's sign-flip test); Holm-adjusted
//     across idea arms.
//  6. Report: the seed report's fields plus the sweep's val summaries, the
//     reference forecasters and the baseline's competence, the mechanism
//     signature and math check, training curves, warnings, a sequential
//     design's looks, and the digests of the inputs.
//  7. Verify reads the inputs back out of a report, runs Derive again and
//     compares the two leaf by leaf.
//
// Control repeats the comparison on disjoint seed blocks against a
// control idea (the A/A control, or an idea known to help) to measure the
// protocol's false-positive rate or power.
package harness
