package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"golang.org/x/perf/benchmath"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitPass      = 0
	exitRegressed = 1
	exitUsage     = 2 // bad flags or arguments, unreadable or unusable input
)

// options configure a comparison.
type options struct {
	// Metric is the unit compared, as go test prints it ("sec/op",
	// "ns/op", "ms/step", "GFLOP/s").
	Metric string
	// Alpha is the significance level: a change counts only if p < Alpha.
	Alpha float64
	// Threshold is how many percent worse a significant change must be
	// to fail the gate.
	Threshold float64
}

// defaultOptions are benchstat's unit and alpha with a 10% threshold,
// well above the 1-3% run-to-run noise of a quiet machine.
var defaultOptions = options{
	Metric:    "sec/op",
	Alpha:     benchmath.DefaultThresholds.CompareAlpha,
	Threshold: 10,
}

const usage = `usage: benchgate [-threshold 10] [-alpha 0.05] [-metric sec/op] old.txt new.txt

benchgate compares two saved outputs of 'go test -bench . -count 10' and
exits 1 if a benchmark is significantly (p < alpha) and more than
threshold percent worse in new.txt; 0 otherwise, 2 on bad input.
See 'go doc ./cmd/benchgate'.

`

// run is the whole command; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	opts, paths, err := parseArgs(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitPass
	}
	if err != nil {
		fmt.Fprintf(stderr, "benchgate: %v\nrun 'benchgate -h' for usage\n", err)
		return exitUsage
	}
	var in [2]*input
	for i, path := range paths {
		if in[i], err = readInput(path, stderr); err != nil {
			fmt.Fprintln(stderr, "benchgate:", err)
			return exitUsage
		}
	}
	rep, err := compare(in[0], in[1], opts)
	if err != nil {
		fmt.Fprintln(stderr, "benchgate:", err)
		return exitUsage
	}
	rep.write(stdout)
	if len(rep.regressions()) > 0 {
		return exitRegressed
	}
	return exitPass
}

// parseArgs parses the flags and the two file names. Flags must come
// before the files, as with every Go command.
func parseArgs(args []string, stderr io.Writer) (options, []string, error) {
	opts := defaultOptions
	fs := flag.NewFlagSet("benchgate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&opts.Metric, "metric", opts.Metric, "compare this `unit` (sec/op, ms/step, GFLOP/s, B/op, ...)")
	fs.Float64Var(&opts.Alpha, "alpha", opts.Alpha, "a change is significant if p < `α`")
	fs.Float64Var(&opts.Threshold, "threshold", opts.Threshold, "fail if a significant change is worse by more than `percent`")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stderr, usage)
			fs.SetOutput(stderr)
			fs.PrintDefaults()
		}
		return opts, nil, err
	}
	switch {
	case fs.NArg() != 2:
		return opts, nil, fmt.Errorf("want 2 files (old.txt new.txt) after the flags, got %d: %q", fs.NArg(), fs.Args())
	case opts.Metric == "":
		return opts, nil, errors.New("-metric is empty; pass a unit such as sec/op")
	case !(opts.Alpha > 0 && opts.Alpha <= 1):
		return opts, nil, fmt.Errorf("-alpha %v is outside (0, 1]; 0.05 is usual", opts.Alpha)
	case !(opts.Threshold >= 0) || math.IsInf(opts.Threshold, 1):
		return opts, nil, fmt.Errorf("-threshold %v must be a percentage >= 0, such as 10", opts.Threshold)
	}
	return opts, fs.Args(), nil
}
