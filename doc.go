// Package ideabench is a benchmark harness that tells a researcher whether
// an architectural idea beats a tuned baseline: seeded sweeps of both arms,
// selection on validation, a paired seed-by-seed comparison on test, the
// idea's mechanism signature and a math check, in one JSON report.
//
// Data flows track -> transformer (+idea) -> trial -> derive (with stats)
// -> report, run by harness (one track) and suite (many), drawn by plots,
// which reads a report without the trainer; cmd/ideabench is the command
// line. bench_test.go in this folder
// runs the seeded protocol under `go test -run Bench` and snapshot-tests
// the report against the golden files in golden/.
package ideabench
