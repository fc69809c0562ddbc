package derive

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/stats"
)

// DeriveVersion names the derivation: what Derive computes from its
// inputs and how it words it. A report records it (setup.derive_version)
// and verifies against the derivation of the build that checks it, so
// any change to Derive's output for the same inputs must change it;
// TestDeriveVersionPinned fails until it does. A report of another
// derivation re-derives from its results directory (ideabench run on
// it reuses every trial).
const DeriveVersion = "derive-2026-12-07"

// Inputs are everything a report is derived from: its facts (the
// protocol, the facts of its data and training path, the reference
// forecasters' MSEs, the rerun check) and every trial's result. Derive
// turns them into the report; verify reads them back out of a report
// (report.ReadInputs, or the trial records) and derives again, so every
// derived number is checked by the code that made it.
type Inputs struct {
	report.Facts
	// Trials and Results are aligned: the trials of the protocol in the
	// order of Protocol.Trials (for a sequential protocol, of its seeds up
	// to where the design stopped).
	Trials  []protocol.Trial
	Results []trial.Result
	// Run is copied into the report (volatile, not derived).
	Run *report.RunInfo

	// look, set for a sequential design's looks before the last, leaves
	// out what a look does not read: the comparisons' intervals and power,
	// informativeness and the early-stop replay.
	look bool
	// tune is the tune block of the protocol as given (Derive sets it):
	// a grid extension's rounds and a sequential design's looks derive
	// protocols of their own, whose grids are not the draws.
	tune *protocol.Tune
}

// Assemble builds the report from finished trials (aligned with
// p.Trials()) on the protocol's data d.
func Assemble(p protocol.Protocol, d *protocol.Data, trials []protocol.Trial, results []trial.Result, rerun *protocol.Reproduction) (*report.Report, error) {
	in := Inputs{Facts: report.Facts{Protocol: p, TrainingVersion: protocol.TrainingVersion, Rerun: rerun}, Trials: trials, Results: results}
	if err := dataFacts(&in.Facts, d); err != nil {
		return nil, err
	}
	return Derive(in)
}

// dataFacts sets the facts that the data d of f's protocol determines:
// its digest, notes and train windows, and the reference forecasters.
func dataFacts(f *report.Facts, d *protocol.Data) error {
	refs, err := f.Protocol.References(d.Dataset)
	if err != nil {
		return err
	}
	f.DataSHA256, f.DataNotes, f.TrainSizes, f.References = d.SHA256, d.Notes, protocol.TrainSizes(d.Dataset), refs
	return nil
}

// Derive builds the report from its inputs: each arm's sweep, selection
// on validation, the comparisons and their statistics, the mechanism
// signature and math check, the reference forecasters' judgement, the
// warnings, a sequential design's looks, and the digests of the inputs
// (Setup.Digests). It is the one function that derives a report: Run,
// Merge and Verify all call it.
func Derive(in Inputs) (*report.Report, error) {
	p := in.Protocol
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("derive: protocol: %w", err)
	}
	in.tune = p.Tune
	if in.References == nil {
		return nil, errors.New("derive: derive: no reference forecasters")
	}
	if p.Sequential != nil {
		return deriveSequential(in)
	}
	if p.ExtendGrid != nil {
		return deriveExtended(in)
	}
	if err := checkTrials(p, in.Trials, in.Results); err != nil {
		return nil, err
	}
	r, err := derive(in)
	if err != nil {
		return nil, err
	}
	r.Seal()
	return r, nil
}

// checkTrials checks that trials are p's, in order, with a result each.
func checkTrials(p protocol.Protocol, trials []protocol.Trial, results []trial.Result) error {
	want := p.Trials()
	if !slices.Equal(trials, want) || len(results) != len(trials) {
		return fmt.Errorf("derive: derive: %d trials with %d results, but the protocol has %d trials (in the order of Protocol.Trials)", len(trials), len(results), len(want))
	}
	return nil
}

// deriveSequential derives the report of a sequential protocol from the
// trials of its seeds up to where it stopped: look k is the report of
// the first n_k seeds (derive), its p-value and mean difference the
// look's; the looks go on until one decides or max_seeds is reached,
// which must be where the trials end. The report is the last look's, with
// the design's record.
func deriveSequential(in Inputs) (*report.Report, error) {
	p := in.Protocol
	s := p.Sequential
	all := s.AllSeeds(p.Seeds)
	per := len(p.Trials()) / len(p.Seeds) // trials of one seed
	n := len(in.Trials) / max(per, 1)
	if n < len(p.Seeds) || n > len(all) {
		return nil, fmt.Errorf("derive: derive: %d trials make %d seeds; a sequential run has %d to %d", len(in.Trials), n, len(p.Seeds), len(all))
	}
	q := p
	q.Seeds, q.Sequential = all[:n], nil
	if err := checkTrials(q, in.Trials, in.Results); err != nil {
		return nil, err
	}
	rec := &report.SequentialReport{Design: protocol.SequentialDesign, Spending: cmp.Or(s.Spending, protocol.SpendOBrienFleming), MaxSeeds: s.MaxSeeds}
	var r *report.Report
	for _, m := range s.LookSizes(len(p.Seeds)) {
		if m > n {
			return nil, fmt.Errorf("derive: derive: the design looks again at %d seeds, but the trials end at %d", m, n)
		}
		sub := in
		sub.Protocol = q
		sub.Protocol.Seeds = all[:m]
		sub.Trials, sub.Results = prefixTrials(q, in.Results, m)
		sub.look = m < n // the look at every seed is the report
		var err error
		if r, err = derive(sub); err != nil {
			return nil, err
		}
		if AddLook(rec, r, p.Alpha) || m == n {
			break
		}
	}
	if got := rec.Looks[len(rec.Looks)-1].NSeeds; got != n {
		return nil, fmt.Errorf("derive: derive: the design stopped at %d seeds, but the trials run to %d", got, n)
	}
	finish(rec, p.Alpha, p.Direction())
	r.Setup.Protocol = p
	r.Sequential, r.EarlyStop = rec, nil // the looks answer what early_stop would
	r.Seal()
	return r, nil
}

// prefixTrials returns the trials of q's first m seeds and their results
// (results aligned with q.Trials()).
func prefixTrials(q protocol.Protocol, results []trial.Result, m int) ([]protocol.Trial, []trial.Result) {
	keep := map[uint64]bool{}
	for _, s := range q.Seeds[:m] {
		keep[s] = true
	}
	var ts []protocol.Trial
	var rs []trial.Result
	for i, t := range q.Trials() {
		if keep[t.Seed] {
			ts, rs = append(ts, t), append(rs, results[i])
		}
	}
	return ts, rs
}

// derive builds the report of a protocol without a sequential design
// (Derive, without the digests).
func derive(in Inputs) (*report.Report, error) {
	p := in.Protocol
	dir := p.Direction()
	trials := in.Trials
	results, div, err := substitute(p, trials, in.Results)
	if err != nil {
		return nil, err
	}
	r := &report.Report{
		BenchVersion: report.BenchVersion, Track: p.Track, Model: p.Model,
		MetricDirection: dir.String(), NSeeds: len(p.Seeds),
		Setup:    &report.Setup{Protocol: p, DeriveVersion: DeriveVersion, TrainingVersion: in.TrainingVersion, DataSHA256: in.DataSHA256, DataNotes: in.DataNotes, TrainSizes: in.TrainSizes},
		Diverged: div, Run: in.Run,
	}
	r.Setup.TrialsSHA256 = report.TrialsDigest(p, trials, in.DataSHA256, in.TrainingVersion)
	base := armTable(trials, results, "baseline", len(p.Baseline))
	ideaArm := armTable(trials, results, "idea", len(p.Idea))

	for i, c := range p.Baseline {
		v := report.SummaryOf(stats.Summarize(base.Val[i]))
		t := stats.Summarize(base.Test[i])
		r.Baseline.Sweep = append(r.Baseline.Sweep, report.SweepRow{Cfg: c, Mean: t.Mean, Val: &v, PerSeed: t.PerSeed})
	}
	bBest := base.Select(dir)
	r.Baseline.BestCfg = p.Baseline[bBest]
	r.Baseline.Full = report.SummaryOf(stats.Summarize(base.Test[bBest]))

	var iBest int
	r.MechanismSignature.IdeaSweep, iBest = ideaSweep(p.Idea, ideaArm, dir)
	r.Idea = r.MechanismSignature.IdeaSweep[iBest].Result
	r.MechanismSignature.ObservedBestCfg = p.Idea[iBest]
	r.MechanismSignature.TrackRationale = protocol.Rationale(p)

	minEff := p.MinEffectAt(r.Baseline.Full.Mean, dir)
	cmp, err := comparison(p, "idea", base, bBest, ideaArm, iBest, p.Idea, dir, minEff, !in.look)
	if err != nil {
		return nil, err
	}
	mark(p, in.tune, "idea", &cmp, base, ideaArm, iBest)
	if !in.look {
		cmp.Sensitivity = sensitivity(in.tune, "idea", p.Idea, base, ideaArm, iBest, dir, p.Alpha, cmp.Verdict)
	}
	r.Comparison = cmp
	for k, a := range p.Ideas {
		arm := armTable(trials, results, protocol.IdeasArm(k), len(a.Grid))
		sweep, best := ideaSweep(a.Grid, arm, dir)
		c, err := comparison(p, a.Name, base, bBest, arm, best, a.Grid, dir, minEff, !in.look)
		if err != nil {
			return nil, err
		}
		mark(p, in.tune, protocol.IdeasArm(k), &c, base, arm, best)
		if !in.look {
			c.Sensitivity = sensitivity(in.tune, protocol.IdeasArm(k), a.Grid, base, arm, best, dir, p.Alpha, c.Verdict)
		}
		r.Ideas = append(r.Ideas, report.IdeaReport{Name: a.Name, BestCfg: a.Grid[best], Sweep: sweep, Result: sweep[best].Result, Comparison: c})
	}
	if in.TrainSizes != nil {
		if r.Budget, err = budget(p, in.TrainSizes); err != nil {
			return nil, err
		}
	}
	holm(r, dir)
	for _, n := range in.DataNotes {
		r.Comparison.Warnings = append(r.Comparison.Warnings, "data: "+n)
	}
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
			r.MechanismSignature.MechanismSignature = signatureOf(p.Idea[iBest], t.Seed, results[i], p.TrainerOf("idea") != nil)
		}
	}
	arms := [][]protocol.Cfg{theorised(p, "idea", p.Idea)}
	for k, a := range p.Ideas {
		arms = append(arms, theorised(p, protocol.IdeasArm(k), a.Grid))
	}
	mc, err := mathCheck(arms...)
	if err != nil {
		return nil, err
	}
	r.MechanismSignature.MathCheck = mc
	r.Training = &report.Training{Baseline: curves(trials, results, "baseline", bBest, p.Baseline[bBest]), Idea: curves(trials, results, "idea", iBest, p.Idea[iBest])}
	r.Comparison.SystemWorked = r.Comparison.Verdict == stats.VerdictWin && r.MechanismSignature.MechanismSignature.Confirmed && mc.Confirmed

	pj := report.ProtocolJSON{Seeds: p.Seeds, Epochs: r.Baseline.BestCfg.Epochs}
	for _, c := range p.Baseline {
		pj.BaselineLRGrid = append(pj.BaselineLRGrid, c.LR)
	}
	for _, c := range p.Idea {
		pj.IdeaLRGrid = append(pj.IdeaLRGrid, c.LR)
	}
	r.MechanismSignature.Protocol = pj

	f := in.References.Raw()
	f.BaselineBeatsLinear = r.Baseline.Full.Mean < f.LinearAR
	f.IdeaBeatsLinear = r.Idea.Mean < f.LinearAR
	p.Judge(f, r.Baseline.Full.Mean)
	r.ReferenceForecasters = f
	switch {
	case f.Tokens != nil:
		if r.Accuracy, err = secondaryBlock(r, p, trials, results, accuracyMetric); err != nil {
			return nil, err
		}
		cs := []*report.Comparison{&r.Comparison}
		for k := range r.Ideas {
			cs = append(cs, &r.Ideas[k].Comparison)
		}
		r.Accuracy.Solves = solves(r.Accuracy, f.Tokens, cs)
		if f.Val != nil {
			picks := []chosen{{"baseline", "baseline", bBest}, {"idea", p.ArmName("idea"), iBest}}
			for k, a := range r.Ideas {
				picks = append(picks, chosen{protocol.IdeasArm(k), a.Name, slices.Index(p.Ideas[k].Grid, a.BestCfg)})
			}
			tt, measured, err := timeToTarget(p, trials, results, f.Val.Tokens, f.Tokens, picks, cs)
			if err != nil {
				return nil, err
			}
			r.Accuracy.TimeToTarget = tt
			switch {
			case measured:
			case p.External():
				r.Comparison.Warnings = append(r.Comparison.Warnings, "time to target not measured: an external trainer records no val accuracy during training, so how fast each arm learns is not compared; the verdict is the end metric's")
			default:
				r.Comparison.Warnings = append(r.Comparison.Warnings, "time to target not measured: some trial of a chosen cfg has no val accuracy curve (a record of a build before 2026-12-07); train its trials again (a fresh results directory) to measure how fast each arm learns")
			}
		}
	case f.MASE != nil:
		if r.MASE, err = secondaryBlock(r, p, trials, results, maseMetric); err != nil {
			return nil, err
		}
	}
	if !f.BaselineCompetent {
		r.Comparison.Warnings = append(r.Comparison.Warnings, fmt.Sprintf(
			"hollow comparison: the baseline's test mean %.6g does not beat the best reference forecaster, %s (%.6g; the baseline is %.3g%% worse); a win over this baseline says little: train or tune the baseline until it does",
			r.Baseline.Full.Mean, f.BestReference, f.BestReferenceMSE, -f.BaselineMarginPct))
	}
	r.Comparison.Warnings = append(r.Comparison.Warnings, blownUp(r, f)...)
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
	r.Comparison.Warnings = append(r.Comparison.Warnings, gridEdges("baseline", p.Baseline, bBest, in.tune)...)
	r.Comparison.Warnings = append(r.Comparison.Warnings, gridEdges("idea", p.Idea, iBest, in.tune)...)
	for _, a := range []struct {
		name string
		ac   report.ArmCurves
	}{{"baseline", r.Training.Baseline}, {"idea", r.Training.Idea}} {
		if p.TrainerOf(a.name) != nil {
			continue // its curves are the trainer's own measure, its start ours
		}
		r.Comparison.Warnings = append(r.Comparison.Warnings, keptWarnings(a.name, a.ac, p.Arch.Skip)...)
	}
	if !in.look {
		inf, tooFew, err := informativeness(p, r, trials, results, bBest)
		if err != nil {
			return nil, err
		}
		r.Informativeness = inf
		switch {
		case inf.CanJudge:
		case tooFew:
			r.Comparison.Warnings = append(r.Comparison.Warnings, "informativeness unknown: "+inf.Reasons[0])
		default:
			r.Comparison.Warnings = append(r.Comparison.Warnings, "uninformative track: "+strings.Join(inf.Reasons, "; ")+
				"; a verdict here cannot tell a good idea from a bad one: see informativeness")
		}
	}
	if p.External() {
		var drawn bool
		r.External, drawn = external(p, trials, results, in.Rerun)
		r.Comparison.Warnings = append(r.Comparison.Warnings, externalWarnings(p, r.External, drawn)...)
	}
	if !in.look {
		if es, err := earlyStop(p, base, ideaArm); err == nil {
			r.EarlyStop = es
		}
	}
	return r, nil
}

// signatureOf is the report's mechanism signature of the idea's chosen
// cfg c, read from its trial on seed: the gate's layers rebuilt from what
// the probe measured (idea.GateSummarize), block 0 at the top level and the
// gate's laws (idea.GateLaws); another idea's laws as its probe measured
// them; or why nothing was measured.
func signatureOf(c protocol.Cfg, seed uint64, res trial.Result, external bool) report.SignatureJSON {
	s := report.SignatureJSON{TrainedModelSeed: seed, Metric: res.Test, Rho: c.Rho, Beta: c.Beta}
	switch ic := c.IdeaConfig(); {
	case external:
		s.NotMeasured = "the idea arm is trained by an external trainer (setup.protocol.trainers), which hands back forecasts, not the idea's internal states: there is nothing to probe"

	case res.Signature != nil && len(res.Signature.Layers) > 0:
		for l, m := range res.Signature.Layers {
			s.Layers = append(s.Layers, idea.GateSummarize(c.Rho, c.Beta, l, m))
		}
		l0 := s.Layers[0]
		layer := 0
		s.InitialGain, s.FinalGain, s.MeanState = l0.InitialGain, l0.FinalGain, l0.MeanState
		s.PredictedSteadyGain, s.FittedStatePole, s.Confirmed = l0.PredictedSteadyGain, l0.FittedStatePole, l0.Confirmed
		s.Layer = &layer
		s.Laws = idea.GateLaws(c.Rho, s.Layers)
	case res.Signature != nil && len(res.Signature.Laws) > 0:
		s.Laws, s.Confirmed = res.Signature.Laws, idea.AllHold(res.Signature.Laws)
	case ic.Name != "gate":
		s.NotMeasured = notMeasured(ic)
	case c.Beta == 0:
		s.NotMeasured = "the gate is at beta 0, the identity: there is nothing to probe"
	default:
		s.NotMeasured = "the gate's states gave no finite signature (constant states defeat the pole fit)"
	}
	return s
}

// selectionAware reports whether the protocol's headline test is the
// selection-aware one (Protocol.Test).
func selectionAware(p protocol.Protocol) bool { return p.Test == protocol.TestSelection }

// ideaSweep summarizes an idea arm's grid from its per-cfg val and test
// metrics and picks its cfg (stats.Arm.Select).
func ideaSweep(grid []protocol.Cfg, a stats.Arm, dir stats.Direction) ([]report.IdeaRow, int) {
	var rows []report.IdeaRow
	for i, c := range grid {
		v := report.SummaryOf(stats.Summarize(a.Val[i]))
		rows = append(rows, report.IdeaRow{Cfg: c, Result: report.SummaryOf(stats.Summarize(a.Test[i])), Val: &v})
	}
	return rows, a.Select(dir)
}

// comparison is the report's comparison of idea arm name (grid xGrid,
// its sweep x, chosen cfg xBest) with the baseline (sweep b, chosen
// cfg bBest): the paired sign-flip comparison of the chosen cfgs'
// per-seed test metrics (stats.Compare) with its intervals and power, and
// the headline decided by the protocol's test (Protocol.selectionAware):
// the selection-aware test when the grids pair, the sign-flip test
// otherwise, with a warning saying why. estimates false leaves out the
// intervals and power.
func comparison(p protocol.Protocol, name string, b stats.Arm, bBest int, x stats.Arm, xBest int, xGrid []protocol.Cfg, dir stats.Direction, minEffect float64, estimates bool) (report.Comparison, error) {
	return CompareArms(p.Alpha, selectionAware(p), name, b, bBest, fmt.Sprintf("lr %g", p.Baseline[bBest].LR), x, xBest, fmt.Sprintf("lr %g", xGrid[xBest].LR), dir, minEffect, estimates)
}

// CompareArms is the comparison block of idea arm name (sweep x, chosen
// cfg xBest, described as xCfg) against the baseline (b, bBest, bCfg) at
// level alpha: the headline test is the selection-aware one when
// selection is set and the grids pair, else the sign-flip test on the
// chosen cfgs; estimates adds the intervals and the power analysis.
func CompareArms(alpha float64, selection bool, name string, b stats.Arm, bBest int, bCfg string, x stats.Arm, xBest int, xCfg string, dir stats.Direction, minEffect float64, estimates bool) (report.Comparison, error) {
	opt := stats.DefaultOptions()
	opt.Alpha = alpha
	bs, xs := b.Test[bBest], x.Test[xBest]
	c, err := stats.Compare(bs, xs, dir, &opt)
	if err != nil {
		return report.Comparison{}, fmt.Errorf("derive: comparison: %w", err)
	}
	out := report.Comparison{
		DeltaMean: c.DeltaMean, IdeaWins: c.IdeaWins, NPairs: c.NPairs, PerSeedDiffs: c.PerSeedDiffs,
		PValue: c.PValue, MDE: c.MDE, MDERelPct: c.MDERelPct, Verdict: c.Verdict, Test: report.TestSignFlip,
		PValueMethod: c.PValueMethod, PValueDraws: c.PValueDraws, Alpha: alpha,
	}
	for _, w := range c.Warnings {
		out.Warnings = append(out.Warnings, w.Error())
	}
	if estimates {
		if err := estimate(&out, bs, xs, dir, minEffect); err != nil {
			return report.Comparison{}, err
		}
	}
	switch {
	case len(b.Val) != len(x.Val) && selection:
		out.Warnings = append(out.Warnings, fmt.Sprintf(
			"unpaired grids: the baseline has %d cfgs and %s %d, so the selection-aware test cannot pair them and the verdict is the sign-flip test on the chosen cfgs, conditional on each arm's choice: when the arms choose different cfgs it calls an idea that does nothing significant more often than alpha; give both arms grids of the same length, cfg j against cfg j",
			len(b.Val), name, len(x.Val)))
	case len(b.Val) == len(x.Val):
		sel, err := stats.SelectionPValue(b, x, dir, &opt)
		if err != nil {
			return report.Comparison{}, fmt.Errorf("derive: selection-aware test: %w", err)
		}
		vs := stats.VerdictOf(sel, out.DeltaMean, alpha, dir, out.NPairs)
		if selection {
			pc := out.PValue
			out.PValueConditional, out.VerdictConditional = &pc, out.Verdict
			out.PValue, out.Verdict, out.Test = sel, vs, report.TestSelection
		} else {
			out.PValueSelection, out.VerdictSelection = &sel, vs
			out.Warnings = append(out.Warnings, fmt.Sprintf(
				"sign-flip headline (setup.protocol.test): the verdict is the seed report's sign-flip test on the chosen cfgs, conditional on each arm's choice; the selection-aware test, valid under that choice, gives p = %.4g (%s)", sel, vs))
		}
		if bBest != xBest {
			out.Warnings = append(out.Warnings, fmt.Sprintf(
				"different cfgs: the baseline chose cfg %d (%s) and %s cfg %d (%s); the sign-flip test on these two cfgs (p = %.4g) compares the cfgs as well as the idea, while the selection-aware test (p = %.4g) repeats both choices under every relabelling of the seeds",
				bBest, bCfg, name, xBest, xCfg, c.PValue, sel))
		}
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
func estimate(c *report.Comparison, b, x []float64, dir stats.Direction, minEffect float64) error {
	if len(b) < 2 {
		return nil
	}
	iv, err := stats.IntervalsOf(b, x, dir, c.Alpha, StatsSeed)
	if err != nil {
		return fmt.Errorf("derive: intervals: %w", err)
	}
	pw, err := stats.PowerOf(c.PerSeedDiffs, c.Alpha, minEffect, StatsSeed)
	if err != nil {
		return fmt.Errorf("derive: power: %w", err)
	}
	c.Intervals, c.Power = &iv, &pw
	return nil
}

// holm adjusts the headline p-values of every idea arm (the idea and
// Ideas) with Holm's step-down method and sets their Holm verdicts; a
// run of one idea has nothing to adjust.
func holm(r *report.Report, dir stats.Direction) {
	if len(r.Ideas) == 0 {
		return
	}
	cs := []*report.Comparison{&r.Comparison}
	for k := range r.Ideas {
		cs = append(cs, &r.Ideas[k].Comparison)
	}
	Holm(cs, dir)
}

// Holm sets the Holm-adjusted p-value (stats.Holm over all of them) and
// its verdict on each comparison of cs.
func Holm(cs []*report.Comparison, dir stats.Direction) {
	var ps []float64
	for _, c := range cs {
		ps = append(ps, c.PValue)
	}
	for i, q := range stats.Holm(ps) {
		c := cs[i]
		c.PValueHolm = &q
		c.VerdictHolm = stats.VerdictOf(q, c.DeltaMean, c.Alpha, dir, c.NPairs)
	}
}

// armTable returns one arm's sweep: per cfg, the per-seed val and test
// metrics and which seeds diverged.
func armTable(trials []protocol.Trial, results []trial.Result, arm string, ncfg int) stats.Arm {
	a := stats.Arm{Val: make([][]float64, ncfg), Test: make([][]float64, ncfg), Diverged: make([][]bool, ncfg)}
	for i, t := range trials {
		if t.Arm == arm {
			a.Val[t.Cfg] = append(a.Val[t.Cfg], results[i].Val)
			a.Test[t.Cfg] = append(a.Test[t.Cfg], results[i].Test)
			a.Diverged[t.Cfg] = append(a.Diverged[t.Cfg], results[i].Diverged)
		}
	}
	return a
}

// substitute replaces the metrics of diverged trials (+Inf) by the
// worst finite value of the same split over all trials, so that they
// count as the worst result in every mean and in the paired comparison
// while the report stays finite (JSON has no Inf). It returns the
// substituted copies and the Divergence block, nil when nothing diverged.
// A baseline that diverged on every seed of every cfg is an error: there
// is no baseline to compare with, and its substitutes would make any
// idea a win.
func substitute(p protocol.Protocol, trials []protocol.Trial, results []trial.Result) ([]trial.Result, *report.Divergence, error) {
	div := &report.Divergence{Rule: report.DivergenceRule}
	worstVal, worstTest, worstMASE := math.Inf(-1), math.Inf(-1), 0.0
	base, baseDiverged := 0, 0 // baseline trials, and those that diverged
	for i, r := range results {
		if trials[i].Arm == "baseline" {
			base++
			if r.Diverged {
				baseDiverged++
			}
		}
		if r.Diverged {
			t := trials[i]
			div.Trials = append(div.Trials, report.DivergedTrial{Arm: t.Arm, Cfg: t.Cfg, Seed: t.Seed, Step: r.DivergedStep})
			continue
		}
		worstVal, worstTest, worstMASE = max(worstVal, r.Val), max(worstTest, r.Test), max(worstMASE, r.TestMASE)
	}
	if len(div.Trials) == 0 {
		return results, nil, nil
	}
	if len(div.Trials) == len(results) {
		return nil, nil, errors.New("derive: every trial diverged (loss NaN or Inf); lower the learning rates")
	}
	if base > 0 && baseDiverged == base {
		var cfgs []string
		for i, c := range p.Baseline {
			cfgs = append(cfgs, fmt.Sprintf("cfg %d (lr %g)", i, c.LR))
		}
		lowest := slices.MinFunc(p.Baseline, func(a, b protocol.Cfg) int { return cmp.Compare(a.LR, b.LR) }).LR
		return nil, nil, fmt.Errorf("derive: the baseline arm diverged (loss NaN or Inf) on every one of its %d seeds in every cfg: %s; there is no baseline to compare the idea with: lower the baseline's learning rates (try %g, a tenth of its lowest, or less) or clip its gradients (cfg clip, e.g. 1)",
			base/len(p.Baseline), strings.Join(cfgs, ", "), lowest/10)
	}
	div.ValSubstitute, div.TestSubstitute = worstVal, worstTest
	out := slices.Clone(results)
	for i := range out {
		if out[i].Diverged {
			// A real panel's MASE takes the worst too; a token
			// track's accuracy stays 0.
			out[i].Val, out[i].Test, out[i].TestMASE = worstVal, worstTest, worstMASE
		}
	}
	return out, div, nil
}

// tuningBudget computes every arm's tuning-budget curve from its sweep's
// val and test means; an error when a row has no val summary (a report
// of the seed schema).
func tuningBudget(r *report.Report, dir stats.Direction) (*report.TuningBudget, error) {
	curve := func(rows []report.IdeaRow) ([]stats.BudgetPoint, error) {
		var val, test []float64
		for i, row := range rows {
			if row.Val == nil {
				return nil, fmt.Errorf("derive: sweep row %d has no val summary", i)
			}
			val, test = append(val, row.Val.Mean), append(test, row.Result.Mean)
		}
		return stats.Budget(val, test, dir)
	}
	var base []report.IdeaRow
	for _, row := range r.Baseline.Sweep {
		base = append(base, report.IdeaRow{Cfg: row.Cfg, Val: row.Val, Result: report.Summary{Mean: row.Mean}})
	}
	tb := &report.TuningBudget{Method: stats.BudgetMethod}
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
		tb.Ideas = append(tb.Ideas, report.ArmBudget{Name: a.Name, Curve: c, WinnerChanges: winnerChanges(tb.Baseline, c, dir)})
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

// blownUp warns, for each cfg of each arm whose test mean is blown up
// (BlownUp), that the arm blew up there: its verdict then compares a
// broken model, not an idea.
func blownUp(r *report.Report, f *track.Forecasters) []string {
	var out []string
	name, ref := f.BlowUpReference()
	warn := func(arm string, i int, c protocol.Cfg, mean float64) {
		if report.BlownUp(mean, ref) {
			out = append(out, fmt.Sprintf("blown up: the %s arm's cfg %d (lr %g) has test mean %.4g, over %dx %s's %.4g: training broke the model (an lr too large?); lower it or drop it from the grid",
				arm, i, c.LR, mean, report.BlowUpFactor, name, ref))
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

// identityWarning says when the idea arm's chosen cfg c trains the
// baseline's own model: on the baseline's streams every difference is 0
// (no comparison at all); on disjoint streams (the A/A control) any
// significant verdict is a false positive.
func identityWarning(c protocol.Cfg) string {
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

// keptWarnings says what the epochs each seed of an arm's chosen cfg
// kept tell about training: every seed kept its starting model (training
// never improved val), or its first epoch (the model overfits after
// one), or its last epoch of all while val was still falling (training
// may have been cut short).
func keptWarnings(arm string, ac report.ArmCurves, skip bool) []string {
	kept, all := map[int]int{}, 0
	falling := 0
	for i, e := range ac.BestEpochs {
		if e < 0 {
			continue // diverged
		}
		all++
		kept[e]++
		if c := ac.ValCurves[i]; e == len(c) && len(c) == ac.Cfg.Epochs && stillFalling(c) {
			falling++
		}
	}
	if all == 0 {
		return nil
	}
	var out []string
	switch {
	case ac.Cfg.Patience > 0 && kept[0] == all:
		tail := ""
		if skip {
			tail = "; with the skip path its forecasts are those of the least-squares start, so the transformer adds nothing on this track"
		}
		out = append(out, fmt.Sprintf("start kept: the %s arm's chosen cfg kept its starting model on every seed: no epoch of training lowered the val metric below the untrained model's%s", arm, tail))
	case ac.Cfg.Patience > 0 && ac.Cfg.Epochs >= 2 && kept[1] == all:
		tail := ""
		if skip {
			tail = "; its forecasts stay close to the skip path's least-squares start"
		}
		out = append(out, fmt.Sprintf("first-epoch stop: the %s arm's chosen cfg kept its first epoch's weights on every seed: every later epoch raised the val metric, so the model overfits the train split after one epoch%s", arm, tail))
	}
	if falling == all {
		out = append(out, fmt.Sprintf("still improving: the %s arm's chosen cfg kept its last of %d epochs on every seed while the val metric was still falling by more than %g%% over the last quarter of them; training was cut short: more epochs would likely change the result", arm, ac.Cfg.Epochs, 100*stillFallingFrac))
	}
	return out
}

// stillFallingFrac is the relative fall of the val metric over the last
// quarter of the epochs (at least the last one) above which training is
// called cut short: a cosine schedule makes the last epochs fall a little
// anyway, as it anneals.
const stillFallingFrac = 0.01

// stillFalling reports whether a val curve ends more than
// stillFallingFrac below its value a quarter of the epochs before.
func stillFalling(c []float64) bool {
	n := len(c)
	if n < 2 {
		return false
	}
	q := c[n-1-max(1, n/4)]
	return c[n-1] < q*(1-stillFallingFrac)
}

// curves collects the epoch losses and val curves of one cfg, seed by
// seed, the starting models' val metrics, and the epoch each seed kept
// (keptEpoch).
func curves(trials []protocol.Trial, results []trial.Result, arm string, cfg int, c protocol.Cfg) report.ArmCurves {
	ac := report.ArmCurves{Cfg: c, EpochLosses: [][]float64{}, ValCurves: [][]float64{}, StartVals: []float64{}, BestEpochs: []int{}}
	for i, t := range trials {
		if t.Arm == arm && t.Cfg == cfg {
			r := results[i]
			ac.EpochLosses = append(ac.EpochLosses, append([]float64{}, r.EpochLoss...))
			ac.ValCurves = append(ac.ValCurves, append([]float64{}, r.ValCurve...))
			ac.StartVals = append(ac.StartVals, r.StartVal)
			ac.BestEpochs = append(ac.BestEpochs, keptEpoch(r, c.Patience))
		}
	}
	return ac
}

// keptEpoch is the epoch whose weights a trial scored, read from its val
// curve by TrainTrial's rule: under early stopping the first of least val
// metric, the starting model (0) included; else the last; -1 for a
// diverged trial.
func keptEpoch(r trial.Result, patience int) int {
	if r.Diverged {
		return -1
	}
	if patience == 0 {
		return len(r.ValCurve)
	}
	best, val := 0, r.StartVal
	for e, x := range r.ValCurve {
		if x < val {
			best, val = e+1, x
		}
	}
	return best
}

// informativeness measures how far the baseline's chosen cfg (bBest) gets
// beyond the best reference forecaster, its own starting model and, with
// the skip path, its linear part, seed by seed (Informativeness). A
// diverged seed counts as the worst against the reference (the
// protocol's rule) and is left out of the other two gaps: it has no
// trained model to compare with its start or its linear part. tooFew
// says the seeds are too few for any gap to be significant (the
// reasons say so), not that the track fails.
func informativeness(p protocol.Protocol, r *report.Report, trials []protocol.Trial, results []trial.Result, bBest int) (inf *report.Informativeness, tooFew bool, err error) {
	var start, linear, trained, startOK, linearOK []float64
	for i, t := range trials {
		if t.Arm != "baseline" || t.Cfg != bBest {
			continue
		}
		res := results[i]
		start, linear = append(start, res.StartTest), append(linear, res.LinearTest)
		if !res.Diverged {
			trained = append(trained, res.Test)
			startOK, linearOK = append(startOK, res.StartTest), append(linearOK, res.LinearTest)
		}
	}
	b := r.Baseline.Full.PerSeed
	ref := make([]float64, len(b))
	for i := range ref {
		ref[i] = r.ReferenceForecasters.BestReferenceMSE
	}
	inf = &report.Informativeness{StartTest: start}
	if inf.BestReference, err = gapOf(ref, b, p.Alpha, p.Direction()); err != nil {
		return nil, false, err
	}
	if inf.Start, err = gapOf(startOK, trained, p.Alpha, p.Direction()); err != nil {
		return nil, false, err
	}
	if p.Arch.Skip && p.TrainerOf("baseline") == nil { // an external trainer reports no skip path alone
		g, err := gapOf(linearOK, trained, p.Alpha, p.Direction())
		if err != nil {
			return nil, false, err
		}
		inf.LinearPart, inf.LinearTest = &g, linear
	}
	if n := min(len(b), len(trained)); math.Ldexp(1, 1-n) >= p.Alpha {
		// No gap can be significant: say so, not that the track fails.
		k := 2
		for math.Ldexp(1, 1-k) >= p.Alpha {
			k++
		}
		inf.Reasons = append(inf.Reasons, fmt.Sprintf("too few seeds to tell: with %d the smallest sign-flip p is %.3g, not below alpha %g; run at least %d", n, math.Ldexp(1, 1-n), p.Alpha, k))
		return inf, true, nil
	}
	why := func(g report.Gap, what string) {
		how := "does not beat %s significantly"
		switch {
		case g.Significant:
			return
		case g.Mean < 0 && g.PValue < p.Alpha:
			how = "is significantly worse than %s"
		case g.Mean <= 0:
			how = "is no better than %s"
		}
		inf.Reasons = append(inf.Reasons, fmt.Sprintf("the baseline "+how+" (by %+.3g, %+.2g%%, interval [%+.3g, %+.3g], p = %.3g)", what, g.Mean, g.Pct, g.Lo, g.Hi, g.PValue))
	}
	why(inf.BestReference, "the best reference forecaster ("+r.ReferenceForecasters.BestReference+")")
	why(inf.Start, "its own starting model")
	if inf.LinearPart != nil {
		why(*inf.LinearPart, "its own skip path alone (what the transformer adds to its linear part)")
	}
	inf.CanJudge = len(inf.Reasons) == 0
	return inf, false, nil
}

// gapOf is the baseline's improvement on another forecaster, per seed
// other_i - baseline_i, with the sign-flip p-value and paired-t interval
// of stats.Compare at alpha, for a metric of direction dir.
func gapOf(other, baseline []float64, alpha float64, dir stats.Direction) (report.Gap, error) {
	opt := stats.DefaultOptions()
	opt.Alpha = alpha
	c, err := stats.Compare(other, baseline, dir, &opt)
	if err != nil {
		return report.Gap{}, fmt.Errorf("derive: informativeness: %w", err)
	}
	g := report.Gap{N: c.NPairs, Mean: 0 - c.DeltaMean, PValue: c.PValue} // 0 - x: no -0 in the report
	for _, d := range c.PerSeedDiffs {
		g.PerSeed = append(g.PerSeed, 0-d)
	}
	g.Lo, g.Hi = g.Mean-c.MDE, g.Mean+c.MDE
	if m := stats.Summarize(other).Mean; m != 0 {
		g.Pct = 100 * g.Mean / m
	}
	g.Significant = c.PValue < alpha && g.Mean > 0
	return g, nil
}

// A secondary is a test metric a report shows beside the one that
// decides: the accuracy of a token track, the MASE of a real panel.
type secondary struct {
	name  string                                  // for errors
	of    func(trial.Result) float64              // a trial's value
	dir   stats.Direction                         // which way is better
	sweep func(*report.SweepRow) **report.Summary // a baseline row's summary
	row   func(*report.IdeaRow) **report.Summary  // an idea row's summary
}

// accuracyMetric is a token track's test accuracy; a diverged trial's is
// 0 (its model answers nothing reliably).
var accuracyMetric = secondary{"accuracy", func(r trial.Result) float64 { return r.TestAcc }, stats.HigherIsBetter,
	func(s *report.SweepRow) **report.Summary { return &s.Accuracy }, func(s *report.IdeaRow) **report.Summary { return &s.Accuracy }}

// maseMetric is a real panel's test MASE (trial.Result.TestMASE).
var maseMetric = secondary{"MASE", func(r trial.Result) float64 { return r.TestMASE }, stats.LowerIsBetter,
	func(s *report.SweepRow) **report.Summary { return &s.MASE }, func(s *report.IdeaRow) **report.Summary { return &s.MASE }}

// table is the per-seed value of m of each of an arm's ncfg cfgs, in
// the order of the trials (armTable's).
func (m secondary) table(trials []protocol.Trial, results []trial.Result, arm string, ncfg int) [][]float64 {
	a := make([][]float64, ncfg)
	for i, t := range trials {
		if t.Arm == arm {
			a[t.Cfg] = append(a[t.Cfg], m.of(results[i]))
		}
	}
	return a
}

// secondaryBlock sets every sweep row's summary of m and returns the
// report's block of it: the chosen cfgs' values and each idea arm's
// paired difference from the baseline's (idea - baseline, seed by
// seed), with its intervals at the protocol's level in m's direction.
func secondaryBlock(r *report.Report, p protocol.Protocol, trials []protocol.Trial, results []trial.Result, m secondary) (*report.Secondary, error) {
	sum := func(x []float64) *report.Summary { s := report.SummaryOf(stats.Summarize(x)); return &s }
	base := m.table(trials, results, "baseline", len(p.Baseline))
	bBest := slices.Index(p.Baseline, r.Baseline.BestCfg)
	for i := range r.Baseline.Sweep {
		*m.sweep(&r.Baseline.Sweep[i]) = sum(base[i])
	}
	out := &report.Secondary{Baseline: *sum(base[bBest])}
	arm := func(name, id string, rows []report.IdeaRow, grid []protocol.Cfg, best protocol.Cfg) error {
		x := m.table(trials, results, id, len(grid))
		for i := range rows {
			*m.row(&rows[i]) = sum(x[i])
		}
		xb := x[slices.Index(grid, best)]
		iv, err := stats.IntervalsOf(base[bBest], xb, m.dir, p.Alpha, p.Seeds[0])
		if err != nil {
			return fmt.Errorf("derive: %s of %s: %w", m.name, name, err)
		}
		var d float64
		for s := range xb {
			d += xb[s] - base[bBest][s]
		}
		out.Arms = append(out.Arms, report.ArmSecondary{Name: name, Result: *sum(xb), DeltaMean: d / float64(len(xb)), Intervals: iv})
		return nil
	}
	if err := arm(p.ArmName("idea"), "idea", r.MechanismSignature.IdeaSweep, p.Idea, r.MechanismSignature.ObservedBestCfg); err != nil {
		return nil, err
	}
	for k := range r.Ideas {
		a := &r.Ideas[k]
		if err := arm(a.Name, protocol.IdeasArm(k), a.Sweep, p.Ideas[k].Grid, a.BestCfg); err != nil {
			return nil, err
		}
	}
	return out, nil
}
