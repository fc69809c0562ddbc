package suite

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/internal/atomicfile"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/suitereport"
	"github.com/ideabench/ideabench/track"
)

// Options set how a suite runs.
type Options struct {
	// Out is the suite report's path; each track's report is written
	// beside it as <Out without .json>/<track>.json and its trials kept
	// in <Out without .json>/<track>.trials.
	Out string
	// DataDir is where the data sets are looked for by name.
	DataDir string
	// Workers, Shard, Shards, Limits, Warn and Note are harness.Options'
	// for every track. A sharded call runs its shard of every track and
	// writes no report: when every shard is done, the same call without
	// a shard reuses every trial and writes the reports.
	Workers       int
	Shard, Shards int
	Limits        protocol.Limits
	Warn, Note    func(msg string)
	// Progress, when not nil, is told each track as it starts, and its
	// trials' progress (harness.Options.Progress).
	Start    func(name string, i, n int)
	Progress func(done, reused, total int)
	// Finish, when not nil, is given each track's report as it is
	// written.
	Finish func(name string, r *report.Report)
	// Version is the build's version, written into each track report's
	// run block.
	Version string
	// Confirm runs the confirmation tracks too, after the development
	// tracks. Without it they are held out (suitereport.Report.HeldOut): settle the
	// idea's settings on the development tracks first, then confirm once.
	Confirm bool
}

// Dir is the directory of a suite report's track reports and trials: its
// path without the .json.
func Dir(out string) string {
	return out[:len(out)-len(filepath.Ext(out))]
}

// CheckOut refuses a suite report path that does not end in .json: the
// track reports and trials go into the path without it.
func CheckOut(out string) error {
	if filepath.Ext(out) != ".json" {
		return fmt.Errorf("suite: report path %q: it must end in .json (its tracks go into the folder of the same name without it), e.g. %s.json", out, out)
	}
	return nil
}

// Run runs every development track of s, then with opt.Confirm every
// confirmation track,
// each as `ideabench run` would with its trials stored under the suite's
// directory, so a killed suite resumes where it stopped, writes each
// track's report, and returns the suite report (nil for a sharded call).
// A data set absent from the data directory is skipped with a note; any
// other error stops the suite, after the finished tracks' reports are
// written.
func Run(ctx context.Context, s suitereport.Spec, opt Options) (*suitereport.Report, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	if err := CheckOut(opt.Out); err != nil {
		return nil, err
	}
	start := time.Now()
	dir := Dir(opt.Out)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	// Every protocol first: a bad track fails before any training.
	type planned struct {
		spec suitereport.TrackSpec
		p    protocol.Protocol
	}
	var plan []planned
	var skipped []suitereport.Skipped
	var held []string
	for _, t := range s.Ordered() {
		if t.Confirm && !opt.Confirm {
			held = append(held, t.Name)
			continue
		}
		p, err := TrackProtocol(s, t, opt.DataDir)
		if errors.Is(err, track.ErrNotFound) {
			skipped = append(skipped, suitereport.Skipped{Name: t.Name, Reason: err.Error()})
			if opt.Warn != nil {
				opt.Warn(fmt.Sprintf("track %s skipped: %v", t.Name, err))
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		plan = append(plan, planned{t, p})
	}
	var reports []*report.Report
	var specs []suitereport.TrackSpec
	var paths, sums []string
	var heldOut []int
	for i, pl := range plan {
		if opt.Start != nil {
			opt.Start(pl.spec.Name, i, len(plan))
		}
		store, err := trial.OpenStore(filepath.Join(dir, pl.spec.Name+".trials"))
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		o, err := harness.Run(ctx, pl.p, harness.Options{
			Workers: opt.Workers, Progress: opt.Progress, Store: store, Shard: opt.Shard, Shards: opt.Shards,
			Warn: opt.Warn, Note: opt.Note, Limits: opt.Limits,
		})
		if err != nil {
			return nil, fmt.Errorf("suite: track %s: %w", pl.spec.Name, err)
		}
		if opt.Shards > 1 {
			continue
		}
		o.Report.SetRun(report.RunInfo{
			WallSeconds: time.Since(t0).Seconds(), Workers: min(max(opt.Workers, 1), len(o.Trials)),
			GoVersion: runtime.Version(), Version: opt.Version,
			TrialsReused: o.Reused, TrialsRun: o.Computed, Results: store.Dir,
		})
		rel := filepath.Join(filepath.Base(dir), pl.spec.Name+".json")
		path := filepath.Join(filepath.Dir(opt.Out), rel)
		if err := o.Report.WriteFile(path); err != nil {
			return nil, err
		}
		r, sum, err := readTrack(path)
		if err != nil {
			return nil, fmt.Errorf("suite: track %s: reading back %s: %w", pl.spec.Name, path, err)
		}
		if opt.Finish != nil {
			opt.Finish(pl.spec.Name, r)
		}
		n := 0
		if pl.spec.Confirm {
			if n, err = ledger(filepath.Join(dir, pl.spec.Name+".heldout"), r.Setup.TrialsSHA256); err != nil {
				return nil, fmt.Errorf("suite: track %s: %w", pl.spec.Name, err)
			}
		}
		reports, specs, paths, sums, heldOut = append(reports, r), append(specs, pl.spec), append(paths, rel), append(sums, sum), append(heldOut, n)
	}
	if opt.Shards > 1 {
		return nil, nil
	}
	rep, err := assemble(s, specs, reports, paths, sums, heldOut, skipped, held)
	if err != nil {
		return nil, err
	}
	rep.WallSeconds = time.Since(start).Seconds()
	if err := rep.WriteFile(opt.Out); err != nil {
		return nil, err
	}
	return rep, nil
}

// ledger records that a held-out track was reported under the protocol
// whose trials have digest sum: path holds one digest a line, each once,
// in the order first reported. It returns how many it holds.
func ledger(path, sum string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		return 0, err
	}
	lines := strings.Fields(string(raw))
	if !slices.Contains(lines, sum) {
		lines = append(lines, sum)
		data := []byte(strings.Join(lines, "\n") + "\n")
		if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return 0, err
		}
	}
	return len(lines), nil
}
