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
	var todo []int
	first := map[string]int{} // trial id -> the first trial of this shard with it
	dup := map[int]int{}      // a trial -> the earlier one with its id, trained once for both
	for i := range trials {
		if i%shards != opt.Shard {
			continue
		}
		id := p.Key(trials[i], d.SHA256).ID()
		if j, ok := first[id]; ok {
			dup[i] = j
			o.Reused++
			continue
		}
		first[id] = i
		if opt.Store != nil {
			r, ok, err := opt.Store.Load(p.Key(trials[i], d.SHA256))
			if err != nil {
				if !errors.Is(err, trial.ErrCorrupt) {
					return nil, err
				}
				if opt.Warn != nil {
					opt.Warn(err.Error() + "; recomputing it")
				}
			} else if ok {
				results[i] = r
				o.Reused++
				continue
			}
		}
		todo = append(todo, i)
	}
	total := o.Reused + len(todo)
	if opt.Progress != nil {
		opt.Progress(o.Reused, o.Reused, total)
	}

	errs := make([]error, len(trials))
	workers := opt.workers()
	var mu sync.Mutex
	done := o.Reused
	// When fewer trials are left than workers, the running ones split
	// their products among the idle cores (transformer.SetThreads: the
	// same bits).
	busy, fedAll := 0, false
	defer transformer.SetThreads(transformer.SetThreads(1))
	share := func() {
		if fedAll {
			transformer.SetThreads(workers / max(1, busy))
		}
	}
	progress := func() {
		if opt.Progress != nil {
			opt.Progress(done, o.Reused, total)
		}
	}
	if opt.Store != nil {
		stop := make(chan struct{})
		defer close(stop)
		go opt.Store.RenewLeases(stop)
	}
	// Rounds: each trains the pending trials, skipping those another
	// process has claimed (lease.go); the next round, after a pause,
	// takes up the skipped ones: by then finished (their records are
	// read), still claimed (skipped again), or stale (trained here).
	pending := todo
	var waited waiting
	for round := 0; len(pending) > 0; round++ {
		if round > 0 {
			if opt.Note != nil {
				waited.note(opt.Note, func() string {
					t := trials[pending[0]]
					holder := ""
					if h := opt.Store.Holder(p.Key(t, d.SHA256).ID()); h != "" {
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
		if ctx.Err() != nil {
			break
		}
		var skipped []int
		fedAll = false
		transformer.SetThreads(1)
		next := make(chan int)
		var wg sync.WaitGroup
		for range min(workers, len(pending)) {
			wg.Go(func() {
				for i := range next {
					t := trials[i]
					k := p.Key(t, d.SHA256)
					if opt.Store != nil {
						held, err := opt.Store.Claim(k.ID())
						if err != nil || !held {
							mu.Lock()
							if err != nil {
								errs[i] = err
							} else {
								skipped = append(skipped, i)
							}
							mu.Unlock()
							continue
						}
						// Under the lease, look again: another process may
						// have saved it (and released its lease) since the
						// store was first read. A record is saved before
						// its lease is released, so it is seen here.
						if r, ok, err := opt.Store.Load(k); err == nil && ok {
							opt.Store.Release(k.ID())
							mu.Lock()
							results[i] = r
							o.Reused++
							done++
							progress()
							mu.Unlock()
							continue
						}
					}
					mu.Lock()
					busy++
					mu.Unlock()
					var (
						r   trial.Result
						err error
					)
					if p.TrainerOf(t.Arm) != nil {
						r, err = trial.RunExternal(ctx, ws, p, ds, d.SHA256, t)
					} else {
						r, err = trial.RunTrial(ctx, p, ds, p.Cfg(t), t.Seed)
					}
					mu.Lock()
					busy--
					share()
					mu.Unlock()
					if errors.Is(err, trial.ErrDiverged) {
						err = nil
					}
					if errors.Is(err, trial.ErrInterrupted) {
						// Stopped mid-training by ctx: nothing to keep;
						// Run reports the interruption below.
						if opt.Store != nil {
							opt.Store.Release(k.ID())
						}
						continue
					}
					if err == nil && opt.Store != nil {
						err = opt.Store.Save(k, r)
					}
					if opt.Store != nil {
						opt.Store.Release(k.ID())
					}
					mu.Lock()
					results[i], errs[i] = r, err
					if err == nil {
						done++
						o.Computed++
					}
					progress()
					mu.Unlock()
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
		mu.Lock()
		fedAll = true
		share()
		mu.Unlock()
		close(next)
		wg.Wait()
		if slices.ContainsFunc(errs, func(e error) bool { return e != nil && !errors.Is(e, trial.ErrTrainer) }) {
			break
		}
		slices.Sort(skipped)
		pending = skipped
	}
	for i, j := range dup {
		results[i], errs[i] = results[j], errs[j]
	}
	var failed []error
	for i, err := range errs {
		if err == nil {
			continue
		}
		t := trials[i]
		err = fmt.Errorf("trial %s cfg %d seed %d: %w", t.Arm, t.Cfg, t.Seed, err)
		if !errors.Is(err, trial.ErrTrainer) {
			return nil, fmt.Errorf("harness: %w", err)
		}
		if _, dup := dup[i]; !dup {
			failed = append(failed, err)
		}
	}
	if err := ctx.Err(); err != nil {
		if len(failed) > 0 {
			err = fmt.Errorf("%w; %d trials failed in their external trainer before:\n%w", err, len(failed), errors.Join(failed...))
		}
		return o, fmt.Errorf("harness: %w after %d of %d trials: %w", trial.ErrInterrupted, done, total, err)
	}
	if len(failed) > 0 {
		kept := "; a rerun trains them all again (give a results directory to keep finished trials)"
		if opt.Store != nil {
			kept = " are stored, and a rerun trains only the failed ones"
		}
		return o, fmt.Errorf("harness: %d of %d trials failed in their external trainer; the %d that finished (%d trained now, %d reused)%s:\n%w",
			len(failed), total, done, o.Computed, o.Reused, kept, errors.Join(failed...))
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
