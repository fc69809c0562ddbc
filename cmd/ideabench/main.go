// Command ideabench runs the seeded protocol and checks reports.
//
//	ideabench run [--config FILE] [--profile full|ci] [--out FILE] [--workers N]
//	ideabench verify REPORT.json
//	ideabench version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/ideabench/ideabench/harness"
)

// errUsage marks a command-line or config error (exit status 2).
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "ideabench:", err)
		if errors.Is(err, errUsage) {
			os.Exit(2)
		}
		os.Exit(1)
	}
}

const usage = `usage:
  ideabench run [--config FILE] [--profile full|ci] [--out FILE] [--workers N]
  ideabench verify REPORT.json
  ideabench version`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: no command\n%s", errUsage, usage)
	}
	switch args[0] {
	case "run":
		return cmdRun(ctx, args[1:], stdout, stderr)
	case "verify":
		return cmdVerify(args[1:], stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "ideabench", version())
		return nil
	}
	return fmt.Errorf("%w: unknown command %q\n%s", errUsage, args[0], usage)
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version + " " + runtime.Version()
	}
	return "(devel) " + runtime.Version()
}

func cmdRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	config := fs.String("config", "", "JSON protocol file, applied over the profile")
	profile := fs.String("profile", "full", "starting protocol: full (the reference protocol) or ci (small data)")
	out := fs.String("out", "ideabench-report.json", "where to write the JSON report")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "trials run in parallel (results do not depend on it)")
	quiet := fs.Bool("quiet", false, "no progress bar")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	p, err := harness.Profile(*profile)
	if err != nil {
		return fmt.Errorf("%w: --profile: %v", errUsage, err)
	}
	if *config != "" {
		if p, err = harness.LoadProtocol(*config, p); err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
	} else if err := p.Validate(); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if *workers < 1 {
		return fmt.Errorf("%w: --workers = %d must be >= 1", errUsage, *workers)
	}
	// Fail before training if the report cannot be written.
	if err := checkWritable(*out); err != nil {
		return err
	}
	start := time.Now()
	bar := &progress{w: stderr, start: start, quiet: *quiet}
	o, err := harness.Run(ctx, p, harness.Options{Workers: *workers, Progress: bar.update})
	bar.finish()
	if err != nil {
		return err
	}
	o.Report.Run = &harness.RunInfo{WallSeconds: time.Since(start).Seconds(), Workers: *workers, GoVersion: runtime.Version(), Version: version()}
	if err := o.Report.WriteFile(*out); err != nil {
		return err
	}
	printSummary(stdout, o.Report)
	fmt.Fprintf(stdout, "\nreport: %s (%.1fs, %d workers)\n", *out, o.Report.Run.WallSeconds, *workers)
	return nil
}

func checkWritable(path string) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".ideabench-probe-*")
	if err != nil {
		return fmt.Errorf("--out %s: cannot write there: %w", path, err)
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}

// progress draws "trials done/total, ETA" on one stderr line.
type progress struct {
	w     io.Writer
	start time.Time
	quiet bool
	drawn bool
}

func (p *progress) update(done, total int) {
	if p.quiet {
		return
	}
	el := time.Since(p.start)
	eta := time.Duration(float64(el) / float64(done) * float64(total-done))
	const width = 30
	n := width * done / total
	bar := make([]byte, width)
	for i := range bar {
		bar[i] = '.'
		if i < n {
			bar[i] = '#'
		}
	}
	fmt.Fprintf(p.w, "\r[%s] %d/%d trials  %s elapsed  ETA %s ", bar, done, total, el.Round(time.Second), eta.Round(time.Second))
	p.drawn = true
}

func (p *progress) finish() {
	if p.drawn {
		fmt.Fprintln(p.w)
	}
}

func printSummary(w io.Writer, r *harness.Report) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "track %s, model %s, %d seeds, metric: test MSE of the last position (%s)\n\n", r.Track, r.Model, r.NSeeds, r.MetricDirection)
	fmt.Fprintln(tw, "arm\tlr\trho\tbeta\tval mean\ttest mean\t")
	for _, row := range r.Baseline.Sweep {
		mark := ""
		if row.Cfg == r.Baseline.BestCfg {
			mark = "  <- best"
		}
		fmt.Fprintf(tw, "baseline\t%g\t%g\t%g\t%.4f\t%.4f\t%s\n", row.Cfg.LR, row.Cfg.Rho, row.Cfg.Beta, row.Val.Mean, row.Mean, mark)
	}
	for _, row := range r.MechanismSignature.IdeaSweep {
		mark := ""
		if row.Cfg == r.MechanismSignature.ObservedBestCfg {
			mark = "  <- best"
		}
		fmt.Fprintf(tw, "idea\t%g\t%g\t%g\t%.4f\t%.4f\t%s\n", row.Cfg.LR, row.Cfg.Rho, row.Cfg.Beta, row.Val.Mean, row.Result.Mean, mark)
	}
	tw.Flush()
	c := r.Comparison
	fmt.Fprintf(w, "\ncomparison (idea - baseline, paired by seed): delta %+.4f, idea wins %d/%d, p = %.4g (%s), MDE %.4f (%.1f%%)\n",
		c.DeltaMean, c.IdeaWins, c.NPairs, c.PValue, c.PValueMethod, c.MDE, c.MDERelPct)
	s := r.MechanismSignature.MechanismSignature
	fmt.Fprintf(w, "mechanism (block 0, seed %d): gain %.3f -> %.3f, predicted steady %.3f, pole %.4f vs rho %g: confirmed %v\n",
		s.TrainedModelSeed, s.InitialGain, s.FinalGain, s.PredictedSteadyGain, s.FittedStatePole, s.Rho, s.Confirmed)
	fmt.Fprintf(w, "math check: confirmed %v\n", r.MechanismSignature.MathCheck.Confirmed)
	if f := r.ReferenceForecasters; f != nil {
		fmt.Fprintf(w, "reference forecasters (test): persistence %.4f, linear AR %.4f, noise floor %.4f; baseline beats linear: %v, idea beats linear: %v\n",
			f.Persistence, f.LinearAR, f.NoiseFloor, f.BaselineBeatsLinear, f.IdeaBeatsLinear)
	}
	fmt.Fprintf(w, "verdict: %s; system worked: %v\n", c.Verdict, c.SystemWorked)
}

func cmdVerify(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: verify takes one report file\n%s", errUsage, usage)
	}
	r, err := harness.ReadReport(fs.Arg(0))
	if err != nil {
		return err
	}
	res := harness.Verify(r, harness.VerifyOptions{Rerun: true})
	for _, f := range res.Findings {
		kind := "MISMATCH"
		if f.Note != "" {
			kind = "note"
		}
		fmt.Fprintf(stdout, "%s %s\n", kind, f)
	}
	bad := len(res.Mismatches())
	fmt.Fprintf(stdout, "%s: %d fields checked, %d mismatches, %d explained notes\n", fs.Arg(0), res.Checked, bad, len(res.Findings)-bad)
	if bad > 0 {
		return fmt.Errorf("%s: %d mismatches", fs.Arg(0), bad)
	}
	return nil
}
