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
	// Source is where the spec came from (Open), recorded in the report
	// for verify; nil for a spec made in Go.
	Source *suitereport.Source
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
// written. Every track's protocol, and its memory as far as the protocol
// fixes it (harness.CheckBefore), is checked before the first track
// trains.
func Run(ctx context.Context, s suitereport.Spec, opt Options) (*suitereport.Report, error) {
	if err := CheckOut(opt.Out); err != nil {
		return nil, err
	}
	start := time.Now()
	dir := Dir(opt.Out)
	pl, err := Plan(s, opt)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	plan, skipped, held := pl.Tracks, pl.Skipped, pl.HeldOut
	var reports []*report.Report
	var specs []suitereport.TrackSpec
	var paths, sums []string
	var heldOut []int
	for i, pl := range plan {
		if opt.Start != nil {
			opt.Start(pl.Spec.Name, i, len(plan))
		}
		store, err := trial.OpenStore(filepath.Join(dir, pl.Spec.Name+".trials"))
		if err != nil {
			return nil, err
		}
		t0 := time.Now()
		o, err := harness.Run(ctx, pl.P, harness.Options{
			Workers: opt.Workers, Progress: opt.Progress, Store: store, Shard: opt.Shard, Shards: opt.Shards,
			Warn: opt.Warn, Note: opt.Note, Limits: opt.Limits,
		})
		if err != nil {
			return nil, fmt.Errorf("suite: track %s: %w", pl.Spec.Name, err)
		}
		if opt.Shards > 1 {
			continue
		}
		o.Report.SetRun(report.RunInfo{
			WallSeconds: time.Since(t0).Seconds(), Workers: min(max(opt.Workers, 1), len(o.Trials)),
			GoVersion: runtime.Version(), Version: opt.Version, Finished: harness.Now(), Machine: harness.Machine(),
			TrialsReused: o.Reused, TrialsRun: o.Computed, Results: store.Dir,
		})
		rel := filepath.Join(filepath.Base(dir), pl.Spec.Name+".json")
		path := filepath.Join(filepath.Dir(opt.Out), rel)
		if err := o.Report.WriteFile(path); err != nil {
			return nil, err
		}
		r, sum, err := readTrack(path)
		if err != nil {
			return nil, fmt.Errorf("suite: track %s: reading back %s: %w", pl.Spec.Name, path, err)
		}
		if opt.Finish != nil {
			opt.Finish(pl.Spec.Name, r)
		}
		n := 0
		if pl.Spec.Confirm {
			if n, err = ledger(filepath.Join(dir, pl.Spec.Name+".heldout"), r.Setup.TrialsSHA256); err != nil {
				return nil, fmt.Errorf("suite: track %s: %w", pl.Spec.Name, err)
			}
		}
		reports, specs, paths, sums, heldOut = append(reports, r), append(specs, pl.Spec), append(paths, rel), append(sums, sum), append(heldOut, n)
	}
	if opt.Shards > 1 {
		return nil, nil
	}
	rep, err := assemble(s, specs, reports, paths, sums, heldOut, skipped, held)
	if err != nil {
		return nil, err
	}
	rep.Source = opt.Source
	if hasDataset(s) {
		rep.DataDir = opt.DataDir
	}
	rep.WallSeconds = time.Since(start).Seconds()
	if err := rep.WriteFile(opt.Out); err != nil {
		return nil, err
	}
	return rep, nil
}

// Planned is what a suite will run, every protocol built and checked
// (Plan).
type Planned struct {
	// Tracks are the tracks that will run, in order, each with its
	// protocol.
	Tracks []PlannedTrack
	// Skipped are the data sets absent from the data directory, and
	// HeldOut the confirmation tracks left for --confirm.
	Skipped []suitereport.Skipped
	HeldOut []string
}

// PlannedTrack is one track of a Planned suite.
type PlannedTrack struct {
	Spec suitereport.TrackSpec
	P    protocol.Protocol
}

// Plan builds and checks every track's protocol of s as Run will run
// it, before any training and without writing anything: a bad track, two
// levels of alpha or a track beyond the machine (harness.CheckBefore,
// as far as its protocol fixes it) fails here, not after the tracks
// before it trained. A data set absent from the data directory is
// skipped with a note (opt.Warn).
func Plan(s suitereport.Spec, opt Options) (*Planned, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	out := &Planned{}
	for _, t := range s.Ordered() {
		if t.Confirm && !opt.Confirm {
			out.HeldOut = append(out.HeldOut, t.Name)
			continue
		}
		p, err := TrackProtocol(s, t, opt.DataDir)
		if errors.Is(err, track.ErrNotFound) {
			out.Skipped = append(out.Skipped, suitereport.Skipped{Name: t.Name, Reason: err.Error()})
			if opt.Warn != nil {
				opt.Warn(fmt.Sprintf("track %s skipped: %v", t.Name, err))
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(out.Tracks) > 0 && p.Alpha != out.Tracks[0].P.Alpha {
			return nil, protocol.ConfigError(fmt.Errorf("suite: track %s: alpha %v, but track %s's is %v; a suite's statistics run at one level, so give every track the same alpha (in the suite's protocol)", t.Name, p.Alpha, out.Tracks[0].Spec.Name, out.Tracks[0].P.Alpha))
		}
		out.Tracks = append(out.Tracks, PlannedTrack{t, p})
	}
	for _, pl := range out.Tracks {
		if err := harness.CheckBefore(pl.P, harness.Options{Workers: opt.Workers, Shards: opt.Shards, Limits: opt.Limits}); err != nil {
			return nil, fmt.Errorf("suite: track %s: %w", pl.Spec.Name, err)
		}
	}
	return out, nil
}

// hasDataset reports whether a track of s is a known data set, looked
// for under the data directory.
func hasDataset(s suitereport.Spec) bool {
	return slices.ContainsFunc(s.Tracks, func(t suitereport.TrackSpec) bool { return t.Dataset != "" })
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
