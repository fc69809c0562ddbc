package harness

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/track"
)

// Options control how a protocol runs; none of them changes a result bit.
type Options struct {
	Workers  int                   // trials run in parallel; 0 means GOMAXPROCS
	Progress func(done, total int) // called after each finished trial; may be nil
}

// Outcome is a finished protocol: the report plus every trial's result.
type Outcome struct {
	Report  *Report
	Trials  []Trial
	Results []Result // aligned with Trials
	Data    *track.Dataset
}

// Run executes the seeded protocol:
//
//  1. Build the track from its recorded data seed.
//  2. Train every cfg of both arms on every seed (in parallel; each trial
//     is single-threaded and fully determined by (protocol, cfg, seed)).
//  3. Pick each arm's best cfg by mean validation metric.
//  4. Compare the chosen cfgs' per-seed test metrics seed by seed.
//  5. Read the mechanism signature of the idea's best cfg on the first
//     seed and run the math check.
func Run(ctx context.Context, p Protocol, opt Options) (*Outcome, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	ds, err := track.Sequence(p.Sequence)
	if err != nil {
		return nil, fmt.Errorf("harness: sequence: %w", err)
	}
	trials := p.Trials()
	results := make([]Result, len(trials))
	errs := make([]error, len(trials))
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for range min(workers, len(trials)) {
		wg.Go(func() {
			for i := range next {
				results[i], errs[i] = RunTrial(p, ds, p.cfg(trials[i]), trials[i].Seed)
				mu.Lock()
				done++
				if opt.Progress != nil {
					opt.Progress(done, len(trials))
				}
				mu.Unlock()
			}
		})
	}
feed:
	for i := range trials {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("harness: run interrupted after %d of %d trials: %w", done, len(trials), err)
	}
	for i, err := range errs {
		if err != nil {
			t := trials[i]
			return nil, fmt.Errorf("harness: trial %s cfg %d seed %d: %w", t.Arm, t.Cfg, t.Seed, err)
		}
	}
	r, err := Assemble(p, ds, trials, results)
	if err != nil {
		return nil, err
	}
	return &Outcome{Report: r, Trials: trials, Results: results, Data: ds}, nil
}

// armTable returns, for one arm, the per-cfg per-seed val and test metrics.
func armTable(trials []Trial, results []Result, arm string, ncfg int) (val, test [][]float64) {
	val, test = make([][]float64, ncfg), make([][]float64, ncfg)
	for i, t := range trials {
		if t.Arm == arm {
			val[t.Cfg] = append(val[t.Cfg], results[i].Val)
			test[t.Cfg] = append(test[t.Cfg], results[i].Test)
		}
	}
	return val, test
}

// argBest is the index of the lowest mean; ties go to the earlier cfg.
func argBest(means []float64) int {
	best := 0
	for i, m := range means {
		if m < means[best] {
			best = i
		}
	}
	return best
}

// Assemble builds the report from finished trials (aligned with
// p.Trials()).
func Assemble(p Protocol, ds *track.Dataset, trials []Trial, results []Result) (*Report, error) {
	dir := stats.LowerIsBetter
	r := &Report{
		BenchVersion: BenchVersion, Track: p.Track, Model: p.Model,
		MetricDirection: dir.String(), NSeeds: len(p.Seeds),
		Setup: &Setup{Protocol: p},
	}
	bVal, bTest := armTable(trials, results, "baseline", len(p.Baseline))
	iVal, iTest := armTable(trials, results, "idea", len(p.Idea))

	var bMeans []float64
	for i, c := range p.Baseline {
		v := summary(stats.Summarize(bVal[i]))
		t := stats.Summarize(bTest[i])
		r.Baseline.Sweep = append(r.Baseline.Sweep, SweepRow{Cfg: c, Mean: t.Mean, Val: &v, PerSeed: t.PerSeed})
		bMeans = append(bMeans, v.Mean)
	}
	bBest := argBest(bMeans)
	r.Baseline.BestCfg = p.Baseline[bBest]
	r.Baseline.Full = summary(stats.Summarize(bTest[bBest]))

	var iMeans []float64
	for i, c := range p.Idea {
		v := summary(stats.Summarize(iVal[i]))
		r.MechanismSignature.IdeaSweep = append(r.MechanismSignature.IdeaSweep,
			IdeaRow{Cfg: c, Result: summary(stats.Summarize(iTest[i])), Val: &v})
		iMeans = append(iMeans, v.Mean)
	}
	iBest := argBest(iMeans)
	r.Idea = r.MechanismSignature.IdeaSweep[iBest].Result
	r.MechanismSignature.ObservedBestCfg = p.Idea[iBest]
	r.MechanismSignature.TrackRationale = TrackRationale

	opt := stats.DefaultOptions()
	opt.Alpha = p.Alpha
	cmp, err := stats.Compare(r.Baseline.Full.PerSeed, r.Idea.PerSeed, dir, &opt)
	if err != nil {
		return nil, fmt.Errorf("harness: comparison: %w", err)
	}
	r.Comparison = Comparison{
		DeltaMean: cmp.DeltaMean, IdeaWins: cmp.IdeaWins, NPairs: cmp.NPairs, PerSeedDiffs: cmp.PerSeedDiffs,
		PValue: cmp.PValue, MDE: cmp.MDE, MDERelPct: cmp.MDERelPct, Verdict: cmp.Verdict,
		PValueMethod: cmp.PValueMethod, PValueDraws: cmp.PValueDraws, Alpha: p.Alpha,
	}
	for _, w := range cmp.Warnings {
		r.Comparison.Warnings = append(r.Comparison.Warnings, w.Error())
	}

	// Mechanism signature: idea best cfg, first seed.
	for i, t := range trials {
		if t.Arm == "idea" && t.Cfg == iBest && t.Seed == p.Seeds[0] {
			res := results[i]
			c := p.Idea[iBest]
			s := SignatureJSON{TrainedModelSeed: t.Seed, Metric: res.Test, Rho: c.Rho, Beta: c.Beta}
			if res.Signature != nil && len(res.Signature.Layers) > 0 {
				l0 := res.Signature.Layers[0]
				layer := 0
				s.InitialGain, s.FinalGain, s.MeanState = l0.InitialGain, l0.FinalGain, l0.MeanState
				s.PredictedSteadyGain, s.FittedStatePole, s.Confirmed = l0.PredictedSteadyGain, l0.FittedStatePole, l0.Confirmed
				s.Layer, s.Layers = &layer, res.Signature.Layers
			}
			r.MechanismSignature.MechanismSignature = s
		}
	}
	mc, err := mathCheck(p.Idea)
	if err != nil {
		return nil, err
	}
	r.MechanismSignature.MathCheck = mc
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
	r.ReferenceForecasters = f
	return r, nil
}

// forecasters evaluates the reference forecasters on the test windows.
func forecasters(ds *track.Dataset) (*Forecasters, error) {
	lin, err := track.FitLinear(&ds.Train)
	if err != nil {
		return nil, fmt.Errorf("harness: linear reference forecaster: %w", err)
	}
	f := &Forecasters{Persistence: track.Persistence(&ds.Test, ds.Target), LinearAR: lin.MSE(&ds.Test)}
	if ds.HasNoiseFloor {
		f.NoiseFloor = ds.NoiseFloor
	}
	return f, nil
}
