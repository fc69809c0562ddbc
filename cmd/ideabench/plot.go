package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/report"

	"github.com/ideabench/ideabench/plots"
	"github.com/ideabench/ideabench/suite"
	"github.com/ideabench/ideabench/suitereport"
)

// plotsDir is plot's default --out for the report file: its path with
// .plots in place of its extension, beside it (never the repository's
// plots/ package, nor a folder an earlier report's page went into).
func plotsDir(file string) string {
	return strings.TrimSuffix(file, filepath.Ext(file)) + ".plots"
}

// cmdPlot draws a report's figures: ideabench plot REPORT.json [--out DIR].
// Flags go before or after the report (the flags are parsed, then the
// report is taken, then the flags after it), so "plot r.json --out d" and
// "plot --out d r.json" are the same.
func cmdPlot(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("plot")
	out := fs.String("out", "", "directory for the page (report.html) and the PNG and SVG files (default: the report's path with .plots for .json, beside it)")
	unverified := fs.Bool("unverified", false, "draw a report that does not verify (its figures would show numbers that contradict each other)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return fmt.Errorf("%w: plot takes a report file\nusage: %s", errUsage, synopsis("plot"))
	}
	file := rest[0]
	if err := parseFlags(fs, rest[1:], stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: plot takes one report file (got also %q)", errUsage, fs.Args())
	}
	if *out == "" {
		*out = plotsDir(file)
	}
	if err := checkOutputs([]output{{named: named{"--out", *out}, dir: true, plots: true}}, []named{{"the report", file}}, nil); err != nil {
		return err
	}
	if raw, err := inputfile.Read(file, maxPeekBytes); err == nil && suitereport.IsReport(raw) {
		return plotSuite(file, *out, *unverified, stdout, stderr)
	} else if err == nil && report.IsCompared(raw) {
		return plotCompared(file, *out, *unverified, stdout, stderr)
	}
	r, err := report.Read(file)
	if err != nil {
		return err
	}
	// Draw only what re-derives: a figure of an edited report would
	// show numbers that contradict each other. Drawn on request, the
	// page and every figure say first that it did not verify.
	opt, err := reportOptions(r, file, *unverified, stderr)
	if err != nil {
		return err
	}
	return writePlots(r, *out, opt, stdout)
}

// writePlots draws r's figures into dir (plots.Write, opt: the default
// size, and whether r verified) and prints "plot: PATH" for each file
// written, also those written before an error, then writes the report's
// page (plots.WriteHTML, report.html) and prints "page: PATH". run
// --plots DIR calls it with the report it just derived.
func writePlots(r *report.Report, dir string, opt plots.Options, stdout io.Writer) error {
	paths, err := plots.Write(r, dir, opt)
	for _, p := range paths {
		fmt.Fprintln(stdout, "plot:", p)
	}
	if err != nil {
		return err
	}
	page := plots.HTMLPath(dir)
	if err := plots.WriteHTML(r, page, opt); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "page:", page)
	return nil
}

// drawOptions are the options of a page and its figures from what
// verifying the report in file found: checked values compared (over
// reports track reports for a suite), and the mismatches, each "FIELD:
// what" (FIELD the JSON path the page names). A report that verified
// says so on its page (plots.Verified); one that did not is refused
// unless unverified, then drawn marked (plots.Unverified) with a
// warning.
func drawOptions(file string, checked, reports int, mismatches []string, unverified, figures bool, stderr io.Writer) (plots.Options, error) {
	if len(mismatches) == 0 {
		return plots.Options{Verified: &plots.Verified{Fields: checked, Reports: reports}}, nil
	}
	if !unverified {
		return plots.Options{}, fmt.Errorf("%s does not verify (%d mismatches, the first %s); `ideabench verify %s` lists them; --unverified draws it anyway", file, len(mismatches), mismatches[0], shellQuote(file))
	}
	where := "the page"
	if figures {
		where = "the page and every figure"
	}
	fmt.Fprintf(stderr, "warning: %s does not verify (%d mismatches); drawing it unverified, marked so on %s\n", file, len(mismatches), where)
	first, _, _ := strings.Cut(mismatches[0], ": ")
	return plots.Options{Unverified: &plots.Unverified{Mismatches: len(mismatches), First: first}}, nil
}

// reportOptions verifies the run report r, read from file, before it is
// drawn (drawOptions).
func reportOptions(r *report.Report, file string, unverified bool, stderr io.Writer) (plots.Options, error) {
	res := derive.Verify(r, derive.VerifyOptions{})
	var bad []string
	for _, m := range res.Mismatches() {
		bad = append(bad, m.Field+": "+m.String())
	}
	return drawOptions(file, res.Checked, 0, bad, unverified, true, stderr)
}

// suiteOptions verifies the suite report r, read from file, before it
// is drawn (drawOptions).
func suiteOptions(r *suitereport.Report, file string, unverified bool, stderr io.Writer) (plots.Options, error) {
	fs, n := suite.Verify(r, file, derive.VerifyOptions{})
	var bad []string
	for _, m := range suite.Mismatches(fs) {
		bad = append(bad, m.Path+": "+m.Note)
	}
	return drawOptions(file, n, len(r.Tracks), bad, unverified, true, stderr)
}

// plotSuite draws a suite report's forest plot after verifying it (as
// plot does a report).
func plotSuite(report, dir string, unverified bool, stdout, stderr io.Writer) error {
	r, err := suitereport.Read(report)
	if err != nil {
		return err
	}
	opt, err := suiteOptions(r, report, unverified, stderr)
	if err != nil {
		return err
	}
	return writeSuitePlots(r, dir, opt, stdout)
}

// writeSuitePlots draws a suite report's figures into dir (opt as
// writePlots takes it) and prints "plot: PATH" for each file written,
// then its page (report.html, plots.WriteSuiteHTML) and "page: PATH".
func writeSuitePlots(r *suitereport.Report, dir string, opt plots.Options, stdout io.Writer) error {
	paths, err := plots.WriteSuite(r, dir, opt)
	for _, p := range paths {
		fmt.Fprintln(stdout, "plot:", p)
	}
	if err != nil {
		return err
	}
	page := plots.HTMLPath(dir)
	if err := plots.WriteSuiteHTML(r, page, opt); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "page:", page)
	return nil
}

// plotCompared writes the page of a comparison report (ideabench
// compare) after verifying it as verify does, its sources included
// (checkCompared); a comparison has no figures, only its page.
func plotCompared(file, dir string, unverified bool, stdout, stderr io.Writer) error {
	c, f, err := checkCompared(file)
	if err != nil {
		return err
	}
	for _, n := range f.Findings {
		if n.Note != "" {
			printNote(stderr, n)
		}
	}
	var bad []string
	for _, m := range f.Mismatches() {
		bad = append(bad, m.Field+": "+m.String())
	}
	opt, err := drawOptions(file, f.Checked, 0, bad, unverified, false, stderr)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("plots: creating %s: %w", dir, err)
	}
	page := plots.HTMLPath(dir)
	if err := plots.WriteComparedHTML(c, page, opt); err != nil {
		return err
	}
	fmt.Fprintln(stdout, "page:", page)
	return nil
}
