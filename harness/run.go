package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// Options control how a protocol runs; none of them changes a result bit.
type Options struct {
	Workers int // trials run in parallel; 0 means GOMAXPROCS
	// Progress, when not nil, is called once before the first trial is
	// trained (done == reused: the trials found finished in the store or
	// shared with an earlier trial) and after each trial that finishes
	// training, with the counts of this shard.
	Progress func(done, reused, total int)

	// Store, when set, is consulted before each trial: a valid record is
	// reused, a missing or corrupt one is (re)computed and saved as soon
	// as the trial finishes.
	Store *trial.Store
	// Shard and Shards select the trials whose index in p.Trials() is
	// congruent to Shard mod Shards; Shards 0 or 1 runs all of them. A
	// sharded run needs a Store and returns no report (see Merge).
	Shard, Shards int
	// Warn receives notes worth a user's attention (a corrupt record being
	// recomputed); may be nil.
	Warn func(msg string)
	// Note receives news of a wait on trials that another process trains
	// (their leases are held, trial/lease.go): at once, then after
	// WaitNote, twice that, and so on up to a minute apart, each with the
	// time waited and a trial waited on; may be nil.
	Note func(msg string)
	// Limits, when set, refuse a protocol whose estimate does not fit:
	// first what its settings alone fix (CheckBefore), before any data
	// are drawn or read, then the whole estimate (Protocol.Estimate),
	// before anything is trained.
	Limits protocol.Limits

	// look marks a sequential design's look (runSequential): its report
	// decides the look only, so the rerun check waits for the last.
	look bool
	// round marks a round of a grid extension (runExtended): it trains
	// the round's grids and returns their results, with no manifest
	// (the extension's is written once) and no report.
	round bool
}

// Outcome is a finished protocol: the report plus every trial's result.
type Outcome struct {
	Report  *report.Report // nil for a sharded run
	Trials  []protocol.Trial
	Results []trial.Result // aligned with Trials; zero for trials of other shards
	Data    *track.Dataset

	Reused   int // trials read from the store
	Computed int // trials trained by this call

	data *protocol.Data // the protocol's data, for a round's caller
}

// workers is the number of trials run at once.
func (opt Options) workers() int {
	if opt.Workers <= 0 {
		return runtime.GOMAXPROCS(0)
	}
	return opt.Workers
}

// plan sorts this shard's trials (every shards-th from opt.Shard): a
// trial whose record the store holds is read into o.Results (o.Reused),
// a second trial of an id already planned is trained once for both
// (dup: the later one to the first), and the rest are todo, in trial
// order. A corrupt record is retrained, with a warning.
func (o *Outcome) plan(p protocol.Protocol, d *protocol.Data, opt Options, shards int) (todo []int, dup map[int]int, err error) {
	first := map[string]int{} // trial id -> the first trial of this shard with it
	dup = map[int]int{}
	for i, t := range o.Trials {
		if i%shards != opt.Shard {
			continue
		}
		id := p.Key(t, d.SHA256).ID()
		if j, ok := first[id]; ok {
			dup[i] = j
			o.Reused++
			continue
		}
		first[id] = i
		if opt.Store != nil {
			r, ok, err := opt.Store.Load(p.Key(t, d.SHA256))
			if err != nil {
				if !errors.Is(err, trial.ErrCorrupt) {
					return nil, nil, err
				}
				if opt.Warn != nil {
					opt.Warn(err.Error() + "; recomputing it")
				}
			} else if ok {
				o.Results[i] = r
				o.Reused++
				continue
			}
		}
		todo = append(todo, i)
	}
	return todo, dup, nil
}

// runner trains the trials of one Run: its workers share the outcome's
// results, the errors and the counts under mu.
type runner struct {
	p   protocol.Protocol
	d   *protocol.Data
	ws  *trial.Workspace // the external trainers' workspace
	opt Options
	o   *Outcome

	mu      sync.Mutex
	errs    []error // aligned with o.Trials
	workers int
	done    int // trials finished, reused ones included
	total   int // trials of this shard
	// busy counts the trials training now; once every pending trial is
	// handed out (fedAll), the running ones split their products among
	// the idle cores (transformer.SetThreads: the same bits).
	busy   int
	fedAll bool
}

// progress reports the counts (Options.Progress).
func (rn *runner) progress() {
	if rn.opt.Progress != nil {
		rn.opt.Progress(rn.done, rn.o.Reused, rn.total)
	}
}

// share gives each running trial its share of the workers once no trial
// waits to start. Under mu.
func (rn *runner) share() {
	if rn.fedAll {
		transformer.SetThreads(rn.workers / max(1, rn.busy))
	}
}

// rounds trains the pending trials in rounds: each trains those no other
// process has claimed (lease.go) and skips the rest; the next round,
// after a pause, takes up the skipped ones: by then finished (their
// records are read), still claimed (skipped again), or stale (trained
// here). It stops at the first error other than an external trainer's,
// or when ctx is done.
func (rn *runner) rounds(ctx context.Context, pending []int) {
	var waited waiting
	for round := 0; len(pending) > 0; round++ {
		if round > 0 {
			rn.wait(ctx, &waited, pending)
		}
		if ctx.Err() != nil {
			return
		}
		skipped := rn.round(ctx, pending)
		if slices.ContainsFunc(rn.errs, func(e error) bool { return e != nil && !errors.Is(e, trial.ErrTrainer) }) {
			return
		}
		slices.Sort(skipped)
		pending = skipped
	}
}

// wait notes what another process holds (Options.Note) and pauses for
// trial.LeasePoll or until ctx is done.
func (rn *runner) wait(ctx context.Context, waited *waiting, pending []int) {
	opt := rn.opt
	if opt.Note != nil {
		waited.note(opt.Note, func() string {
			t := rn.o.Trials[pending[0]]
			holder := ""
			if h := opt.Store.Holder(rn.p.Key(t, rn.d.SHA256).ID()); h != "" {
				holder = " (" + h + ")"
			}
			what := fmt.Sprintf("%d trials", len(pending))
			if len(pending) == 1 {
				what = "1 trial"
			}
			return fmt.Sprintf("%s that another process sharing %s trains; the first, %s cfg %d seed %d%s", what, opt.Store.Dir, t.Arm, t.Cfg, t.Seed, holder)
		})
	}
	select {
	case <-time.After(trial.LeasePoll):
	case <-ctx.Done():
	}
}

// round trains pending on the workers and returns the trials another
// process had claimed.
func (rn *runner) round(ctx context.Context, pending []int) (skipped []int) {
	rn.fedAll = false
	transformer.SetThreads(1)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(rn.workers, len(pending)) {
		wg.Go(func() {
			for i := range next {
				if !rn.train(ctx, i) {
					rn.mu.Lock()
					skipped = append(skipped, i)
					rn.mu.Unlock()
				}
			}
		})
	}
feed:
	for _, i := range pending {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	rn.mu.Lock()
	rn.fedAll = true
	rn.share()
	rn.mu.Unlock()
	close(next)
	wg.Wait()
	return skipped
}

// train trains trial i under its lease (or reads the record another
// process saved meanwhile) and records its result or error; false when
// another process holds the trial.
func (rn *runner) train(ctx context.Context, i int) bool {
	p, opt, t := rn.p, rn.opt, rn.o.Trials[i]
	k := p.Key(t, rn.d.SHA256)
	if opt.Store != nil {
		held, err := opt.Store.Claim(k.ID())
		if err != nil {
			rn.mu.Lock()
			rn.errs[i] = err
			rn.mu.Unlock()
			return true
		}
		if !held {
			return false
		}
		// Under the lease, look again: another process may have saved
		// it (and released its lease) since the store was first read. A
		// record is saved before its lease is released, so it is seen
		// here.
		if r, ok, err := opt.Store.Load(k); err == nil && ok {
			opt.Store.Release(k.ID())
			rn.mu.Lock()
			rn.o.Results[i] = r
			rn.o.Reused++
			rn.done++
			rn.progress()
			rn.mu.Unlock()
			return true
		}
	}
	rn.mu.Lock()
	rn.busy++
	rn.mu.Unlock()
	var (
		r   trial.Result
		err error
	)
	if p.TrainerOf(t.Arm) != nil {
		r, err = trial.RunExternal(ctx, rn.ws, p, rn.o.Data, rn.d.SHA256, t)
	} else {
		r, err = trial.RunTrial(ctx, p, rn.o.Data, p.Cfg(t), t.Seed)
	}
	rn.mu.Lock()
	rn.busy--
	rn.share()
	rn.mu.Unlock()
	if errors.Is(err, trial.ErrDiverged) {
		err = nil
	}
	if errors.Is(err, trial.ErrInterrupted) {
		// Stopped mid-training by ctx: nothing to keep; Run reports the
		// interruption.
		if opt.Store != nil {
			opt.Store.Release(k.ID())
		}
		return true
	}
	if err == nil && opt.Store != nil {
		err = opt.Store.Save(k, r)
	}
	if opt.Store != nil {
		opt.Store.Release(k.ID())
	}
	rn.mu.Lock()
	rn.o.Results[i], rn.errs[i] = r, err
	if err == nil {
		rn.done++
		rn.o.Computed++
	}
	rn.progress()
	rn.mu.Unlock()
	return true
}

// failures gives each duplicate trial its first's result, then reports
// what failed: a trial's error other than an external trainer's ends the
// run with no outcome; an interruption (ctx) says how far it got, and
// external trainers' failures are listed together after every other
// trial finished, both with the outcome so far (partial).
func (rn *runner) failures(ctx context.Context, dup map[int]int) (partial bool, err error) {
	o := rn.o
	for i, j := range dup {
		o.Results[i], rn.errs[i] = o.Results[j], rn.errs[j]
	}
	var failed []error
	for i, err := range rn.errs {
		if err == nil {
			continue
		}
		t := o.Trials[i]
		err = fmt.Errorf("trial %s cfg %d seed %d: %w", t.Arm, t.Cfg, t.Seed, err)
		if !errors.Is(err, trial.ErrTrainer) {
			return false, fmt.Errorf("harness: %w", err)
		}
		if _, dup := dup[i]; !dup {
			failed = append(failed, err)
		}
	}
	if err := ctx.Err(); err != nil {
		if len(failed) > 0 {
			err = fmt.Errorf("%w; %d trials failed in their external trainer before:\n%w", err, len(failed), errors.Join(failed...))
		}
		return true, fmt.Errorf("harness: %w after %d of %d trials: %w", trial.ErrInterrupted, rn.done, rn.total, err)
	}
	if len(failed) > 0 {
		kept := "; a rerun trains them all again (give a results directory to keep finished trials)"
		if rn.opt.Store != nil {
			kept = " are stored, and a rerun trains only the failed ones"
		}
		return true, fmt.Errorf("harness: %d of %d trials failed in their external trainer; the %d that finished (%d trained now, %d reused)%s:\n%w",
			len(failed), rn.total, rn.done, o.Computed, o.Reused, kept, errors.Join(failed...))
	}
	return false, nil
}

// WaitNote is the pause before the second note of a wait on other
// processes' trials (Options.Note); each later pause doubles, up to a
// minute.
var WaitNote = 5 * time.Second

// waiting paces the notes of a wait (Options.Note).
type waiting struct {
	start, next time.Time
	gap         time.Duration
}

// note calls note with what is waited on (what) and the time waited:
// at the first call, then once the pause has passed.
func (w *waiting) note(note func(string), what func() string) {
	now := time.Now()
	if w.start.IsZero() {
		w.start, w.gap = now, WaitNote
	} else if now.Before(w.next) {
		return
	} else {
		w.gap = min(2*w.gap, time.Minute)
	}
	w.next = now.Add(w.gap)
	note(fmt.Sprintf("waiting for %s: %s so far", what(), now.Sub(w.start).Round(time.Second)))
}

// CheckBefore refuses p when what its settings alone fix cannot fit
// within opt.Limits on opt's workers (Protocol.CheckBefore, by the
// built-in model's cost, trial.Costs): the check Run makes before it
// draws or reads any data, and a suite of every track before the first
// trains.
func CheckBefore(p protocol.Protocol, opt Options) error {
	return p.CheckBefore(opt.Limits, opt.workers(), len(p.Trials())/max(opt.Shards, 1), trial.Costs(p))
}

// Preflight does what Run does before its first trial, and nothing
// after: it validates p and pins its trainers' files, builds its track
// within opt.Limits (CheckBefore, then the data), checks the whole
// estimate against them, writing nothing (the reference forecasters
// are fitted when the run starts). It returns the estimate of the trials p lists (a grid
// extension's later rounds, a sequential design's later looks and a
// control's blocks train more). ideabench run --dry-run is this.
func Preflight(ctx context.Context, p protocol.Protocol, opt Options) (protocol.Estimate, error) {
	if err := p.Validate(); err != nil {
		return protocol.Estimate{}, err
	}
	p, err := p.Pin()
	if err != nil {
		return protocol.Estimate{}, err
	}
	d, err := dataWithin(ctx, p, opt)
	if err != nil {
		return protocol.Estimate{}, err
	}
	e := p.Estimate(d.Dataset, len(p.Trials())/max(opt.Shards, 1), trial.Costs(p))
	return e, e.Check(opt.Limits, opt.workers())
}

// dataWithin builds p's data within opt.Limits (CheckBefore, then
// Protocol.DataWithin); loading stopped by ctx is an interruption
// (trial.ErrInterrupted).
func dataWithin(ctx context.Context, p protocol.Protocol, opt Options) (*protocol.Data, error) {
	if err := CheckBefore(p, opt); err != nil {
		return nil, err
	}
	d, err := p.DataWithin(ctx, opt.Limits)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("harness: %w before any trial: %w", trial.ErrInterrupted, err)
	}
	return d, err
}

// Run executes the seeded protocol:
//
//  1. Build the track from its recorded data seed.
//  2. Train every cfg of both arms on every seed (in parallel; each trial
//     is single-threaded and fully determined by (protocol, cfg, seed)),
//     reusing the trials already in opt.Store.
//  3. Pick each arm's best cfg by mean validation metric.
//  4. Compare the chosen cfgs' per-seed test metrics seed by seed.
//  5. Read the mechanism signature of the idea's best cfg on the first
//     seed and run the math check.
//
// A trial whose loss becomes NaN or Inf is a result, not an error: it is
// recorded as diverged (see Derive). When ctx is cancelled no new trial
// starts, the running ones stop at their next training step and are not
// saved (every finished one is), and Run returns an error wrapping
// ErrInterrupted.
func Run(ctx context.Context, p protocol.Protocol, opt Options) (*Outcome, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p, err := p.Pin()
	if err != nil {
		return nil, err
	}
	if p.Sequential != nil {
		if opt.Shards > 1 {
			return nil, errors.New("harness: a sequential protocol decides after each look, so it cannot run in shards; run it without --shard (several processes may still share its results directory)")
		}
		return runSequential(ctx, p, opt)
	}
	if p.ExtendGrid != nil {
		return runExtended(ctx, p, opt)
	}
	shards := max(opt.Shards, 1)
	if opt.Shard < 0 || opt.Shard >= shards {
		return nil, fmt.Errorf("harness: shard %d of %d: the index must be in [0, %d)", opt.Shard, shards, shards)
	}
	if shards > 1 && opt.Store == nil {
		return nil, errors.New("harness: a sharded run needs a results directory to write into")
	}
	d, err := dataWithin(ctx, p, opt)
	if err != nil {
		return nil, err
	}
	ds := d.Dataset
	trials := p.Trials()
	ws, cleanup, err := workspace(p, opt.Store)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	if err := p.Estimate(ds, len(trials)/shards, trial.Costs(p)).Check(opt.Limits, opt.workers()); err != nil {
		return nil, err
	}
	// The reference forecasters before any training: a track they cannot
	// be fitted on fails now, not after the trials (the fits are kept
	// for the report).
	if _, err := p.References(ds); err != nil {
		return nil, err
	}
	results := make([]trial.Result, len(trials))
	o := &Outcome{Trials: trials, Results: results, Data: ds, data: d}
	if opt.Store != nil && !opt.round {
		if err := opt.Store.WriteManifest(p, d.SHA256, opt.Shard, shards); err != nil {
			return nil, err
		}
	}
	todo, dup, err := o.plan(p, d, opt, shards)
	if err != nil {
		return nil, err
	}
	rn := &runner{p: p, d: d, ws: ws, opt: opt, o: o, errs: make([]error, len(trials)), workers: opt.workers(),
		done: o.Reused, total: o.Reused + len(todo)}
	rn.progress()
	defer transformer.SetThreads(transformer.SetThreads(1))
	if opt.Store != nil {
		stop := make(chan struct{})
		defer close(stop)
		go opt.Store.RenewLeases(stop)
	}
	rn.rounds(ctx, todo)
	if partial, err := rn.failures(ctx, dup); err != nil {
		if !partial {
			return nil, err
		}
		return o, err
	}
	if shards > 1 || opt.round {
		return o, nil
	}
	var rerun *protocol.Reproduction
	if !opt.look {
		if rerun, err = rerunCheck(ctx, ws, nil, p, ds, d.SHA256, trials, results); err != nil {
			return o, err
		}
	}
	r, err := derive.Assemble(p, d, trials, results, rerun)
	if err != nil {
		return nil, err
	}
	o.Report = r
	return o, nil
}
