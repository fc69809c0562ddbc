// Package compare compares arms whose trials ran elsewhere, from their
// per-seed metrics (Compare: one Row per arm, cfg and seed), with the
// statistics of a run's report: each arm's cfg by mean val metric, the
// selection-aware test, intervals, power, Holm across idea arms and the
// verdicts (derive.CompareArms, the code a run's report uses).
//
// The rows come from sources, each recorded in the report with the
// SHA-256 of its bytes (report.ComparedSource):
//
//  1. ReadMetrics reads one file of per-seed metrics (CSV or JSON,
//     ParseRows); ReadReports reads arms of verified run reports.
//  2. Compare derives the report from the rows and the settings.
//  3. Verify derives it again from the inputs it holds and compares the
//     whole tree; VerifyWithSources also reads every source that is there
//     again, by the code of step 1, and names each input that differs.
//
// What it cannot give is what needs the track: the reference forecasters,
// competence and informativeness; an external trainer (protocol.Trainer)
// gives those too.
package compare
