package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/plots"
	"github.com/ideabench/ideabench/suite"
	"github.com/ideabench/ideabench/suitereport"
)

// cmdSuite runs a suite: the comparison on every track of it, then one
// verdict over them.
func cmdSuite(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("suite")
	name := fs.String("suite", "default", "the suite: "+suite.Describe()+"; or a suite file (JSON, see docs/suites.md)")
	out := fs.String("out", "ideabench-suite.json", "where to write the suite report; each track's report and trials go into the folder of the same name without .json")
	dataDir := fs.String("data-dir", defaultDataDir(), "where the suite's data sets are looked for by name (default $IDEABENCH_DATA, else the current directory); absent ones are skipped")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "trials run in parallel (results do not depend on it)")
	shard := fs.String("shard", "", "I/N: run only shard I of every track's trials, without reports; when every shard is done, rerun without --shard (it reuses every trial) (default from $"+envIndex+" and $"+envShards+")")
	quiet := fs.Bool("quiet", false, "no progress bar")
	plotDir := fs.String("plots", "", "also draw the suite's figures (forest plot, performance profile, ranks of several ideas; PNG and SVG) into this directory")
	confirm := fs.Bool("confirm", false, "also run the confirmation (held-out) tracks, after the development tracks: do it once the idea's settings are settled on the development tracks (a held-out track reported under changed settings is flagged)")
	ideas := fs.String("ideas", "", "further idea arms on every track, ';'-separated, each on the track's baseline grid: e.g. 'conv;ema;gate:rho=0.9,beta=0.5' (added to the suite's own)")
	dry := fs.Bool("dry-run", false, dryRunDoc)
	maxHours := fs.Float64("max-hours", defaultMaxHours, "refuse a track whose every epoch of every trial would take longer than this even at the fastest core's peak rate")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: suite takes no arguments (got %q)\nusage: %s", errUsage, fs.Args(), synopsis("suite"))
	}
	spec, src, err := suite.Open(*name)
	if err != nil {
		return fmt.Errorf("%w: --suite: %v", errUsage, err)
	}
	if *ideas != "" {
		src.AddedIdeas = strings.Split(*ideas, ";")
		if spec, err = suite.WithIdeas(spec, src.AddedIdeas); err != nil {
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
	if *dry {
		return drySuite(ctx, stdout, spec, suite.Options{DataDir: *dataDir, Workers: *workers, Shards: sn, Limits: limits, Confirm: *confirm,
			Warn: func(msg string) { fmt.Fprintln(stderr, "warning:", msg) }})
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
		id, err := json.Marshal(struct {
			Spec    suitereport.Spec
			Confirm bool
		}{spec, *confirm})
		if err != nil {
			return err
		}
		sum := sha256.Sum256(id)
		release, err := claimOut(*out, hex.EncodeToString(sum[:16]))
		if err != nil {
			return err
		}
		defer release()
	}
	if err := made.mkdirAll(folder.path); err != nil {
		return fmt.Errorf("suite: %w", err)
	}
	bar := &progress{w: stderr, quiet: *quiet}
	start := time.Now()
	r, err := suite.Run(ctx, spec, suite.Options{
		Out: *out, DataDir: *dataDir, Workers: *workers, Shard: si, Shards: sn, Limits: limits,
		Warn: func(msg string) { bar.warn(msg) }, Note: func(msg string) { bar.note(msg) }, Version: version(), Confirm: *confirm, Source: src,
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
	if err := printSuite(stdout, r); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nsuite report: %s (%.1fs); track reports in %s\n", *out, r.WallSeconds, suite.Dir(*out))
	if *plotDir != "" {
		opt, err := suiteOptions(r, *out, false, stderr)
		if err != nil {
			return err
		}
		return writeSuitePlots(r, *plotDir, opt, stdout)
	}
	return nil
}

// drySuite is suite --dry-run: every track planned (suite.Plan) and
// checked up to its first trial (harness.Preflight), then what each
// would train.
func drySuite(ctx context.Context, w io.Writer, spec suitereport.Spec, opt suite.Options) error {
	pl, err := suite.Plan(spec, opt)
	if errors.Is(err, protocol.ErrBeyondLimits) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "dry run of suite %s: nothing trained or written\n", spec.Name)
	for _, t := range pl.Tracks {
		e, err := harness.Preflight(ctx, t.P, harness.Options{Workers: opt.Workers, Shards: opt.Shards, Limits: opt.Limits})
		if errors.Is(err, protocol.ErrBeyondLimits) {
			return fmt.Errorf("%w: track %s: %v", errUsage, t.Spec.Name, err)
		}
		if err != nil {
			return fmt.Errorf("track %s: %w", t.Spec.Name, err)
		}
		fmt.Fprintf(w, "track %s: %s\n  %s\n", t.Spec.Name, describeProtocol(t.P), e.Text(opt.Workers))
	}
	for _, sk := range pl.Skipped {
		fmt.Fprintf(w, "track %s: skipped: %s\n", sk.Name, sk.Reason)
	}
	for _, h := range pl.HeldOut {
		fmt.Fprintf(w, "track %s: held out (--confirm runs it)\n", h)
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

// loadSuite is --suite: a suite file (NAME.json) or a built-in suite
// (suite.Open); errors wrap errUsage.
func loadSuite(name string) (suitereport.Spec, error) {
	spec, _, err := suite.Open(name)
	if err != nil {
		return spec, fmt.Errorf("%w: --suite: %v", errUsage, err)
	}
	return spec, nil
}

// printSuite writes a suite report's summary: its reading
// (plots.SuiteReading), the one its page shows.
func printSuite(w io.Writer, r *suitereport.Report) error { return plots.SuiteReading(r).WriteText(w) }

// verifySuite verifies a suite report (suite.Verify).
func verifySuite(path string, dirs []string, stdout io.Writer) error {
	r, err := suitereport.Read(path)
	if err != nil {
		return err
	}
	fs, n := suite.Verify(r, path, derive.VerifyOptions{Rerun: true, Results: dirs, Limits: protocol.Limits{MaxBytes: availableBytes()}})
	for _, f := range fs {
		kind := "MISMATCH"
		if f.Explained {
			kind = "note"
		}
		fmt.Fprintf(stdout, "%s %s\n", kind, f)
	}
	bad := len(suite.Mismatches(fs))
	fmt.Fprintf(stdout, "%s: %d fields checked over %d track reports, %d mismatches, %d notes\n", path, n, len(r.Tracks), bad, len(fs)-bad)
	if bad > 0 {
		return fmt.Errorf("%s: %d mismatches", path, bad)
	}
	return nil
}
