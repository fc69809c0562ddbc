package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ideabench/ideabench/compare"
	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/num"
	"github.com/ideabench/ideabench/plots"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
)

// cmdCompare compares arms whose trials ran elsewhere.
func cmdCompare(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("compare")
	out := fs.String("out", "ideabench-compare.json", "where to write the comparison report")
	baseline := fs.String("baseline", "", "the baseline arm's name (default: the first arm in the file)")
	higher := fs.Bool("higher-is-better", false, "the metric grows with quality (accuracy); by default lower is better (MSE, loss)")
	alpha := fs.Float64("alpha", 0.05, "significance level")
	minEff := fs.Float64("min-effect-pct", 1, "smallest improvement of interest, in percent of the baseline's mean (power, negligible-effect warning); 0 for none")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: compare takes one file of per-seed metrics, or two or more arms of run reports (NAME=REPORT.json)\nusage: %s", errUsage, synopsis("compare"))
	}
	// The positional arguments, flags allowed after each.
	var files []string
	for fs.NArg() > 0 {
		files = append(files, fs.Arg(0))
		if err := parseFlags(fs, fs.Args()[1:], stdout); err != nil {
			return err
		}
	}
	fromReports := strings.Contains(files[0], "=")
	if !fromReports && len(files) > 1 {
		return fmt.Errorf("%w: compare takes one file of per-seed metrics (got also %q); arms of run reports are given as NAME=REPORT.json", errUsage, files[1:])
	}
	file := files[0]
	// Each flag's value as given: compare.Options reads an alpha of 0 as
	// its default, which --alpha 0 must not become.
	if err := stats.CheckAlpha(*alpha); err != nil {
		return fmt.Errorf("%w: --alpha = %v: %v", errUsage, *alpha, err)
	}
	if err := stats.CheckMinEffectPct(*minEff); err != nil {
		return fmt.Errorf("%w: --min-effect-pct = %v: %v", errUsage, *minEff, err)
	}
	var ins []named
	var arms []compare.ReportArm
	if fromReports {
		for _, f := range files {
			a, err := parseReportArm(f)
			if err != nil {
				return err
			}
			arms = append(arms, a)
			ins = append(ins, named{"the report of arm " + a.Name, a.Path})
		}
	} else {
		ins = []named{{"the metrics file", file}}
	}
	if err := checkOutputs([]output{{named: named{"--out", *out}}}, ins, nil); err != nil {
		return err
	}
	var made madeDirs
	defer made.undoOnError(&err)
	if err := checkWritable(&made, *out); err != nil {
		return err
	}
	dir := stats.LowerIsBetter
	if *higher {
		dir = stats.HigherIsBetter
	}
	var rows []compare.Row
	var sources []report.ComparedSource
	if fromReports {
		var rdir stats.Direction
		rows, rdir, sources, err = compare.ReadReports(arms)
		if err != nil {
			return err
		}
		if *higher && rdir != stats.HigherIsBetter {
			return fmt.Errorf("%w: --higher-is-better: the reports' metric is %s; leave the flag out, the reports say which way is better", errUsage, rdir)
		}
		dir = rdir
	} else {
		var src report.ComparedSource
		if rows, src, err = compare.ReadMetrics(file); err != nil {
			return err
		}
		sources = []report.ComparedSource{src}
	}
	c, err := compare.Compare(rows, compare.Options{Sources: sources, Baseline: *baseline, Direction: dir, Alpha: *alpha, MinEffectPct: *minEff})
	if errors.Is(err, compare.ErrOption) {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if err != nil {
		return err
	}
	if err := c.WriteFile(*out); err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	if err := printCompared(stdout, c); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nreport: %s\n", *out)
	return nil
}

// parseReportArm parses an arm of compare taken from a run report:
// NAME=PATH, or NAME=PATH#ARM for an arm other than the report's
// baseline.
func parseReportArm(s string) (compare.ReportArm, error) {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return compare.ReportArm{}, fmt.Errorf("%w: %s: an arm from a report is NAME=REPORT.json (or NAME=REPORT.json#ARM: idea, or an idea arm's name; the default is the baseline)", errUsage, num.Quote(s))
	}
	a := compare.ReportArm{Name: name, Path: path, Arm: "baseline"}
	if p, arm, ok := strings.Cut(path, "#"); ok {
		a.Path, a.Arm = p, arm
	}
	return a, nil
}

// printCompared prints a comparison of results made elsewhere: its
// reading (plots.ComparedReading).
func printCompared(w io.Writer, c *report.Compared) error {
	return plots.ComparedReading(c).WriteText(w)
}

// checkCompared reads a comparison report and verifies it: derived again
// from its inputs, and its inputs read again from every source that is
// there (compare.VerifyWithSources). verify and plot share it.
func checkCompared(file string) (*report.Compared, derive.Findings, error) {
	c, err := report.ReadCompared(file)
	if err != nil {
		return nil, derive.Findings{}, err
	}
	return c, compare.VerifyWithSources(c, file), nil
}

// verifyCompared verifies a comparison report (checkCompared) and prints
// every mismatch, and a note for each source it could not read again.
func verifyCompared(file string, stdout io.Writer) error {
	_, f, err := checkCompared(file)
	if err != nil {
		return err
	}
	for _, m := range f.Findings {
		if m.Note != "" {
			printNote(stdout, m)
			continue
		}
		fmt.Fprintln(stdout, "MISMATCH", m)
	}
	bad := len(f.Mismatches())
	fmt.Fprintf(stdout, "%s: %d fields checked, %d mismatches, %d notes\n", file, f.Checked, bad, len(f.Findings)-bad)
	if bad > 0 {
		return fmt.Errorf("%s does not verify: %d mismatches", file, bad)
	}
	return nil
}

// printNote prints a finding that is explained, not a mismatch (a source
// absent here): "note FIELD: NOTE".
func printNote(w io.Writer, f derive.Finding) {
	fmt.Fprintf(w, "note %s: %s\n", f.Field, f.Note)
}
