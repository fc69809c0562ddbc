package main

import (
	"fmt"
	"io"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/plots"
)

// cmdPlot draws a report's figures: ideabench plot REPORT.json [--out DIR].
// Flags go before or after the report (the flags are parsed, then the
// report is taken, then the flags after it), so "plot r.json --out d" and
// "plot --out d r.json" are the same.
func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("plot")
	out := fs.String("out", "plots", "directory for the PNG and SVG files")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return fmt.Errorf("%w: plot takes a report file\nusage: %s", errUsage, synopsis("plot"))
	}
	report := rest[0]
	if err := parseFlags(fs, rest[1:], stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: plot takes one report file (got also %q)", errUsage, fs.Args())
	}
	r, err := harness.ReadReport(report)
	if err != nil {
		return err
	}
	return writePlots(r, *out, stdout)
}

// writePlots draws r's figures into dir at the default size (plots.Write)
// and prints "plot: PATH" for each file written, also those written before
// an error. run --plots DIR calls it with the report it just wrote.
func writePlots(r *harness.Report, dir string, stdout io.Writer) error {
	paths, err := plots.Write(r, dir, plots.Options{})
	for _, p := range paths {
		fmt.Fprintln(stdout, "plot:", p)
	}
	return err
}
