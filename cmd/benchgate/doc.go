// Command benchgate fails a build when a Go benchmark got significantly
// and materially worse between two runs.
//
//	benchgate [-threshold 10] [-alpha 0.05] [-metric sec/op] old.txt new.txt
//
// old.txt and new.txt are saved outputs of `go test -bench . -count 10`
// (the benchfmt format; test output, PASS and ok lines are skipped).
// benchgate is benchstat's A/B comparison turned into a verdict: it uses
// the same golang.org/x/perf packages, so its medians and p-values match
// `go tool benchstat old.txt new.txt`.
//
// The stance: fail only on a change that is both real and large. Noise
// is filtered by the significance test, harmless real changes by the
// threshold. A benchmark regresses when
//
//	p < alpha                      (Mann-Whitney U test, as benchstat)
//	worse% > threshold             worse% = +100*(new/old - 1)  if lower is better
//	                                        -100*(new/old - 1)  if higher is better
//
// where old and new are the medians of the metric over the -count runs.
//
// The pipeline:
//
//  1. Read each file with benchfmt; units are tidied as benchstat does,
//     so ns/op is read as sec/op and MB/s as B/s.
//  2. Group the values of -metric by benchproc key "pkg,.fullname": the
//     package and the full name, sub-benchmark keys and -N GOMAXPROCS
//     suffix included, so Foo/n=64-8 pairs only with Foo/n=64-8. Other
//     file configuration (goos, goarch, cpu) is residue: if it varies
//     the row gets a note, as benchstat warns, but is still compared.
//  3. For each benchmark in both files compute the centres and the test
//     with the unit's benchmath assumption: AssumeNothing (median,
//     U test) unless a `Unit M assume=exact` line declares the metric
//     exact.
//  4. Print a table per package with footnotes, the regressions, and
//     exit.
//
// Which direction is better, decided on the tidied unit, first match wins:
//
//   - a `Unit M better=higher` or `better=lower` line in either file;
//   - lower: sec/op (ns/op), B/op, allocs/op, and any unit starting with
//     s/, sec/, ms/, us/ or µs/ (a time per something; ns/elem is tidied
//     to sec/elem);
//   - higher: B/s (MB/s), and any other unit ending in /s (a rate:
//     GFLOP/s, steps/s);
//   - otherwise benchgate refuses the metric (exit 2) and asks for a
//     Unit line.
//
// Benchmarks in only one file are listed as "only in old" or "only in
// new" and never fail the gate. A benchmark whose sample sizes cannot
// reach p < alpha at all (with -count 1, or 3 against 3 at alpha 0.05)
// is reported as "too few samples" with benchmath's warning and never
// fails the gate: rerun with -count 10.
//
// Exit status: 0 when nothing regressed, 1 when a benchmark regressed,
// 2 for a usage error, a file that cannot be read or holds no benchmark
// results, a metric missing from a file or of unknown direction, or no
// benchmark present in both files.
package main
