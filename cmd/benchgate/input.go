package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/perf/benchfmt"
)

// recordHint says how to produce a file benchgate can read.
const recordHint = "save the output of `go test -run '^$' -bench . -count 10 ./... > FILE`"

// input is one benchmark file, read whole.
type input struct {
	// Path is the file name as given on the command line.
	Path string
	// Results are the benchmark lines, in file order.
	Results []*benchfmt.Result
	// Units is the metadata of `Unit` lines, keyed by tidied unit.
	Units benchfmt.UnitMetadataMap
}

// readInput reads a benchfmt file. Malformed Benchmark lines are reported
// to warn and skipped, as benchstat does; a file without a single result
// is an error.
func readInput(path string, warn io.Writer) (*input, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read benchmark file: %w; %s", err, recordHint)
	}
	defer f.Close()
	in := &input{Path: path}
	r := benchfmt.NewReader(f, path)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			fmt.Fprintf(warn, "benchgate: warning: %v (line skipped)\n", rec)
		case *benchfmt.Result:
			// The reader reuses rec for the next line.
			in.Results = append(in.Results, rec.Clone())
		}
	}
	if err := r.Err(); err != nil {
		return nil, fmt.Errorf("cannot read benchmark file %s: %w", path, err)
	}
	if len(in.Results) == 0 {
		return nil, fmt.Errorf("%s holds no benchmark results (no line like \"BenchmarkFoo-8  1000  1234 ns/op\"); %s", path, recordHint)
	}
	in.Units = r.Units()
	return in, nil
}
