package harness

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/stats"
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
	Store *Store
	// Shard and Shards select the trials whose index in p.Trials() is
	// congruent to Shard mod Shards; Shards 0 or 1 runs all of them. A
	// sharded run needs a Store and returns no report (see Merge).
	Shard, Shards int
	// Warn receives notes worth a user's attention (a corrupt record being
	// recomputed); may be nil.
	Warn func(msg string)
}

// Outcome is a finished protocol: the report plus every trial's result.
type Outcome struct {
	Report  *Report // nil for a sharded run
	Trials  []Trial
	Results []Result // aligned with Trials; zero for trials of other shards
	Data    *track.Dataset

	Reused   int // trials read from the store
	Computed int // trials trained by this call
}

// ErrInterrupted marks a run stopped by its context; every trial that
// finished before is in the store.
var ErrInterrupted = errors.New("run interrupted")

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
// recorded as diverged (see Assemble). When ctx is cancelled no new trial
// starts, the running ones finish and are saved, and Run returns an error
// wrapping ErrInterrupted.
func Run(ctx context.Context, p Protocol, opt Options) (*Outcome, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Sequential != nil {
		if opt.Shards > 1 {
			return nil, errors.New("harness: a sequential protocol decides after each look, so it cannot run in shards; run it without --shard (several processes may still share its results directory)")
		}
		return runSequential(ctx, p, opt)
	}
	shards := max(opt.Shards, 1)
	if opt.Shard < 0 || opt.Shard >= shards {
		return nil, fmt.Errorf("harness: shard %d of %d: the index must be in [0, %d)", opt.Shard, shards, shards)
	}
	if shards > 1 && opt.Store == nil {
		return nil, errors.New("harness: a sharded run needs a results directory to write into")
	}
	d, err := p.Data()
	if err != nil {
		return nil, err
	}
	ds := d.Dataset
	trials := p.Trials()
	results := make([]Result, len(trials))
	o := &Outcome{Trials: trials, Results: results, Data: ds}
	if opt.Store != nil {
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
				if !errors.Is(err, ErrCorrupt) {
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
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
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
		go opt.Store.renewLeases(stop)
	}
	// Rounds: each trains the pending trials, skipping those another
	// process has claimed (lease.go); the next round, after a pause,
	// takes up the skipped ones: by then finished (their records are
	// read), still claimed (skipped again), or stale (trained here).
	pending := todo
	for round := 0; len(pending) > 0; round++ {
		if round > 0 {
			select {
			case <-time.After(leasePoll):
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
					r, err := RunTrial(p, ds, p.cfg(t), t.Seed)
					mu.Lock()
					busy--
					share()
					mu.Unlock()
					if errors.Is(err, ErrDiverged) {
						err = nil
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
		if slices.ContainsFunc(errs, func(e error) bool { return e != nil }) {
			break
		}
		slices.Sort(skipped)
		pending = skipped
	}
	for i, j := range dup {
		results[i], errs[i] = results[j], errs[j]
	}
	for i, err := range errs {
		if err != nil {
			t := trials[i]
			return nil, fmt.Errorf("harness: trial %s cfg %d seed %d: %w", t.Arm, t.Cfg, t.Seed, err)
		}
	}
	if err := ctx.Err(); err != nil {
		return o, fmt.Errorf("harness: %w after %d of %d trials: %w", ErrInterrupted, done, total, err)
	}
	if shards > 1 {
		return o, nil
	}
	r, err := Assemble(p, ds, trials, results)
	if err != nil {
		return nil, err
	}
	o.Report = r
	return o, nil
}

// ideaSweep summarizes an idea arm's grid from its per-cfg val and test
// metrics and picks its best cfg (argBest on the val means).
func ideaSweep(grid []Cfg, val, test [][]float64, diverged []int) ([]IdeaRow, int) {
	var rows []IdeaRow
	var means []float64
	for i, c := range grid {
		v := summary(stats.Summarize(val[i]))
		rows = append(rows, IdeaRow{Cfg: c, Result: summary(stats.Summarize(test[i])), Val: &v})
		means = append(means, v.Mean)
	}
	return rows, argBest(means, diverged)
}

// compare is the paired comparison of the chosen cfgs' per-seed test
// metrics, as the report writes it.
func compare(b, x []float64, dir stats.Direction, alpha, minEffect float64) (Comparison, error) {
	opt := stats.DefaultOptions()
	opt.Alpha = alpha
	c, err := stats.Compare(b, x, dir, &opt)
	if err != nil {
		return Comparison{}, fmt.Errorf("harness: comparison: %w", err)
	}
	out := Comparison{
		DeltaMean: c.DeltaMean, IdeaWins: c.IdeaWins, NPairs: c.NPairs, PerSeedDiffs: c.PerSeedDiffs,
		PValue: c.PValue, MDE: c.MDE, MDERelPct: c.MDERelPct, Verdict: c.Verdict,
		PValueMethod: c.PValueMethod, PValueDraws: c.PValueDraws, Alpha: alpha,
	}
	for _, w := range c.Warnings {
		out.Warnings = append(out.Warnings, w.Error())
	}
	if err := out.estimate(b, x, dir, minEffect); err != nil {
		return Comparison{}, err
	}
	if out.Verdict != stats.VerdictNoWin && minEffect != 0 && math.Abs(out.DeltaMean) < math.Abs(minEffect) {
		out.Warnings = append(out.Warnings, fmt.Sprintf(
			"negligible effect: a %s, but |delta_mean| = %.4g is below the protocol's min_effect %.4g: detectable, and smaller than the effect declared worth having",
			out.Verdict, math.Abs(out.DeltaMean), math.Abs(minEffect)))
	}
	return out, nil
}

// StatsSeed seeds the report's bootstraps and power simulations: fixed,
// so a report re-derives to the bit.
const StatsSeed = 1

// estimate adds the interval estimates and the power analysis to c (from
// two or more pairs): stats.IntervalsOf and stats.PowerOf at c.Alpha,
// seeded with StatsSeed, with minEffect as the effect of interest.
func (c *Comparison) estimate(b, x []float64, dir stats.Direction, minEffect float64) error {
	if len(b) < 2 {
		return nil
	}
	iv, err := stats.IntervalsOf(b, x, dir, c.Alpha, StatsSeed)
	if err != nil {
		return fmt.Errorf("harness: intervals: %w", err)
	}
	pw, err := stats.PowerOf(c.PerSeedDiffs, c.Alpha, minEffect, StatsSeed)
	if err != nil {
		return fmt.Errorf("harness: power: %w", err)
	}
	c.Intervals, c.Power = &iv, &pw
	return nil
}

// selectionTest sets the selection-aware p-value and verdict of c when
// the idea arm's grid pairs with the baseline's (the same length).
func selectionTest(c *Comparison, b, x stats.Arm, dir stats.Direction) error {
	if len(b.Val) != len(x.Val) {
		return nil
	}
	opt := stats.DefaultOptions()
	opt.Alpha = c.Alpha
	p, err := stats.SelectionPValue(b, x, dir, &opt)
	if err != nil {
		return fmt.Errorf("harness: selection-aware test: %w", err)
	}
	c.PValueSelection = &p
	c.VerdictSelection = stats.VerdictOf(p, c.DeltaMean, c.Alpha, dir, c.NPairs)
	return nil
}

// selectionWarning says when the arms chose cfgs at different grid
// indices of paired grids: the sign-flip verdict then also measures the
// difference between those cfgs, and the selection-aware one is the
// idea's.
func selectionWarning(name string, c Comparison, bGrid []Cfg, bBest int, xGrid []Cfg, xBest int) string {
	if c.PValueSelection == nil || bBest == xBest {
		return ""
	}
	return fmt.Sprintf("different cfgs: the baseline chose cfg %d (lr %g) and %s cfg %d (lr %g), so the sign-flip p = %.4g compares those cfgs as well as the idea; the selection-aware test, which repeats both choices under every relabelling, gives p = %.4g (%s)",
		bBest, bGrid[bBest].LR, name, xBest, xGrid[xBest].LR, c.PValue, *c.PValueSelection, c.VerdictSelection)
}

// holm adjusts the p-values of every idea arm (the idea and Ideas) with
// Holm's step-down method and sets their Holm verdicts; a run of one
// idea has nothing to adjust.
func (r *Report) holm(dir stats.Direction) {
	if len(r.Ideas) == 0 {
		return
	}
	cs := []*Comparison{&r.Comparison}
	for k := range r.Ideas {
		cs = append(cs, &r.Ideas[k].Comparison)
	}
	var ps []float64
	for _, c := range cs {
		ps = append(ps, c.PValue)
	}
	for i, q := range stats.Holm(ps) {
		c := cs[i]
		c.PValueHolm = &q
		c.VerdictHolm = stats.VerdictOf(q, c.DeltaMean, c.Alpha, dir, c.NPairs)
	}
	sel := selectionPs(cs)
	if sel == nil {
		return
	}
	for i, q := range stats.Holm(sel) {
		c := cs[i]
		c.PValueSelectionHolm = &q
		c.VerdictSelectionHolm = stats.VerdictOf(q, c.DeltaMean, c.Alpha, dir, c.NPairs)
	}
}

// selectionPs returns the selection-aware p-values of cs, nil unless
// every comparison has one.
func selectionPs(cs []*Comparison) []float64 {
	var ps []float64
	for _, c := range cs {
		if c.PValueSelection == nil {
			return nil
		}
		ps = append(ps, *c.PValueSelection)
	}
	return ps
}

// armTable returns, for one arm, the per-cfg per-seed val and test metrics
// and the number of diverged seeds of each cfg.
func armTable(trials []Trial, results []Result, arm string, ncfg int) (val, test [][]float64, diverged []int) {
	val, test, diverged = make([][]float64, ncfg), make([][]float64, ncfg), make([]int, ncfg)
	for i, t := range trials {
		if t.Arm == arm {
			val[t.Cfg] = append(val[t.Cfg], results[i].Val)
			test[t.Cfg] = append(test[t.Cfg], results[i].Test)
			if results[i].Diverged {
				diverged[t.Cfg]++
			}
		}
	}
	return val, test, diverged
}

// argBest is the selection rule: the cfg with the fewest diverged seeds,
// then the lowest mean; ties go to the earlier cfg. diverged may be nil
// (no divergence).
func argBest(means []float64, diverged []int) int {
	nd := func(i int) int {
		if diverged == nil {
			return 0
		}
		return diverged[i]
	}
	best := 0
	for i, m := range means {
		if nd(i) < nd(best) || nd(i) == nd(best) && m < means[best] {
			best = i
		}
	}
	return best
}

// substitute replaces the metrics of diverged trials (+Inf) by the
// worst finite value of the same split over all trials, so that they
// count as the worst result in every mean and in the paired comparison
// while the report stays finite (JSON has no Inf). It returns the
// substituted copies and the Divergence block, nil when nothing diverged.
func substitute(trials []Trial, results []Result) ([]Result, *Divergence, error) {
	div := &Divergence{Rule: DivergenceRule}
	worstVal, worstTest := math.Inf(-1), math.Inf(-1)
	for i, r := range results {
		if r.Diverged {
			t := trials[i]
			div.Trials = append(div.Trials, DivergedTrial{Arm: t.Arm, Cfg: t.Cfg, Seed: t.Seed, Step: r.DivergedStep})
			continue
		}
		worstVal, worstTest = max(worstVal, r.Val), max(worstTest, r.Test)
	}
	if len(div.Trials) == 0 {
		return results, nil, nil
	}
	if len(div.Trials) == len(results) {
		return nil, nil, errors.New("harness: every trial diverged (loss NaN or Inf); lower the learning rates")
	}
	div.ValSubstitute, div.TestSubstitute = worstVal, worstTest
	out := slices.Clone(results)
	for i := range out {
		if out[i].Diverged {
			out[i].Val, out[i].Test = worstVal, worstTest
		}
	}
	return out, div, nil
}

// Assemble builds the report from finished trials (aligned with
// p.Trials()).
func Assemble(p Protocol, ds *track.Dataset, trials []Trial, results []Result) (*Report, error) {
	dir := stats.LowerIsBetter
	results, div, err := substitute(trials, results)
	if err != nil {
		return nil, err
	}
	r := &Report{
		BenchVersion: BenchVersion, Track: p.Track, Model: p.Model,
		MetricDirection: dir.String(), NSeeds: len(p.Seeds),
		Setup: &Setup{Protocol: p}, Diverged: div,
	}
	bVal, bTest, bDiv := armTable(trials, results, "baseline", len(p.Baseline))
	iVal, iTest, iDiv := armTable(trials, results, "idea", len(p.Idea))

	var bMeans []float64
	for i, c := range p.Baseline {
		v := summary(stats.Summarize(bVal[i]))
		t := stats.Summarize(bTest[i])
		r.Baseline.Sweep = append(r.Baseline.Sweep, SweepRow{Cfg: c, Mean: t.Mean, Val: &v, PerSeed: t.PerSeed})
		bMeans = append(bMeans, v.Mean)
	}
	bBest := argBest(bMeans, bDiv)
	r.Baseline.BestCfg = p.Baseline[bBest]
	r.Baseline.Full = summary(stats.Summarize(bTest[bBest]))

	var iBest int
	r.MechanismSignature.IdeaSweep, iBest = ideaSweep(p.Idea, iVal, iTest, iDiv)
	r.Idea = r.MechanismSignature.IdeaSweep[iBest].Result
	r.MechanismSignature.ObservedBestCfg = p.Idea[iBest]
	r.MechanismSignature.TrackRationale = trackRationale(p)

	minEff := p.minEffect(r.Baseline.Full.Mean, dir)
	cmp, err := compare(r.Baseline.Full.PerSeed, r.Idea.PerSeed, dir, p.Alpha, minEff)
	if err != nil {
		return nil, err
	}
	base := stats.Arm{Val: bVal, Test: bTest}
	if err := selectionTest(&cmp, base, stats.Arm{Val: iVal, Test: iTest}, dir); err != nil {
		return nil, err
	}
	r.Comparison = cmp
	if w := selectionWarning("idea", cmp, p.Baseline, bBest, p.Idea, iBest); w != "" {
		r.Comparison.Warnings = append(r.Comparison.Warnings, w)
	}
	for k, a := range p.Ideas {
		val, test, dv := armTable(trials, results, ideasArm(k), len(a.Grid))
		sweep, best := ideaSweep(a.Grid, val, test, dv)
		c, err := compare(r.Baseline.Full.PerSeed, sweep[best].Result.PerSeed, dir, p.Alpha, minEff)
		if err != nil {
			return nil, err
		}
		if err := selectionTest(&c, base, stats.Arm{Val: val, Test: test}, dir); err != nil {
			return nil, err
		}
		if w := selectionWarning(a.Name, c, p.Baseline, bBest, a.Grid, best); w != "" {
			c.Warnings = append(c.Warnings, w)
		}
		r.Ideas = append(r.Ideas, IdeaReport{Name: a.Name, BestCfg: a.Grid[best], Sweep: sweep, Result: sweep[best].Result, Comparison: c})
	}
	r.holm(dir)
	if w := identityWarning(p.Idea[iBest]); w != "" {
		r.Comparison.Warnings = append(r.Comparison.Warnings, w)
	}
	if div != nil {
		r.Comparison.Warnings = append(r.Comparison.Warnings, fmt.Sprintf(
			"%d trial(s) diverged (see diverged); each counts as the worst finite metric of its split (val %.6g, test %.6g)",
			len(div.Trials), div.ValSubstitute, div.TestSubstitute))
	}

	// Mechanism signature: idea best cfg, first seed.
	for i, t := range trials {
		if t.Arm == "idea" && t.Cfg == iBest && t.Seed == p.Seeds[0] {
			res := results[i]
			c := p.Idea[iBest]
			s := SignatureJSON{TrainedModelSeed: t.Seed, Metric: res.Test, Rho: c.Rho, Beta: c.Beta}
			switch ic := c.IdeaConfig(); {
			case res.Signature != nil && len(res.Signature.Layers) > 0:
				l0 := res.Signature.Layers[0]
				layer := 0
				s.InitialGain, s.FinalGain, s.MeanState = l0.InitialGain, l0.FinalGain, l0.MeanState
				s.PredictedSteadyGain, s.FittedStatePole, s.Confirmed = l0.PredictedSteadyGain, l0.FittedStatePole, l0.Confirmed
				s.Layer, s.Layers = &layer, res.Signature.Layers
				s.Laws = idea.GateLaws(c.Rho, res.Signature.Layers)
			case res.Signature != nil && len(res.Signature.Laws) > 0:
				s.Laws, s.Confirmed = res.Signature.Laws, idea.AllHold(res.Signature.Laws)
			case ic.Name != "gate":
				s.NotMeasured = notMeasured(ic)
			case c.Beta == 0:
				s.NotMeasured = "the gate is at beta 0, the identity: there is nothing to probe"
			default:
				s.NotMeasured = "the gate's states gave no finite signature (constant states defeat the pole fit)"
			}
			r.MechanismSignature.MechanismSignature = s
		}
	}
	arms := [][]Cfg{p.Idea}
	for _, a := range p.Ideas {
		arms = append(arms, a.Grid)
	}
	mc, err := mathCheck(arms...)
	if err != nil {
		return nil, err
	}
	r.MechanismSignature.MathCheck = mc
	r.Training = &Training{Baseline: curves(trials, results, "baseline", bBest, p.Baseline[bBest]), Idea: curves(trials, results, "idea", iBest, p.Idea[iBest])}
	r.Comparison.SystemWorked = cmp.Verdict == stats.VerdictWin && r.MechanismSignature.MechanismSignature.Confirmed && mc.Confirmed

	pj := ProtocolJSON{Seeds: p.Seeds, Epochs: r.Baseline.BestCfg.Epochs}
	for _, c := range p.Baseline {
		pj.BaselineLRGrid = append(pj.BaselineLRGrid, c.LR)
	}
	for _, c := range p.Idea {
		pj.IdeaLRGrid = append(pj.IdeaLRGrid, c.LR)
	}
	r.MechanismSignature.Protocol = pj

	f, err := forecasters(ds)
	if err != nil {
		return nil, err
	}
	f.BaselineBeatsLinear = r.Baseline.Full.Mean < f.LinearAR
	f.IdeaBeatsLinear = r.Idea.Mean < f.LinearAR
	f.judge(r.Baseline.Full.Mean)
	r.ReferenceForecasters = f
	if !f.BaselineCompetent {
		r.Comparison.Warnings = append(r.Comparison.Warnings, fmt.Sprintf(
			"hollow comparison: the baseline's test mean %.6g does not beat the best reference forecaster, %s (%.6g; the baseline is %.3g%% worse); a win over this baseline says little: train or tune the baseline until it does",
			r.Baseline.Full.Mean, f.BestReference, f.BestReferenceMSE, -f.BaselineMarginPct))
	}
	r.Comparison.Warnings = append(r.Comparison.Warnings, blownUp(r, f.Persistence)...)
	if tb, err := tuningBudget(r, dir); err == nil {
		r.TuningBudget = tb
		if w := budgetWarning("idea", tb.Baseline, tb.Idea, dir); w != "" {
			r.Comparison.Warnings = append(r.Comparison.Warnings, w)
		}
		for k, a := range tb.Ideas {
			if w := budgetWarning(a.Name, tb.Baseline, a.Curve, dir); w != "" {
				r.Ideas[k].Comparison.Warnings = append(r.Ideas[k].Comparison.Warnings, w)
			}
		}
	}
	r.Comparison.Warnings = append(r.Comparison.Warnings, gridEdges("baseline", p.Baseline, bBest)...)
	r.Comparison.Warnings = append(r.Comparison.Warnings, gridEdges("idea", p.Idea, iBest)...)
	for _, a := range []struct {
		name string
		ac   ArmCurves
	}{{"baseline", r.Training.Baseline}, {"idea", r.Training.Idea}} {
		if w := firstEpochStop(a.name, a.ac, p.Arch.Skip); w != "" {
			r.Comparison.Warnings = append(r.Comparison.Warnings, w)
		}
	}
	if es, err := earlyStop(r, p.Alpha); err == nil {
		r.EarlyStop = es
	}
	return r, nil
}

// tuningBudget computes every arm's tuning-budget curve from its sweep's
// val and test means; an error when a row has no val summary (a report
// of the seed schema).
func tuningBudget(r *Report, dir stats.Direction) (*TuningBudget, error) {
	curve := func(rows []IdeaRow) ([]stats.BudgetPoint, error) {
		var val, test []float64
		for i, row := range rows {
			if row.Val == nil {
				return nil, fmt.Errorf("harness: sweep row %d has no val summary", i)
			}
			val, test = append(val, row.Val.Mean), append(test, row.Result.Mean)
		}
		return stats.Budget(val, test, dir)
	}
	var base []IdeaRow
	for _, row := range r.Baseline.Sweep {
		base = append(base, IdeaRow{Cfg: row.Cfg, Val: row.Val, Result: Summary{Mean: row.Mean}})
	}
	tb := &TuningBudget{Method: stats.BudgetMethod}
	var err error
	if tb.Baseline, err = curve(base); err != nil {
		return nil, err
	}
	if tb.Idea, err = curve(r.MechanismSignature.IdeaSweep); err != nil {
		return nil, err
	}
	tb.WinnerChanges = winnerChanges(tb.Baseline, tb.Idea, dir)
	for _, a := range r.Ideas {
		c, err := curve(a.Sweep)
		if err != nil {
			return nil, err
		}
		tb.Ideas = append(tb.Ideas, ArmBudget{Name: a.Name, Curve: c, WinnerChanges: winnerChanges(tb.Baseline, c, dir)})
	}
	return tb, nil
}

// winnerChanges reports whether the better expected test metric of the
// pick (idea against baseline; a tie is neither) differs between two k
// that both curves reach.
func winnerChanges(b, x []stats.BudgetPoint, dir stats.Direction) bool {
	seen := map[int]bool{}
	for k := range min(len(b), len(x)) {
		seen[winner(b[k].Test, x[k].Test, dir)] = true
	}
	return len(seen) > 1
}

// winner is -1 when the idea's metric x is better than the baseline's
// b, 1 when worse, 0 when equal.
func winner(b, x float64, dir stats.Direction) int {
	switch {
	case x == b:
		return 0
	case (dir == stats.LowerIsBetter) == (x < b):
		return -1
	}
	return 1
}

// budgetWarning says when the winner depends on the tuning budget.
func budgetWarning(name string, b, x []stats.BudgetPoint, dir stats.Direction) string {
	if !winnerChanges(b, x, dir) {
		return ""
	}
	var parts []string
	for k := range min(len(b), len(x)) {
		who := map[int]string{-1: name, 1: "baseline", 0: "neither"}[winner(b[k].Test, x[k].Test, dir)]
		parts = append(parts, fmt.Sprintf("k = %d: %s (%.4g vs %.4g)", k+1, who, x[k].Test, b[k].Test))
	}
	return fmt.Sprintf("tuning budget: which arm leads depends on how many cfgs are tried (expected test metric of the pick, %s vs baseline: %s); the verdict may reflect how well each grid suits its arm, not the idea: see tuning_budget",
		name, strings.Join(parts, "; "))
}

// BlowUpFactor is how many times persistence's test MSE a cfg's test
// mean may reach before the report calls it blown up: training made the
// model far worse than repeating the last value, which a working lr never
// does (on the normalized scale persistence is of order 1).
const BlowUpFactor = 100

// BlownUp reports whether a test mean is blown up against persistence's
// test MSE.
func BlownUp(mean, persistence float64) bool { return mean > BlowUpFactor*persistence }

// blownUp warns, for each cfg of each arm whose test mean is blown up
// (BlownUp), that the arm blew up there: its verdict then compares a
// broken model, not an idea.
func blownUp(r *Report, persistence float64) []string {
	var out []string
	warn := func(arm string, i int, c Cfg, mean float64) {
		if BlownUp(mean, persistence) {
			out = append(out, fmt.Sprintf("blown up: the %s arm's cfg %d (lr %g) has test mean %.4g, over %dx persistence's %.4g: training broke the model (an lr too large?); lower it or drop it from the grid",
				arm, i, c.LR, mean, BlowUpFactor, persistence))
		}
	}
	for i, row := range r.Baseline.Sweep {
		warn("baseline", i, row.Cfg, row.Mean)
	}
	for i, row := range r.MechanismSignature.IdeaSweep {
		warn("idea", i, row.Cfg, row.Result.Mean)
	}
	for _, a := range r.Ideas {
		for i, row := range a.Sweep {
			warn(a.Name, i, row.Cfg, row.Result.Mean)
		}
	}
	return out
}

// notMeasured says why the chosen cfg's idea ic, not the gate, has no
// mechanism signature.
func notMeasured(ic idea.Config) string {
	if ic.IsZero() {
		return "the idea arm's chosen cfg trains no idea: there is nothing to probe"
	}
	i, err := idea.New(ic)
	if err != nil {
		return fmt.Sprintf("the idea arm's chosen cfg trains %s, which does not build: %v", ic.Name, err)
	}
	if _, ok := i.(idea.Prober); !ok {
		return fmt.Sprintf("the idea arm's chosen cfg trains %s, which has no mechanism probe (idea.Prober)", ic.Name)
	}
	return fmt.Sprintf("the probe of %s gave no finite laws on the trained model (or its trial record predates them)", ic.Name)
}

// ideaName is the idea's registry name, "no idea" for the plain model.
func ideaName(ic idea.Config) string {
	if ic.Name == "" {
		return "no idea"
	}
	return ic.Name
}

// identityWarning says when the idea arm's chosen cfg c trains the
// baseline's own model: on the baseline's streams every difference is 0
// (no comparison at all); on disjoint streams (the A/A control) any
// significant verdict is a false positive.
func identityWarning(c Cfg) string {
	ic := c.IdeaConfig()
	if ic.IsZero() {
		return "identity idea: the idea arm's chosen cfg trains no idea, so both arms are the same model on the same seeds and every difference is 0; this is not a comparison"
	}
	i, err := idea.New(ic)
	if err != nil || !i.Identity() {
		return ""
	}
	if _, ok := i.(idea.Stream); ok {
		return fmt.Sprintf("A/A control: the idea arm's chosen cfg (%s) is the baseline model on disjoint seed streams; any difference is noise, and a significant verdict here is a false positive", ic.Name)
	}
	return fmt.Sprintf("identity idea: the idea arm's chosen cfg (%s %v) is the identity, so both arms are the same model on the same seeds and every difference is 0; this is not a comparison", ic.Name, ic.Params)
}

// firstEpochStop warns when early stopping kept the first epoch's weights
// on every seed of an arm's chosen cfg: every later epoch raised the val
// metric, so the arm overfits the train split after one epoch (and a model
// with the skip path stays close to its least-squares start).
func firstEpochStop(arm string, ac ArmCurves, skip bool) string {
	if ac.Cfg.Patience == 0 || ac.Cfg.Epochs < 2 || len(ac.BestEpochs) == 0 {
		return ""
	}
	for _, e := range ac.BestEpochs {
		if e != 1 {
			return ""
		}
	}
	tail := ""
	if skip {
		tail = "; its forecasts stay close to the skip path's least-squares start, so the transformer adds little on this track"
	}
	return fmt.Sprintf("first-epoch stop: the %s arm's chosen cfg kept its first epoch's weights on every seed: every later epoch raised the val metric, so the model overfits the train split after one epoch%s",
		arm, tail)
}

// curves collects the epoch losses of one cfg, seed by seed.
func curves(trials []Trial, results []Result, arm string, cfg int, c Cfg) ArmCurves {
	ac := ArmCurves{Cfg: c, EpochLosses: [][]float64{}, ValCurves: [][]float64{}}
	for i, t := range trials {
		if t.Arm == arm && t.Cfg == cfg {
			r := results[i]
			ac.EpochLosses = append(ac.EpochLosses, append([]float64{}, r.EpochLoss...))
			ac.ValCurves = append(ac.ValCurves, append([]float64{}, r.ValCurve...))
			ac.BestEpochs = append(ac.BestEpochs, r.BestEpoch)
		}
	}
	return ac
}

// forecasters evaluates the reference forecasters on the test and val
// windows, each fitted in closed form on the train windows of the target
// channel: persistence, seasonal persistence (when the track has a period
// that fits in the context), the least-squares linear map of the window
// (one per-channel map, DLinear-style; with one channel, the linear AR
// forecaster) and the same map on last-value-centred windows (NLinear).
func forecasters(ds *track.Dataset) (*Forecasters, error) {
	tr := track.Univariate(&ds.Train, ds.Target)
	va, te := track.Univariate(&ds.Val, ds.Target), track.Univariate(&ds.Test, ds.Target)
	lin, err := track.FitLinear(&tr)
	if err != nil {
		return nil, fmt.Errorf("harness: linear reference forecaster: %w", err)
	}
	cen, err := track.FitLinearCentred(&tr)
	if err != nil {
		return nil, fmt.Errorf("harness: centred linear reference forecaster: %w", err)
	}
	lc := cen.MSE(&te)
	f := &Forecasters{Persistence: track.Persistence(&te, 0), LinearAR: lin.MSE(&te), LinearCentred: &lc,
		Val: &ReferenceVal{Persistence: track.Persistence(&va, 0), LinearAR: lin.MSE(&va), LinearCentred: cen.MSE(&va)}}
	if p := ds.Period; p >= 1 && p <= te.T {
		s, v := track.SeasonalPersistence(&te, 0, p), track.SeasonalPersistence(&va, 0, p)
		f.SeasonalPersistence, f.SeasonalPeriod, f.Val.SeasonalPersistence = &s, p, &v
	}
	if ds.HasNoiseFloor {
		f.NoiseFloor = ds.NoiseFloor
	}
	return f, nil
}
