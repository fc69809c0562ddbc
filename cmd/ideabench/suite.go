package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/suite"
)

// cmdSuite runs a suite: the comparison on every track of it, then one
// verdict over them.
func cmdSuite(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("suite")
	name := fs.String("suite", "default", "the suite: default (panel, sequence, and the known data sets found under --data-dir), ci (seconds), or a suite file (JSON, see suite.Spec)")
	out := fs.String("out", "ideabench-suite.json", "where to write the suite report; each track's report and trials go into the folder of the same name without .json")
	dataDir := fs.String("data-dir", defaultDataDir(), "where the suite's data sets are looked for by name (default $IDEABENCH_DATA, else the current directory); absent ones are skipped")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "trials run in parallel (results do not depend on it)")
	shard := fs.String("shard", "", "I/N: run only shard I of every track's trials, without reports; when every shard is done, rerun without --shard (it reuses every trial) (default from $"+envIndex+" and $"+envShards+")")
	quiet := fs.Bool("quiet", false, "no progress bar")
	plotDir := fs.String("plots", "", "also draw the suite's figures (forest plot, performance profile, ranks of several ideas; PNG and SVG) into this directory")
	confirm := fs.Bool("confirm", false, "also run the confirmation (held-out) tracks, after the development tracks: do it once the idea's settings are settled on the development tracks (a held-out track reported under changed settings is flagged)")
	ideas := fs.String("ideas", "", "further idea arms on every track, ';'-separated, each on the track's baseline grid: e.g. 'conv;ema;gate:rho=0.9,beta=0.5' (added to the suite's own)")
	maxHours := fs.Float64("max-hours", defaultMaxHours, "refuse a track whose every epoch of every trial would take longer than this even at the fastest core's peak rate")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: suite takes no arguments (got %q)\nusage: %s", errUsage, fs.Args(), synopsis("suite"))
	}
	spec, err := loadSuite(*name)
	if err != nil {
		return err
	}
	if *ideas != "" {
		spec.Ideas = append(spec.Ideas, strings.Split(*ideas, ";")...)
		if err := spec.Validate(); err != nil {
			return fmt.Errorf("%w: --ideas: %v", errUsage, err)
		}
	}
	if *workers < 1 {
		return fmt.Errorf("%w: --workers = %d must be >= 1", errUsage, *workers)
	}
	si, sn, err := parseShard(*shard, os.Getenv)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	limits, err := machineLimits(*maxHours)
	if err != nil {
		return err
	}
	if err := suite.CheckOut(*out); err != nil {
		return fmt.Errorf("%w: --out: %v", errUsage, err)
	}
	folder := named{"the suite's folder", suite.Dir(*out)}
	if err := checkOutputs([]output{{named: named{"--out", *out}}, {named: folder, dir: true}, {named: named{"--plots", *plotDir}, dir: true, plots: true}},
		append(suiteInputs(*name), named{"--out", *out}), []named{folder}); err != nil {
		return err
	}
	for _, in := range suiteInputs(*name) {
		if within(in.path, folder.path) {
			return collision(folder, "holds", in)
		}
	}
	// A suite refused before its first trial leaves no directory it made.
	var made madeDirs
	defer made.undoOnError(&err)
	if sn == 1 {
		if err := checkWritable(&made, *out); err != nil {
			return err
		}
		if *plotDir != "" {
			if err := checkDir(&made, *plotDir); err != nil {
				return err
			}
		}
	}
	if err := made.mkdirAll(folder.path); err != nil {
		return fmt.Errorf("suite: %w", err)
	}
	bar := &progress{w: stderr, quiet: *quiet}
	start := time.Now()
	r, err := suite.Run(ctx, spec, suite.Options{
		Out: *out, DataDir: *dataDir, Workers: *workers, Shard: si, Shards: sn, Limits: limits,
		Warn: func(msg string) { bar.warn(msg) }, Note: func(msg string) { bar.note(msg) }, Version: version(), Confirm: *confirm,
		Start: func(name string, i, n int) {
			bar.finish()
			if !*quiet {
				fmt.Fprintf(stderr, "track %d/%d: %s\n", i+1, n, name)
			}
			*bar = progress{w: stderr, quiet: *quiet}
		},
		Progress: func(done, reused, total int) { bar.update(done, reused, total) },
	})
	bar.finish()
	if errors.Is(err, protocol.ErrBeyondLimits) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if errors.Is(err, trial.ErrInterrupted) {
		fmt.Fprintf(stderr, "interrupted: the finished trials are saved under %s; rerun the same command to resume\n", suite.Dir(*out))
	}
	if err != nil {
		return err
	}
	if sn > 1 {
		fmt.Fprintf(stdout, "shard %d/%d of every track done in %.1fs (trials under %s); when every shard is done, rerun without --shard to write the reports\n", si, sn, time.Since(start).Seconds(), suite.Dir(*out))
		return nil
	}
	printSuite(stdout, r)
	fmt.Fprintf(stdout, "\nsuite report: %s (%.1fs); track reports in %s\n", *out, r.WallSeconds, suite.Dir(*out))
	if *plotDir != "" {
		return writeSuitePlots(r, *plotDir, stdout)
	}
	return nil
}

// suiteInputs is the suite file --suite names, none for a built-in
// suite.
func suiteInputs(name string) []named {
	if strings.HasSuffix(name, ".json") {
		return []named{{"--suite", name}}
	}
	return nil
}

// loadSuite is --suite: a suite file (NAME.json, suite.Load) or a
// built-in suite (suite.Named); errors wrap errUsage.
func loadSuite(name string) (suite.Spec, error) {
	load := suite.Named
	if strings.HasSuffix(name, ".json") {
		load = suite.Load
	}
	spec, err := load(name)
	if err != nil {
		return spec, fmt.Errorf("%w: --suite: %v", errUsage, err)
	}
	return spec, nil
}

// printSuite writes a suite report's tables: one row a track, then each
// aggregate.
func printSuite(w io.Writer, r *suite.Report) {
	fmt.Fprintf(w, "suite %s: %s\n", r.Name, r.Verdict)
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "track\tbaseline\tidea\tidea better by\ttrack verdict (p)\tcan judge\taggregate")
	for _, t := range r.Tracks {
		agg := "no"
		switch {
		case t.InAggregate && t.Confirm:
			agg = "confirmation"
		case t.InAggregate:
			agg = "development"
		}
		fmt.Fprintf(tw, "%s\t%.4g\t%.4g\t%+.2f%%\t%s (%.3g)\t%v\t%s\n", t.Name, t.Baseline, t.Idea, t.EffectPct, t.Verdict, t.PValue, t.CanJudge, agg)
	}
	tw.Flush()
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped %s: %s\n", s.Name, s.Reason)
	}
	if len(r.HeldOut) > 0 {
		fmt.Fprintf(w, "held out (confirmation, run with --confirm once the settings are settled): %s\n", strings.Join(r.HeldOut, ", "))
	}
	for _, t := range r.Tracks {
		if !t.InAggregate && len(t.Reasons) > 0 {
			fmt.Fprintf(w, "%s left out of the aggregate: %s\n", t.Name, strings.Join(t.Reasons, "; "))
		}
	}
	for _, g := range r.Aggregates() {
		fmt.Fprintf(w, "\n%s (%s): %s\n", g.Name, strings.Join(g.Tracks, ", "), g.Verdict)
		fmt.Fprintf(w, "  idea better by %+.2f%% (mean log ratio over tracks), 95%% interval [%+.2f%%, %+.2f%%], p = %.3g (stratified, selection-aware)\n",
			g.MeanPct, stats.Pct(g.Lo), stats.Pct(g.Hi), g.PValue)
		fmt.Fprintf(w, "  practically equivalent within ±%.2f%%: 90%% interval [%+.2f%%, %+.2f%%]\n", stats.Pct(g.ROPE), stats.Pct(g.EqLo), stats.Pct(g.EqHi))
		fmt.Fprintf(w, "  IQM %+.2f%% [%+.2f%%, %+.2f%%]; probability of improvement %.2f [%.2f, %.2f]\n",
			stats.Pct(g.IQM), stats.Pct(g.IQMLo), stats.Pct(g.IQMHi), g.PoI, g.PoILo, g.PoIHi)
		fmt.Fprintf(w, "  Bayesian signed-rank over tracks: P(worse) %.2f, P(equivalent) %.2f, P(better) %.2f\n", g.PWorse, g.PEquivalent, g.PBetter)
		if h := g.Hierarchical; h != nil {
			fmt.Fprintf(w, "  hierarchical model (seeds in tracks), next track: P(worse) %.2f, P(equivalent) %.2f, P(better) %.2f; mean effect %+.2f%%\n",
				h.PWorse, h.PEquivalent, h.PBetter, stats.Pct(h.Delta0))
		}
		if ia := g.Ideas; ia != nil {
			fmt.Fprintf(w, "  idea arms against the baseline (Holm over %d):\n", len(ia.Comparisons))
			for _, c := range ia.Comparisons {
				fmt.Fprintf(w, "    %-12s %+.2f%%  p = %.3g, Holm %.3g: %s\n", c.Name, c.MeanPct, c.PValue, c.PValueHolm, c.VerdictHolm)
			}
			f := ia.Friedman
			var ranks []string
			for a, name := range ia.Arms {
				ranks = append(ranks, fmt.Sprintf("%s %.2f", name, f.Ranks[a]))
			}
			fmt.Fprintf(w, "  average ranks (1 best): %s; Friedman p = %.3g, critical difference %.2f\n", strings.Join(ranks, ", "), f.PValue, f.CD)
		}
	}
}

// verifySuite verifies a suite report (suite.Verify).
func verifySuite(path string, dirs []string, stdout io.Writer) error {
	r, err := suite.ReadReport(path)
	if err != nil {
		return err
	}
	fs, n := suite.Verify(r, path, derive.VerifyOptions{Rerun: true, Results: dirs})
	for _, f := range fs {
		fmt.Fprintf(stdout, "MISMATCH %s\n", f)
	}
	fmt.Fprintf(stdout, "%s: %d fields checked over %d track reports, %d mismatches\n", path, n, len(r.Tracks), len(fs))
	if len(fs) > 0 {
		return fmt.Errorf("%s: %d mismatches", path, len(fs))
	}
	return nil
}
