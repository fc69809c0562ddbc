// Package ideabench is a benchmark harness that tells a researcher whether
// an architectural idea beats a tuned baseline: seeded sweeps of both arms,
// selection on validation, a paired seed-by-seed comparison on test, the
// idea's mechanism signature and a math check, in one JSON report.
//
// The pipeline runs track -> transformer (+gate) -> harness -> stats ->
// report; cmd/ideabench is the command line. bench_test.go in this folder
// runs the seeded protocol under `go test -run Bench` and snapshot-tests
// the report against the golden files in golden/.
package ideabench
