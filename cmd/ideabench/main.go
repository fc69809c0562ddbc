// Command ideabench runs the seeded protocol and checks reports.
//
//	ideabench run [protocol flags] [--out FILE] [--results DIR] [--workers N] [--shard I/N] [--plots DIR]
//	ideabench merge [--out FILE] DIR...
//	ideabench plot REPORT.json [--out DIR]
//	ideabench train [protocol flags] [--arm A] [--cfg I] [--seed S] [--out FILE.safetensors]
//	ideabench data [protocol flags] [--split S] [--out FILE.csv]
//	ideabench eval --checkpoint FILE --data FILE.csv
//	ideabench verify [--results DIR] REPORT.json
//	ideabench control [protocol flags] [--idea aa|NAME:k=v,...] [--blocks N]
//	ideabench version
//	ideabench help [COMMAND]
//
// Every command prints its flags on -h, -help or --help. Exit status: 0
// success, 1 failure, 2 bad command line or config, 130 interrupted
// (finished trials are saved; rerun the same command).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/plots"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/internal/lease"
	"github.com/ideabench/ideabench/suitereport"
)

// errUsage marks a command-line or config error (exit status 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		// After the first signal, restore the default handling so that a
		// second one ends the process at once.
		<-ctx.Done()
		stop()
	}()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ideabench:", err)
		switch {
		case errors.Is(err, errUsage), errors.Is(err, protocol.ErrConfig):
			os.Exit(2)
		case errors.Is(err, trial.ErrInterrupted):
			os.Exit(130)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: no command\n%s", errUsage, usage())
	}
	if isHelp(args[0]) {
		if args[0] == "help" && len(args) > 1 {
			return run(ctx, []string{args[1], "--help"}, stdout, stderr)
		}
		fmt.Fprintln(stdout, usage())
		return nil
	}
	err := dispatch(ctx, args, stdout, stderr)
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	switch args[0] {
	case "run":
		return cmdRun(ctx, args[1:], stdout, stderr)
	case "suite":
		return cmdSuite(ctx, args[1:], stdout, stderr)
	case "merge":
		return cmdMerge(ctx, args[1:], stdout, stderr)
	case "plot":
		return cmdPlot(args[1:], stdout, stderr)
	case "train":
		return cmdTrain(ctx, args[1:], stdout, stderr)
	case "data":
		return cmdData(ctx, args[1:], stdout, stderr)
	case "eval":
		return cmdEval(args[1:], stdout, stderr)
	case "verify":
		return cmdVerify(args[1:], stdout, stderr)
	case "compare":
		return cmdCompare(args[1:], stdout, stderr)
	case "control":
		return cmdControl(ctx, args[1:], stdout, stderr)
	case "datasets":
		return cmdDatasets(ctx, args[1:], stdout)
	case "version":
		fs := newFlags("version")
		if err := parseFlags(fs, args[1:], stdout); err != nil {
			return err
		}
		if fs.NArg() > 0 {
			return fmt.Errorf("%w: version takes no arguments (got %q)", errUsage, fs.Args())
		}
		fmt.Fprintln(stdout, "ideabench", version())
		return nil
	}
	return fmt.Errorf("%w: unknown command %q\n%s", errUsage, args[0], usage())
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version + " " + runtime.Version()
	}
	return "(devel) " + runtime.Version()
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("run")
	pf := protocolFlags(fs, stderr)
	pf.ideaFlags()
	out := fs.String("out", "ideabench-report.json", "where to write the JSON report")
	results := fs.String("results", "", "results directory: finished trials, reused on rerun (default: the --out path with .trials instead of .json)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "trials run in parallel (results do not depend on it)")
	shard := fs.String("shard", "", "I/N: run only the trials whose index is I mod N, into --results, without a report (default from $"+envIndex+" and $"+envShards+")")
	quiet := fs.Bool("quiet", false, "no progress bar")
	plotDir := fs.String("plots", "", "also draw the report's figures (PNG and SVG) into this directory")
	maxHours := fs.Float64("max-hours", defaultMaxHours, "refuse a protocol whose every epoch of every trial would take longer than this even at the fastest core's peak rate (the estimate is printed)")
	dry := fs.Bool("dry-run", false, dryRunDoc)
	until := fs.Int("until-decided", 0, "MAX: run the seeds in looks of the protocol's seed count and stop once the comparison is decided, at most MAX seeds (the protocol's sequential block, O'Brien-Fleming spending unless it says otherwise)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: run takes no arguments (got %q)\nusage: %s", errUsage, fs.Args(), synopsis("run"))
	}
	p, err := pf.protocol()
	if err != nil {
		return err
	}
	if *until != 0 && p.ExtendGrid != nil {
		// The full and ci profiles grow their grids; a sequential design
		// adds seeds to grids that stay as they are.
		fix := fmt.Sprintf("run the grids as given with --config examples/fixed-grids.json, e.g. ideabench run --profile %s --config examples/fixed-grids.json --until-decided %d", *pf.profile, *until)
		if *pf.config != "" {
			fix = fmt.Sprintf(`add "extend_grid": null to %s`, *pf.config)
		}
		return fmt.Errorf("%w: --until-decided: the protocol grows its grids (extend_grid), and a sequential design adds seeds to grids that stay as they are; %s", errUsage, fix)
	}
	if *until != 0 {
		seq := protocol.Sequential{MaxSeeds: *until}
		if p.Sequential != nil {
			seq.Spending = p.Sequential.Spending
		}
		p.Sequential = &seq
		if err := p.Validate(); err != nil {
			return fmt.Errorf("%w: --until-decided: %v", errUsage, err)
		}
	}
	if *workers < 1 {
		return fmt.Errorf("%w: --workers = %d must be >= 1", errUsage, *workers)
	}
	si, sn, err := parseShard(*shard, os.Getenv)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if sn > 1 && set["plots"] {
		return fmt.Errorf("%w: --plots: a shard writes no report to draw; once every shard is done, draw the merged one: ideabench merge --out REPORT.json %s && ideabench plot REPORT.json --out %s", errUsage, shellQuote(resultsDir(*results, *out)), shellQuote(*plotDir))
	}
	if sn > 1 && set["out"] && set["results"] {
		return fmt.Errorf("%w: --out: a shard writes no report, only the trials in --results; give --out to merge", errUsage)
	}
	if p.Sequential != nil && sn > 1 {
		return fmt.Errorf("%w: --shard %d/%d: a sequential protocol decides after each look, so it cannot run in shards; run it without --shard (several processes may still share its results directory)", errUsage, si, sn)
	}
	limits, err := machineLimits(*maxHours)
	if err != nil {
		return err
	}
	dir := resultsDir(*results, *out)
	reportOut := *out
	if sn > 1 {
		reportOut = "" // a shard writes no report
	}
	if err := checkRunOutputs(reportOut, dir, *results != "", *plotDir, protocolInputs(*pf.config, p)); err != nil {
		return err
	}
	if *dry {
		return dryRun(ctx, stdout, p, harness.Options{Workers: *workers, Shards: sn, Limits: limits})
	}
	// Fail before training if the report, its figures or the trials
	// cannot be written; a run refused before its first trial leaves no
	// directory it made.
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
		release, err := claimOut(*out, p.ID())
		if err != nil {
			return err
		}
		defer release()
	}
	if err := made.mkdirAll(filepath.Join(dir, "trials")); err != nil {
		return fmt.Errorf("harness: results directory %s: %w", dir, err)
	}
	store, err := trial.OpenStore(dir)
	if err != nil {
		return err
	}
	start := time.Now()
	bar := &progress{w: stderr, quiet: *quiet}
	o, err := harness.Run(ctx, p, harness.Options{
		Workers: *workers, Progress: bar.update, Store: store, Shard: si, Shards: sn,
		Warn: func(msg string) { bar.warn(msg) }, Note: bar.note, Limits: limits,
	})
	bar.finish()
	if errors.Is(err, protocol.ErrBeyondLimits) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if errors.Is(err, trial.ErrInterrupted) {
		if o == nil { // stopped before any trial (loading the data)
			o = &harness.Outcome{}
		}
		fmt.Fprintf(stderr, "interrupted: %d trials saved in %s (%d reused, %d new); rerun the same command to resume\n",
			o.Reused+o.Computed, dir, o.Reused, o.Computed)
	}
	if err != nil {
		return err
	}
	if sn > 1 {
		fmt.Fprintf(stdout, "shard %d/%d: %d trials in %s (%d reused, %d new, %.1fs); when every shard is done: ideabench merge --out REPORT.json %s\n",
			si, sn, o.Reused+o.Computed, dir, o.Reused, o.Computed, time.Since(start).Seconds(), shellQuote(dir))
		return nil
	}
	if err := writeReport(stdout, o, *out, report.RunInfo{
		WallSeconds: time.Since(start).Seconds(), Workers: min(*workers, len(o.Trials)), GoVersion: runtime.Version(), Version: version(), Finished: harness.Now(), Machine: harness.Machine(),
		TrialsReused: o.Reused, TrialsRun: o.Computed, Results: dir,
	}); err != nil {
		return err
	}
	if *plotDir != "" {
		opt, err := reportOptions(o.Report, *out, false, stderr)
		if err != nil {
			return err
		}
		return writePlots(o.Report, *plotDir, opt, stdout)
	}
	return nil
}

// dryRunDoc is --dry-run's description.
const dryRunDoc = "check everything the command needs (the protocol, its files and outputs, its memory and time on this machine), print what it would train and its estimate, and stop: nothing is trained or written"

// dryRun is --dry-run: everything before p's first trial
// (harness.Preflight), then what would train and its estimate.
func dryRun(ctx context.Context, w io.Writer, p protocol.Protocol, opt harness.Options) error {
	e, err := harness.Preflight(ctx, p, opt)
	if errors.Is(err, protocol.ErrBeyondLimits) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "dry run: nothing trained or written\n  %s\n  %s\n", describeProtocol(p), e.Text(opt.Workers))
	if g := p.ExtendGrid; g != nil {
		fmt.Fprintf(w, "  a grid extension may add up to %d rounds of cfgs where a chosen rate is its grid's edge\n", g.MaxRounds)
	}
	if s := p.Sequential; s != nil {
		fmt.Fprintf(w, "  a sequential design may add seeds up to %d\n", s.MaxSeeds)
	}
	return nil
}

// describeProtocol says in one line what p trains: its id, track,
// profile, seeds and arms.
func describeProtocol(p protocol.Protocol) string {
	arms := []string{fmt.Sprintf("baseline (%d cfgs)", len(p.Baseline)), fmt.Sprintf("idea %s (%d cfgs)", p.Idea[0].IdeaConfig().Name, len(p.Idea))}
	for _, a := range p.Ideas {
		arms = append(arms, fmt.Sprintf("%s (%d cfgs)", a.Name, len(a.Grid)))
	}
	return fmt.Sprintf("protocol %s: track %s, profile %s, %d seeds; arms %s", p.ID(), p.Track, p.Profile, len(p.Seeds), strings.Join(arms, ", "))
}

// defaultMaxHours is --max-hours: a week.
const defaultMaxHours = 168

// machineLimits are the limits a run is checked against before it
// starts: the memory this machine has available (MemAvailable of
// /proc/meminfo; unchecked where that cannot be read) and maxHours.
func machineLimits(maxHours float64) (protocol.Limits, error) {
	if !(maxHours > 0) || math.IsInf(maxHours, 0) {
		return protocol.Limits{}, fmt.Errorf("%w: --max-hours = %v: must be a finite number of hours > 0; use e.g. %d", errUsage, maxHours, defaultMaxHours)
	}
	return protocol.Limits{MaxBytes: availableBytes(), MaxSeconds: maxHours * 3600}, nil
}

// availableBytes is the memory available to new processes (Linux's
// MemAvailable), 0 when unknown.
func availableBytes() float64 {
	raw, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(raw)) {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseFloat(f[0], 64); err == nil {
					return kb * 1024
				}
			}
		}
	}
	return 0
}

// resultsDir is the results directory: --results, else the --out path
// with .trials in place of its extension.
func resultsDir(results, out string) string {
	if results != "" {
		return results
	}
	return strings.TrimSuffix(out, filepath.Ext(out)) + ".trials"
}

func writeReport(stdout io.Writer, o *harness.Outcome, out string, info report.RunInfo) error {
	o.Report.SetRun(info)
	if err := o.Report.WriteFile(out); err != nil {
		return err
	}
	if err := printSummary(stdout, o.Report); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nreport: %s (%.1fs, %d workers, %d trials reused, %d run)\n", out, info.WallSeconds, info.Workers, info.TrialsReused, info.TrialsRun)
	return nil
}

// Environment of a Kubernetes Indexed Job: the pod's index is set by
// Kubernetes, the number of shards by the Job spec (see deploy/k8s).
const (
	envIndex  = "JOB_COMPLETION_INDEX"
	envShards = "IDEABENCH_SHARDS"
)

// parseShard reads --shard I/N, or else the Indexed Job variables; 0/1
// when neither is set.
func parseShard(flagVal string, getenv func(string) string) (i, n int, err error) {
	src := "--shard " + flagVal
	if flagVal == "" {
		idx, tot := getenv(envIndex), getenv(envShards)
		switch {
		case idx == "" && tot == "":
			return 0, 1, nil
		case tot == "":
			return 0, 0, fmt.Errorf("$%s = %q is set but $%s is not: set it to the Job's completions (the number of shards)", envIndex, idx, envShards)
		case idx == "":
			return 0, 0, fmt.Errorf("$%s = %q is set but $%s is not: set both, or pass --shard I/N", envShards, tot, envIndex)
		}
		flagVal, src = idx+"/"+tot, fmt.Sprintf("$%s/$%s = %s/%s", envIndex, envShards, idx, tot)
	}
	a, b, ok := strings.Cut(flagVal, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("%s: want I/N with integers, such as 0/4", src)
	}
	if n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("%s: need N >= 1 and 0 <= I < N", src)
	}
	return i, n, nil
}

func cmdMerge(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("merge")
	out := fs.String("out", "ideabench-report.json", "where to write the JSON report")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: merge takes one or more results directories\nusage: %s", errUsage, synopsis("merge"))
	}
	var dirs []named
	for _, d := range fs.Args() {
		dirs = append(dirs, named{"the results directory", d})
	}
	if err := checkOutputs([]output{{named: named{"--out", *out}}}, nil, dirs); err != nil {
		return err
	}
	var made madeDirs
	defer made.undoOnError(&err)
	if err := checkWritable(&made, *out); err != nil {
		return err
	}
	start := time.Now()
	o, err := harness.Merge(ctx, fs.Args())
	if err != nil {
		return err
	}
	return writeReport(stdout, o, *out, report.RunInfo{
		WallSeconds: time.Since(start).Seconds(), GoVersion: runtime.Version(), Version: version(), Finished: harness.Now(), Machine: harness.Machine(),
		TrialsReused: len(o.Trials), Results: strings.Join(fs.Args(), ","),
	})
}

// checkWritable checks, before any work, that the file path (a
// command's --out) can be written: a regular file or a new path, in a
// folder that can be created (recorded in made) and written.
func checkWritable(made *madeDirs, path string) error {
	if err := atomicfile.Check(path); err != nil {
		return fmt.Errorf("%w: --out: %v", errUsage, err)
	}
	if err := made.mkdirAll(filepath.Dir(path)); err != nil {
		return fmt.Errorf("--out %s: cannot write there: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".ideabench-probe-*")
	if err != nil {
		return fmt.Errorf("--out %s: cannot write there: %w", path, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// claimOut claims the report path out for the work of (lease.ClaimOutput)
// until release: a second process writing another protocol's report to
// the same path is refused before its first trial (errUsage), so
// neither replaces the other's report.
func claimOut(out, of string) (release func(), err error) {
	release, err = lease.ClaimOutput(out, of, trial.LeaseTTL)
	if errors.Is(err, lease.ErrBusy) {
		return nil, fmt.Errorf("%w: --out: %v", errUsage, err)
	}
	return release, err
}

// checkDir checks that the --plots directory can be created (recorded
// in made) and written.
func checkDir(made *madeDirs, dir string) error {
	if err := made.mkdirAll(dir); err != nil {
		return fmt.Errorf("--plots %s: cannot create it: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".ideabench-probe-*")
	if err != nil {
		return fmt.Errorf("--plots %s: cannot write there: %w", dir, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// progress draws "trials done/total, elapsed, ETA" on one stderr line.
// The clock starts at the first update, which harness.Run makes once
// before it trains anything: elapsed and ETA count the trials trained in
// this process only, never the reused ones.
type progress struct {
	w     io.Writer
	quiet bool
	drawn bool
	start time.Time // of the first update
	now   func() time.Time
	last  [3]int // done, reused and total of the last update, to draw the bar again
}

func (p *progress) clock() time.Time {
	if p.now != nil {
		return p.now()
	}
	return time.Now()
}

func (p *progress) update(done, reused, total int) {
	if p.start.IsZero() {
		p.start = p.clock()
	}
	p.last = [3]int{done, reused, total}
	if p.quiet {
		return
	}
	p.drawn = true
	fmt.Fprint(p.w, "\r"+p.line(done, reused, total, p.clock().Sub(p.start)))
}

// line is the progress line after el of training: the ETA assumes the
// trials left take as long as the ones trained so far ("?" before the
// first).
func (p *progress) line(done, reused, total int, el time.Duration) string {
	eta := "?"
	if n := done - reused; n > 0 {
		eta = time.Duration(float64(el) / float64(n) * float64(total-done)).Round(time.Second).String()
	}
	const width = 30
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if total > 0 && i < width*done/total {
			bar[i] = '#'
		}
	}
	reuse := ""
	if reused > 0 {
		reuse = fmt.Sprintf(" (%d reused)", reused)
	}
	return fmt.Sprintf("[%s] %d/%d trials%s  %s elapsed  ETA %s ", bar, done, total, reuse, el.Round(time.Second), eta)
}

// warn prints msg as a warning on its own line, above the bar.
func (p *progress) warn(msg string) { p.note("warning: " + msg) }

// note prints msg on its own line, above the bar, and draws the bar
// again below it (a wait on other processes brings no update to redraw
// it).
func (p *progress) note(msg string) {
	if !p.drawn {
		fmt.Fprintln(p.w, msg)
		return
	}
	fmt.Fprintf(p.w, "\n%s\n%s", msg, p.line(p.last[0], p.last[1], p.last[2], p.clock().Sub(p.start)))
}

func (p *progress) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

// printSummary writes the run's summary: the report's reading
// (plots.ReadingOf), the one its page shows.
func printSummary(w io.Writer, r *report.Report) error { return plots.ReadingOf(r).WriteText(w) }

// maxPeekBytes bounds the read that tells what a report file is (a
// suite's, a comparison's or a run's) before verify or plot reads it as
// one: the largest of their bounds. A larger file is refused by the
// bound of a run's report (report.Read).
const maxPeekBytes = max(report.MaxFileBytes, report.MaxComparedBytes, suitereport.MaxBytes)

func cmdVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("verify")
	results := fs.String("results", "", "the run's results directories, comma-separated (a merged run's shards): read every trial's raw values from its record there, by the key the report's protocol gives, so an edited protocol or raw value is named leaf by leaf")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: verify takes one report file\nusage: %s", errUsage, synopsis("verify"))
	}
	file := fs.Arg(0)
	if err := parseFlags(fs, fs.Args()[1:], stdout); err != nil { // flags after the file
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: verify takes one report file (got also %q)\nusage: %s", errUsage, fs.Args(), synopsis("verify"))
	}
	var dirs []string
	if *results != "" {
		dirs = strings.Split(*results, ",")
		for _, d := range dirs {
			if st, err := os.Stat(filepath.Join(d, "trials")); err != nil || !st.IsDir() {
				return fmt.Errorf("%w: --results %s: not a results directory (it has no trials/ folder); give the directory `ideabench run` wrote, by default the report's path with .trials for .json", errUsage, d)
			}
		}
	}
	if raw, err := inputfile.Read(file, maxPeekBytes); err == nil && suitereport.IsReport(raw) {
		return verifySuite(file, dirs, stdout)
	} else if err == nil && report.IsCompared(raw) {
		return verifyCompared(file, stdout)
	}
	r, err := report.Read(file)
	if err != nil {
		return err
	}
	res := derive.Verify(r, derive.VerifyOptions{Rerun: true, Results: dirs, Limits: protocol.Limits{MaxBytes: availableBytes()}})
	for _, f := range res.Findings {
		kind := "MISMATCH"
		if f.Note != "" {
			kind = "note"
		}
		fmt.Fprintf(stdout, "%s %s\n", kind, f)
	}
	bad := len(res.Mismatches())
	fmt.Fprintf(stdout, "%s: %d fields checked, %d mismatches, %d explained notes\n", file, res.Checked, bad, len(res.Findings)-bad)
	if bad > 0 {
		return fmt.Errorf("%s: %d mismatches", file, bad)
	}
	return nil
}
