package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/suite"
)

// cmdControl runs a control experiment (harness.Control): the protocol's
// baseline grid against the same grid with one idea, on many disjoint
// seed blocks, and prints the rate of significant verdicts with its 95%
// interval.
func cmdControl(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("control")
	pf := protocolFlags(fs, stderr)
	spec := fs.String("idea", "aa", "the idea: a registered name, with parameters as name:k=v,k=v (e.g. gate:rho=0.9,beta=0.5); aa is the A/A control")
	blocks := fs.Int("blocks", 100, "seed blocks, each of the protocol's number of seeds, disjoint")
	base := fs.Uint64("seed-base", 0, "shift every block's seeds by this much: block k runs the protocol's seeds + base + k·(max seed + 1), so another base gives seeds disjoint from the default run's")
	out := fs.String("out", "ideabench-control.json", "where to write the per-block results (JSON)")
	results := fs.String("results", "", "results directory: finished trials, reused on rerun (default: the --out path with .trials instead of .json)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "trials run in parallel (results do not depend on it)")
	quiet := fs.Bool("quiet", false, "no progress line")
	maxHours := fs.Float64("max-hours", defaultMaxHours, "refuse an experiment whose every epoch of every trial would take longer than this even at the fastest core's peak rate")
	dry := fs.Bool("dry-run", false, dryRunDoc+" (one block's)")
	suiteName := fs.String("suite", "", "run the control at the suite level instead: a built-in suite ("+strings.Join(suite.Names(), ", ")+") or a suite file; every block runs every track and the suite's aggregate (the protocol flags do not apply; --data-dir finds its data sets)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: control takes no arguments (got %q)\nusage: %s", errUsage, fs.Args(), synopsis("control"))
	}
	if *suiteName != "" {
		var protoSet []string
		fs.Visit(func(f *flag.Flag) {
			switch f.Name {
			case "suite", "idea", "blocks", "seed-base", "out", "results", "workers", "quiet", "max-hours", "data-dir", "dry-run":
			default:
				protoSet = append(protoSet, "--"+f.Name)
			}
		})
		if len(protoSet) > 0 {
			return fmt.Errorf("%w: control --suite takes each track's protocol from the suite; %s does not apply (put it in a suite file's protocol)", errUsage, strings.Join(protoSet, ", "))
		}
		return suiteControl(ctx, *suiteName, *pf.dataDir, *spec, *blocks, *base, *out, *results, *workers, *quiet, *maxHours, *dry, stdout, stderr)
	}
	p, err := pf.protocol()
	if err != nil {
		return err
	}
	ic, err := parseIdea(*spec)
	if err != nil {
		return fmt.Errorf("%w: --idea %s: %v", errUsage, *spec, err)
	}
	if *workers < 1 {
		return fmt.Errorf("%w: --workers = %d must be >= 1", errUsage, *workers)
	}
	if *blocks < 1 || *blocks > harness.MaxBlocks {
		return fmt.Errorf("%w: --blocks = %d: must be in [1, %d] (e.g. 200)", errUsage, *blocks, harness.MaxBlocks)
	}
	limits, err := machineLimits(*maxHours)
	if err != nil {
		return err
	}
	dir := resultsDir(*results, *out)
	if err := checkRunOutputs(*out, dir, *results != "", "", protocolInputs(*pf.config, p)); err != nil {
		return err
	}
	if *dry {
		return dryRun(ctx, stdout, harness.ControlProtocol(p, ic, *base, 0), harness.Options{Workers: *workers, Limits: limits})
	}
	// An experiment refused before its first trial leaves no directory
	// it made.
	var made madeDirs
	defer made.undoOnError(&err)
	if err := checkWritable(&made, *out); err != nil {
		return err
	}
	if err := made.mkdirAll(filepath.Join(dir, "trials")); err != nil {
		return fmt.Errorf("harness: results directory %s: %w", dir, err)
	}
	store, err := trial.OpenStore(dir)
	if err != nil {
		return err
	}
	start := time.Now()
	note := func(msg string) { fmt.Fprintf(stderr, "\n%s\n", msg) } // above the block line, which the next block draws again
	res, err := harness.Control(ctx, p, ic, *blocks, *base, harness.Options{Workers: *workers, Store: store, Limits: limits, Note: note}, func(done int) {
		if !*quiet {
			fmt.Fprintf(stderr, "\rblock %d/%d  %s elapsed ", done, *blocks, time.Since(start).Round(time.Second))
		}
	})
	if !*quiet {
		fmt.Fprintln(stderr)
	}
	if errors.Is(err, protocol.ErrBeyondLimits) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if errors.Is(err, trial.ErrInterrupted) {
		fmt.Fprintf(stderr, "interrupted: finished trials are saved in %s; rerun the same command to resume\n", dir)
	}
	if err != nil {
		return err
	}
	raw, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(*out, func(w io.Writer) error { _, err := w.Write(append(raw, '\n')); return err }); err != nil {
		return err
	}
	what := "power (significant wins)"
	if ic.Name == "aa" {
		what = "false-positive rate (significant either way)"
	}
	first := harness.ControlSeeds(p, res.SeedBase, 0)
	fmt.Fprintf(stdout, "control %s on %s: %d blocks of %d seeds from seed %d (--seed-base %d), alpha %g\n",
		ic.Name, p.Track, res.Blocks, res.SeedsPerBlock, slices.Min(first), res.SeedBase, res.Alpha)
	for _, t := range []struct {
		name     string
		signFlip bool
		w, l     int
	}{{"headline verdict (" + res.Test + " test)", false, res.Wins, res.Losses}, {"sign-flip test on the chosen cfgs (conditional on the choice)", true, res.SignFlipWins, res.SignFlipLosses}} {
		if t.signFlip && res.Test == report.TestSignFlip {
			continue // the headline
		}
		k, rate, lo, hi := res.Rate(t.signFlip)
		fmt.Fprintf(stdout, "%s: %d wins, %d losses; %s %d/%d = %.3f, 95%% interval [%.3f, %.3f] (Clopper-Pearson)\n",
			t.name, t.w, t.l, what, k, res.Blocks, rate, lo, hi)
	}
	fmt.Fprintf(stdout, "per block: %s (%.1fs)\n", *out, time.Since(start).Seconds())
	return nil
}

// parseIdea reads name or name:k=v,k=v (idea.Parse).
func parseIdea(s string) (idea.Config, error) { return idea.Parse(s) }

// suiteControl is control --suite (suite.Control).
func suiteControl(ctx context.Context, name, dataDir, ideaSpec string, blocks int, base uint64, out, results string, workers int, quiet bool, maxHours float64, dry bool, stdout, stderr io.Writer) (err error) {
	spec, err := loadSuite(name)
	if err != nil {
		return err
	}
	ic, err := parseIdea(ideaSpec)
	if err != nil {
		return fmt.Errorf("%w: --idea %s: %v", errUsage, ideaSpec, err)
	}
	if workers < 1 {
		return fmt.Errorf("%w: --workers = %d must be >= 1", errUsage, workers)
	}
	if blocks < 1 || blocks > harness.MaxBlocks {
		return fmt.Errorf("%w: --blocks = %d: must be in [1, %d] (e.g. 100)", errUsage, blocks, harness.MaxBlocks)
	}
	limits, err := machineLimits(maxHours)
	if err != nil {
		return err
	}
	if err := checkRunOutputs(out, resultsDir(results, out), results != "", "", suiteInputs(name)); err != nil {
		return err
	}
	if dry {
		return drySuite(ctx, stdout, spec, suite.Options{DataDir: dataDir, Workers: workers, Limits: limits,
			Warn: func(msg string) { fmt.Fprintln(stderr, "warning:", msg) }})
	}
	var made madeDirs
	defer made.undoOnError(&err)
	if err := checkWritable(&made, out); err != nil {
		return err
	}
	if err := made.mkdirAll(resultsDir(results, out)); err != nil {
		return fmt.Errorf("results directory %s: %w", resultsDir(results, out), err)
	}
	start := time.Now()
	res, err := suite.Control(ctx, spec, ic, blocks, base, resultsDir(results, out), dataDir, harness.Options{Workers: workers, Limits: limits}, func(done int) {
		if !quiet {
			fmt.Fprintf(stderr, "\rblock %d/%d  %s elapsed ", done, blocks, time.Since(start).Round(time.Second))
		}
	})
	if !quiet {
		fmt.Fprintln(stderr)
	}
	if errors.Is(err, protocol.ErrBeyondLimits) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if errors.Is(err, trial.ErrInterrupted) {
		fmt.Fprintf(stderr, "interrupted: finished trials are saved in %s; rerun the same command to resume\n", resultsDir(results, out))
	}
	if err != nil {
		return err
	}
	raw, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(out, func(w io.Writer) error { _, err := w.Write(append(raw, '\n')); return err }); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "control %s on suite %s (%s): %d blocks from --seed-base %d, alpha %g\n", ic.Name, spec.Name, strings.Join(res.Tracks, ", "), res.Blocks, res.SeedBase, res.Alpha)
	for _, r := range []struct {
		name string
		r    suite.Rate
	}{{"better", res.BetterRate}, {"practically equivalent", res.EquivalentRate}, {"test rejects (p < alpha, either way)", res.RejectRate}} {
		fmt.Fprintf(stdout, "%s: %d/%d = %.3f, 95%% interval [%.3f, %.3f] (Clopper-Pearson)\n", r.name, r.r.K, res.Blocks-res.NoAggregate, r.r.Rate, r.r.Lo, r.r.Hi)
	}
	if n := res.Blocks - res.NoAggregate; n < res.Blocks {
		fmt.Fprintf(stdout, "(rates over the %d blocks with a track that can judge)\n", n)
	}
	fmt.Fprintf(stdout, "verdicts: %d better, %d worse, %d practically equivalent, %d undecided, %d without a track that can judge\n", res.Better, res.Worse, res.Equivalent, res.Undecided, res.NoAggregate)
	for _, s := range res.Skipped {
		fmt.Fprintf(stdout, "skipped %s: %s\n", s.Name, s.Reason)
	}
	fmt.Fprintf(stdout, "per block: %s (%.1fs)\n", out, time.Since(start).Seconds())
	return nil
}
