package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"golang.org/x/perf/benchunit"
)

// write prints the report: a benchstat-like table per package, its
// footnotes, the regressions and a final PASS or FAIL line.
func (r *report) write(w io.Writer) {
	dir := "lower"
	if r.Better > 0 {
		dir = "higher"
	}
	fmt.Fprintf(w, "metric %s (%s is better); regression: p < %v and more than %v%% worse\n", r.Unit, dir, r.Opts.Alpha, r.Opts.Threshold)

	// Notes become footnotes, one per distinct text, as in benchstat.
	var notes []string
	noteNum := make(map[string]int)

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	cls := benchunit.ClassOf(r.Unit)
	for i, row := range r.Rows {
		if i == 0 || row.Pkg != r.Rows[i-1].Pkg {
			// A line without tabs ends the column block, so each
			// package gets its own alignment, like benchstat's tables.
			fmt.Fprintln(tw)
			if row.Pkg != "" {
				fmt.Fprintf(tw, "pkg: %s\n", row.Pkg)
			}
			fmt.Fprintf(tw, "name\told %s\tnew %s\tdelta\tp\tverdict\n", r.Unit, r.Unit)
		}
		var present []float64
		if row.Old != nil {
			present = append(present, row.OldCenter)
		}
		if row.New != nil {
			present = append(present, row.NewCenter)
		}
		sc := benchunit.CommonScale(present, cls)
		oldS, newS, delta, p := "-", "-", "-", "-"
		if row.Old != nil {
			oldS = sc.Format(row.OldCenter)
		}
		if row.New != nil {
			newS = sc.Format(row.NewCenter)
		}
		if row.Old != nil && row.New != nil {
			delta = fmt.Sprintf("%+.2f%%", row.Delta)
			p = fmt.Sprintf("%.3f", row.P)
		}
		verdict := row.Verdict.String()
		for _, n := range row.Notes {
			if noteNum[n] == 0 {
				notes = append(notes, n)
				noteNum[n] = len(notes)
			}
			verdict += fmt.Sprintf(" [%d]", noteNum[n])
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", row.Name, oldS, newS, delta, p, verdict)
	}
	tw.Flush()

	if len(notes) > 0 {
		fmt.Fprintln(w)
	}
	for i, n := range notes {
		fmt.Fprintf(w, "[%d] %s\n", i+1, n)
	}

	regs := r.regressions()
	if len(regs) > 0 {
		fmt.Fprintf(w, "\nregressions (p < %v and more than %v%% worse):\n", r.Opts.Alpha, r.Opts.Threshold)
		for _, row := range regs {
			fmt.Fprintf(w, "  %s: %+.2f%% %s, p=%.3f\n", row.id(), row.Delta, r.Unit, row.P)
		}
	}

	compared, single := 0, 0
	for _, row := range r.Rows {
		if row.Verdict == onlyOld || row.Verdict == onlyNew {
			single++
		} else {
			compared++
		}
	}
	status := "PASS"
	if len(regs) > 0 {
		status = "FAIL"
	}
	fmt.Fprintf(w, "\n%s: %d of %d compared benchmarks regressed", status, len(regs), compared)
	if single > 0 {
		fmt.Fprintf(w, "; %d in only one file, not gated", single)
	}
	fmt.Fprintln(w)
}
