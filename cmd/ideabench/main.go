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
	"cmp"
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
	"text/tabwriter"
	"time"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/suite"
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
		return cmdDatasets(args[1:], stdout)
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
	out := fs.String("out", "ideabench-report.json", "where to write the JSON report")
	results := fs.String("results", "", "results directory: finished trials, reused on rerun (default: the --out path with .trials instead of .json)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "trials run in parallel (results do not depend on it)")
	shard := fs.String("shard", "", "I/N: run only the trials whose index is I mod N, into --results, without a report (default from $"+envIndex+" and $"+envShards+")")
	quiet := fs.Bool("quiet", false, "no progress bar")
	plotDir := fs.String("plots", "", "also draw the report's figures (PNG and SVG) into this directory")
	maxHours := fs.Float64("max-hours", defaultMaxHours, "refuse a protocol whose every epoch of every trial would take longer than this even at the fastest core's peak rate (the estimate is printed)")
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
		WallSeconds: time.Since(start).Seconds(), Workers: min(*workers, len(o.Trials)), GoVersion: runtime.Version(), Version: version(),
		TrialsReused: o.Reused, TrialsRun: o.Computed, Results: dir,
	}); err != nil {
		return err
	}
	if *plotDir != "" {
		return writePlots(o.Report, *plotDir, stdout)
	}
	return nil
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
	printSummary(stdout, o.Report)
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
		WallSeconds: time.Since(start).Seconds(), GoVersion: runtime.Version(), Version: version(),
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

func printSummary(w io.Writer, r *report.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "track %s, model %s, %d seeds, metric: test MSE of the last position (%s)\n\n", r.Track, r.Model, r.NSeeds, r.MetricDirection)
	type row struct {
		arm       string
		cfg       protocol.Cfg
		val, test float64
		best      bool
	}
	var rows []row
	var cfgs []protocol.Cfg
	for _, x := range r.Baseline.Sweep {
		rows = append(rows, row{"baseline", x.Cfg, x.Val.Mean, x.Mean, x.Cfg == r.Baseline.BestCfg})
	}
	for _, x := range r.MechanismSignature.IdeaSweep {
		rows = append(rows, row{"idea", x.Cfg, x.Val.Mean, x.Result.Mean, x.Cfg == r.MechanismSignature.ObservedBestCfg})
	}
	for _, a := range r.Ideas {
		for _, x := range a.Sweep {
			rows = append(rows, row{"idea " + a.Name, x.Cfg, x.Val.Mean, x.Result.Mean, x.Cfg == a.BestCfg})
		}
	}
	for _, x := range rows {
		cfgs = append(cfgs, x.cfg)
	}
	// Every cfg field that varies between rows gets a column; lr always.
	var cols []protocol.CfgField
	for _, f := range protocol.CfgFields {
		if f.Key == "lr" || f.Varies(cfgs) {
			cols = append(cols, f)
		}
	}
	schedule, ideas := false, false
	for _, c := range cfgs {
		schedule = schedule || c.Schedule != cfgs[0].Schedule
		ideas = ideas || c.Idea != ""
	}
	fmt.Fprint(tw, "arm\t")
	if ideas {
		fmt.Fprint(tw, "idea\t")
	}
	for _, f := range cols {
		fmt.Fprintf(tw, "%s\t", f.Key)
	}
	if schedule {
		fmt.Fprint(tw, "schedule\t")
	}
	fmt.Fprintln(tw, "val mean\ttest mean\t")
	for _, x := range rows {
		fmt.Fprintf(tw, "%s\t", x.arm)
		if ideas {
			ic := x.cfg.IdeaConfig()
			name := ic.Name
			if !ic.Params.IsZero() && ic.Name != "gate" {
				name += " " + ic.Params.String()
			}
			fmt.Fprintf(tw, "%s\t", cmp.Or(name, "-"))
		}
		for _, f := range cols {
			fmt.Fprintf(tw, "%g\t", f.Value(x.cfg))
		}
		if schedule {
			fmt.Fprintf(tw, "%s\t", cmp.Or(x.cfg.Schedule, protocol.ScheduleConstant))
		}
		mark := ""
		if x.best {
			mark = "  <- best"
		}
		if f := r.ReferenceForecasters; f != nil && derive.BlownUp(x.test, f.Persistence) {
			mark += "  BLOWN UP (over 100x persistence)"
		}
		fmt.Fprintf(tw, "%.4f\t%.4f\t%s\n", x.val, x.test, mark)
	}
	tw.Flush()
	c := r.Comparison
	fmt.Fprintln(w)
	printComparison(w, "idea", c)
	for _, a := range r.Ideas {
		printComparison(w, "idea "+a.Name, a.Comparison)
	}
	s := r.MechanismSignature.MechanismSignature
	if s.NotMeasured != "" {
		fmt.Fprintf(w, "mechanism: not measured: %s\n", s.NotMeasured)
	} else {
		fmt.Fprintf(w, "mechanism (block 0, seed %d): gain %.3f -> %.3f, predicted steady %.3f, pole %.4f vs rho %g: confirmed %v\n",
			s.TrainedModelSeed, s.InitialGain, s.FinalGain, s.PredictedSteadyGain, s.FittedStatePole, s.Rho, s.Confirmed)
	}
	fmt.Fprintf(w, "math check: confirmed %v\n", r.MechanismSignature.MathCheck.Confirmed)
	if e := r.External; e != nil {
		fmt.Fprintf(w, "external trainers: %s", strings.Join(e.Arms, ", "))
		switch m := e.Rerun; {
		case m == nil:
			fmt.Fprintln(w, "; no rerun check (every external trial diverged)")
		case m.Identical:
			fmt.Fprintf(w, "; rerun of %s cfg %d seed %d: identical forecasts (bit for bit)\n", m.Arm, m.Cfg, m.Seed)
		default:
			fmt.Fprintf(w, "; rerun of %s cfg %d seed %d: forecasts differ by up to %.3g (%.3g relative, tolerance %.3g): reproduced %v\n",
				m.Arm, m.Cfg, m.Seed, m.MaxAbsDiff, m.RelDiff, m.Tolerance, m.Reproduced)
		}
	}
	hollow := ""
	if f := r.ReferenceForecasters; f != nil {
		fmt.Fprintf(w, "reference forecasters (test): persistence %.4f", f.Persistence)
		if f.SeasonalPersistence != nil {
			fmt.Fprintf(w, ", seasonal persistence (period %d) %.4f", f.SeasonalPeriod, *f.SeasonalPersistence)
		}
		shared := ""
		if f.LinearARPerChannel != nil {
			shared = " (shared)"
		}
		fmt.Fprintf(w, ", linear AR%s %.4f", shared, f.LinearAR)
		if f.LinearCentred != nil {
			fmt.Fprintf(w, ", linear centred%s %.4f", shared, *f.LinearCentred)
		}
		if f.LinearARPerChannel != nil {
			fmt.Fprintf(w, ", linear AR per channel %.4f", *f.LinearARPerChannel)
		}
		if f.LinearCentredPerChannel != nil {
			fmt.Fprintf(w, ", linear centred per channel %.4f", *f.LinearCentredPerChannel)
		}
		if f.NoiseFloor > 0 {
			fmt.Fprintf(w, ", noise floor %.4f", f.NoiseFloor)
		}
		fmt.Fprintf(w, "; baseline %.4f, idea %.4f\n", r.Baseline.Full.Mean, r.Idea.Mean)
		if f.BestReference != "" {
			fmt.Fprintf(w, "baseline competent: %v (best reference %s %.4f, baseline better by %+.4f, %+.1f%%)\n",
				f.BaselineCompetent, f.BestReference, f.BestReferenceMSE, f.BaselineMargin, f.BaselineMarginPct)
			if !f.BaselineCompetent {
				hollow = " (HOLLOW: the baseline does not beat " + f.BestReference + ")"
			}
		}
	}
	if inf := r.Informativeness; inf != nil {
		gap := func(name string, g report.Gap) string {
			return fmt.Sprintf("over %s %+.4g (%+.2g%%, %.0f%% interval [%+.4g, %+.4g], p = %.3g)", name, g.Mean, g.Pct, 100*(1-c.Alpha), g.Lo, g.Hi, g.PValue)
		}
		parts := []string{gap("the best reference", inf.BestReference), gap("its start", inf.Start)}
		if inf.LinearPart != nil {
			parts = append(parts, gap("its skip path alone", *inf.LinearPart))
		}
		verdict := "yes"
		if !inf.CanJudge {
			verdict = "NO: " + inf.Reasons[0]
			if len(inf.Reasons) > 1 {
				verdict += fmt.Sprintf(" (and %d more reasons)", len(inf.Reasons)-1)
			}
		}
		fmt.Fprintf(w, "informative: %s\n  the baseline's margin (positive: better) %s\n", verdict, strings.Join(parts, "; "))
	}
	for _, msg := range c.Warnings {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
	fmt.Fprintf(w, "verdict: %s (%s test, p = %.4g)%s; system worked: %v\n", c.Verdict, c.Test, c.PValue, hollow, c.SystemWorked)
	switch {
	case c.PValueConditional != nil:
		fmt.Fprintf(w, "  the sign-flip test on the chosen cfgs alone, conditional on each arm's choice: p = %.4g, %s\n", *c.PValueConditional, c.VerdictConditional)
	case c.PValueSelection != nil:
		fmt.Fprintf(w, "  the selection-aware test, valid under each arm's choice of cfg: p = %.4g, %s\n", *c.PValueSelection, c.VerdictSelection)
	}
	if c.VerdictHolm != "" {
		fmt.Fprintf(w, "verdicts over the %d ideas, Holm-adjusted: idea %s", 1+len(r.Ideas), c.VerdictHolm)
		for _, a := range r.Ideas {
			fmt.Fprintf(w, ", %s %s", a.Name, a.Comparison.VerdictHolm)
		}
		fmt.Fprintln(w)
	}
	if es := r.EarlyStop; es != nil && len(es.Looks) > 0 {
		l := es.Looks[0]
		if es.SeedsSaved > 0 {
			fmt.Fprintf(w, "early stop: a sequential design (O'Brien-Fleming, looks at %d and %d seeds) would have stopped at %d seeds (p = %.4g < %.3g): %s\n",
				l.NSeeds, es.MaxSeeds, es.StoppedAt, l.PValue, l.Boundary, es.Verdict)
		} else {
			fmt.Fprintf(w, "early stop: not possible here (a look at %d seeds has p = %.4g, above its boundary %.3g)\n", l.NSeeds, l.PValue, l.Boundary)
		}
	}
	if sq := r.Sequential; sq != nil {
		fmt.Fprintf(w, "sequential (%s spending, %s test, at most %d seeds):", sq.Spending, sq.Test, sq.MaxSeeds)
		for _, l := range sq.Looks {
			fmt.Fprintf(w, " %d seeds p = %.4g vs %.3g;", l.NSeeds, l.PValue, l.Boundary)
		}
		fmt.Fprintf(w, " stopped at %d seeds (%d saved): %s\n", sq.StoppedAt, sq.SeedsSaved, sq.Verdict)
	}
	if s := r.MechanismSignature.MechanismSignature; len(s.Laws) > 0 {
		fmt.Fprintln(w, lawsLine(s.Laws, s.Confirmed))
	}
}

// printComparison writes one idea arm's comparison line (and its Holm
// adjustment when the run compares several ideas).
func printComparison(w io.Writer, name string, c report.Comparison) {
	fmt.Fprintf(w, "comparison (%s - baseline, paired by seed): delta %+.4f, wins %d/%d, p = %.4g (%s test, %s), MDE %.4f (%.1f%%)",
		name, c.DeltaMean, c.IdeaWins, c.NPairs, c.PValue, c.Test, c.PValueMethod, c.MDE, c.MDERelPct)
	if c.PValueHolm != nil {
		fmt.Fprintf(w, "; Holm p = %.4g: %s", *c.PValueHolm, c.VerdictHolm)
	}
	fmt.Fprintln(w)
	if iv := c.Intervals; iv != nil {
		fmt.Fprintf(w, "  %.0f%% interval of delta: [%+.4g, %+.4g] (paired t), [%+.4g, %+.4g] (bootstrap); P(%s better on a random seed) %.2f [%.2f, %.2f]\n",
			100*iv.Level, iv.TLo, iv.THi, iv.BootLo, iv.BootHi, name, iv.PoI, iv.PoILo, iv.PoIHi)
	}
	if pw := c.Power; pw != nil {
		seeds := func(a stats.PowerAt) string {
			if a.SeedsNeeded == 0 {
				return fmt.Sprintf("more than %d", pw.MaxSeeds)
			}
			return fmt.Sprint(a.SeedsNeeded)
		}
		fmt.Fprintf(w, "  seeds for %.0f%% power: %s at the observed effect %+.4g (power now %.2f)",
			100*pw.Target, seeds(pw.Observed), pw.Observed.Effect, pw.Observed.PowerNow)
		if m := pw.Min; m != nil {
			fmt.Fprintf(w, "; %s at min_effect %+.4g (power now %.2f)", seeds(*m), m.Effect, m.PowerNow)
		}
		fmt.Fprintln(w)
	}
}

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
	if raw, err := os.ReadFile(file); err == nil && suite.IsReport(raw) {
		return verifySuite(file, dirs, stdout)
	} else if err == nil && report.IsCompared(raw) {
		return verifyCompared(file, stdout)
	}
	r, err := report.ReadReport(file)
	if err != nil {
		return err
	}
	res := derive.Verify(r, derive.VerifyOptions{Rerun: true, Results: dirs})
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

// lawsLine is the summary's line of the mechanism laws: how many hold,
// and each one that fails with what it got and wanted.
func lawsLine(laws []idea.Law, confirmed bool) string {
	held := 0
	var failed []string
	for _, l := range laws {
		if l.Holds() {
			held++
			continue
		}
		want := fmt.Sprintf("%.4g ± %.2g", l.Want, l.Tol)
		if l.AtLeast {
			want = fmt.Sprintf(">= %.4g", l.Want)
		}
		failed = append(failed, fmt.Sprintf("%s: got %.4g, want %s", l.Name, l.Got, want))
	}
	line := fmt.Sprintf("mechanism laws: %d of %d hold (confirmed: %v)", held, len(laws), confirmed)
	if len(failed) > 0 {
		line += "; failed: " + strings.Join(failed, "; ")
	}
	return line
}
