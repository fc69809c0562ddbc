package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/atomicfile"
)

// cmdControl runs a control experiment (harness.Control): the protocol's
// baseline grid against the same grid with one idea, on many disjoint
// seed blocks, and prints the rate of significant verdicts with its 95%
// interval.
func cmdControl(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("control")
	pf := protocolFlags(fs)
	spec := fs.String("idea", "aa", "the idea: a registered name, with parameters as name:k=v,k=v (e.g. gate:rho=0.9,beta=0.5); aa is the A/A control")
	blocks := fs.Int("blocks", 100, "seed blocks, each of the protocol's number of seeds, disjoint")
	out := fs.String("out", "ideabench-control.json", "where to write the per-block results (JSON)")
	results := fs.String("results", "", "results directory: finished trials, reused on rerun (default: the --out path with .trials instead of .json)")
	workers := fs.Int("workers", runtime.GOMAXPROCS(0), "trials run in parallel (results do not depend on it)")
	quiet := fs.Bool("quiet", false, "no progress line")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: control takes no arguments (got %q)\nusage: %s", errUsage, fs.Args(), synopsis("control"))
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
	if *blocks < 1 {
		return fmt.Errorf("%w: --blocks = %d must be >= 1 (e.g. 100)", errUsage, *blocks)
	}
	if err := checkWritable(*out); err != nil {
		return err
	}
	dir := resultsDir(*results, *out)
	store, err := harness.OpenStore(dir)
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := harness.Control(ctx, p, ic, *blocks, harness.Options{Workers: *workers, Store: store}, func(done int) {
		if !*quiet {
			fmt.Fprintf(stderr, "\rblock %d/%d  %s elapsed ", done, *blocks, time.Since(start).Round(time.Second))
		}
	})
	if !*quiet {
		fmt.Fprintln(stderr)
	}
	if errors.Is(err, harness.ErrInterrupted) {
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
	fmt.Fprintf(stdout, "control %s on %s: %d blocks of %d seeds, alpha %g\n", ic.Name, p.Track, res.Blocks, res.SeedsPerBlock, res.Alpha)
	for _, t := range []struct {
		name string
		sel  bool
		w, l int
	}{{"sign-flip test on the chosen cfgs", false, res.Wins, res.Losses}, {"selection-aware test", true, res.SelectionWins, res.SelectionLosses}} {
		k, rate, lo, hi := res.Rate(t.sel)
		fmt.Fprintf(stdout, "%s: %d wins, %d losses; %s %d/%d = %.3f, 95%% interval [%.3f, %.3f] (Clopper-Pearson)\n",
			t.name, t.w, t.l, what, k, res.Blocks, rate, lo, hi)
	}
	fmt.Fprintf(stdout, "per block: %s (%.1fs)\n", *out, time.Since(start).Seconds())
	return nil
}

// parseIdea reads name or name:k=v,k=v into an idea config and checks it
// against the registry.
func parseIdea(s string) (idea.Config, error) {
	name, kvs, _ := strings.Cut(s, ":")
	m := map[string]float64{}
	if kvs != "" {
		for _, kv := range strings.Split(kvs, ",") {
			k, v, ok := strings.Cut(kv, "=")
			x, err := strconv.ParseFloat(v, 64)
			if !ok || err != nil {
				return idea.Config{}, fmt.Errorf("parameter %q: want name=number", kv)
			}
			m[k] = x
		}
	}
	c := idea.Config{Name: name, Params: idea.NewParams(m)}
	if _, err := idea.New(c); err != nil {
		return idea.Config{}, err
	}
	return c, nil
}
