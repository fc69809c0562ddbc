package harness

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/gate"
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/stats"
)

// Finding is one checked field of a report that did not re-derive
// exactly. A Note is explained (e.g. the seed report's Monte Carlo
// p-value); anything else is a mismatch.
type Finding struct {
	Field string // JSON path, e.g. "comparison.mde"
	Got   string // the report's value
	Want  string // the re-derived value
	Note  string // when set, the difference is explained and not a mismatch
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s: report has %s, re-derived %s", f.Field, f.Got, f.Want)
	if f.Note != "" {
		s += " (" + f.Note + ")"
	}
	return s
}

// Findings is the outcome of Verify.
type Findings struct {
	Checked  int       // number of fields compared
	Findings []Finding // everything that differed
}

// Mismatches are the unexplained findings.
func (fs Findings) Mismatches() []Finding {
	var out []Finding
	for _, f := range fs.Findings {
		if f.Note == "" {
			out = append(out, f)
		}
	}
	return out
}

// VerifyOptions control Verify.
type VerifyOptions struct {
	// Rerun regenerates the track from the report's setup and recomputes
	// the reference forecasters (milliseconds; no training).
	Rerun bool
}

// relTol is the relative tolerance of re-derived floats: sums in another
// order differ by a few ulps.
const relTol = 1e-12

// tTable is the three-decimal Student-t table value t_{0.975,ν}; the seed
// report's mde used it instead of the exact quantile.
func tTable(nu float64) float64 { return math.Round(stats.TQuantile(0.975, nu)*1000) / 1000 }

// Verify re-derives every derivable number of a report from its per-seed
// values (and, with Rerun, from its recorded setup) and lists what differs.
func Verify(r *Report, opt VerifyOptions) Findings {
	if r == nil {
		r = &Report{}
	}
	v := &verifier{}
	// A field of the seed schema that the file lacks is reported as
	// missing, once, instead of as a mismatch of its zero value.
	for _, f := range r.missing {
		v.checked++
		v.found = append(v.found, Finding{Field: f, Got: "missing", Want: "present (a field of the seed report's schema)"})
	}
	v.missing = r.missing
	v.intEq("n_seeds", r.NSeeds, len(r.MechanismSignature.Protocol.Seeds))
	v.summary("baseline.full", r.Baseline.Full)
	v.summary("idea", r.Idea)
	// Baseline selection: by val mean when recorded, else by test mean.
	var bKey []float64
	for i, row := range r.Baseline.Sweep {
		key := row.Mean
		if row.Val != nil {
			v.summary(fmt.Sprintf("baseline.sweep[%d].val", i), *row.Val)
			key = row.Val.Mean
		}
		if row.PerSeed != nil {
			v.floatEq(fmt.Sprintf("baseline.sweep[%d].mean", i), row.Mean, stats.Summarize(row.PerSeed).Mean)
		}
		bKey = append(bKey, key)
	}
	if len(bKey) > 0 {
		best := argBest(bKey, r.divergedCounts("baseline", len(bKey)))
		v.cfgEq("baseline.best_cfg", r.Baseline.BestCfg, r.Baseline.Sweep[best].Cfg)
		v.floatEq("baseline.full.mean", r.Baseline.Full.Mean, r.Baseline.Sweep[best].Mean)
		if ps := r.Baseline.Sweep[best].PerSeed; ps != nil {
			v.floatsEq("baseline.full.per_seed", r.Baseline.Full.PerSeed, ps)
		}
	}
	var iKey []float64
	for i, row := range r.MechanismSignature.IdeaSweep {
		v.summary(fmt.Sprintf("mechanism_signature.idea_sweep[%d].result", i), row.Result)
		key := row.Result.Mean
		if row.Val != nil {
			key = row.Val.Mean
		}
		iKey = append(iKey, key)
	}
	if len(iKey) > 0 {
		best := argBest(iKey, r.divergedCounts("idea", len(iKey)))
		row := r.MechanismSignature.IdeaSweep[best]
		v.cfgEq("mechanism_signature.observed_best_cfg", r.MechanismSignature.ObservedBestCfg, row.Cfg)
		v.floatEq("idea.mean", r.Idea.Mean, row.Result.Mean)
		v.floatsEq("idea.per_seed", r.Idea.PerSeed, row.Result.PerSeed)
	}
	v.comparison(r)
	v.signature(r)
	v.mathCheck(r)
	v.budget(r)
	v.sequential(r)
	switch {
	case r.Sequential != nil:
		v.checked++
		if r.EarlyStop != nil {
			v.add("early_stop", "present", "absent: a sequential run records its looks under sequential", "")
		}
	case r.EarlyStop != nil || r.Training != nil:
		want, _ := earlyStop(r, cmp.Or(r.Comparison.Alpha, stats.DefaultOptions().Alpha))
		v.jsonEq("early_stop", r.EarlyStop, want)
	}
	v.protocol(r)
	v.diverged(r)
	v.competence(r)
	v.ideas(r)
	if opt.Rerun && r.Setup != nil && r.ReferenceForecasters != nil {
		v.forecasters(r)
	}
	return Findings{Checked: v.checked, Findings: v.found}
}

type verifier struct {
	checked int
	found   []Finding
	missing []string // fields the report lacks (Report.missing)
}

func (v *verifier) add(field, got, want, note string) {
	for _, m := range v.missing {
		if field == m || strings.HasPrefix(field, m+".") || strings.HasPrefix(field, m+"[") || strings.HasPrefix(field, m+" ") {
			return // reported as missing
		}
	}
	v.found = append(v.found, Finding{Field: field, Got: got, Want: want, Note: note})
}

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= relTol*max(math.Abs(a), math.Abs(b))
}

func (v *verifier) floatEq(field string, got, want float64) bool {
	v.checked++
	if !near(got, want) {
		v.add(field, fmt.Sprint(got), fmt.Sprint(want), "")
		return false
	}
	return true
}

func (v *verifier) intEq(field string, got, want int) {
	v.checked++
	if got != want {
		v.add(field, fmt.Sprint(got), fmt.Sprint(want), "")
	}
}

func (v *verifier) boolEq(field string, got, want bool) {
	v.checked++
	if got != want {
		v.add(field, fmt.Sprint(got), fmt.Sprint(want), "")
	}
}

func (v *verifier) floatsEq(field string, got, want []float64) {
	v.checked++
	if len(got) != len(want) {
		v.add(field, fmt.Sprintf("%d values", len(got)), fmt.Sprintf("%d values", len(want)), "")
		return
	}
	for i := range got {
		if !near(got[i], want[i]) {
			v.add(fmt.Sprintf("%s[%d]", field, i), fmt.Sprint(got[i]), fmt.Sprint(want[i]), "")
		}
	}
}

func (v *verifier) cfgEq(field string, got, want Cfg) {
	v.checked++
	if got != want {
		v.add(field, fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want), "")
	}
}

func (v *verifier) summary(field string, s Summary) {
	want := stats.Summarize(s.PerSeed)
	v.floatEq(field+".mean", s.Mean, want.Mean)
	v.floatEq(field+".std", s.Std, want.Std)
	v.intEq(field+".n", s.N, want.N)
}

func (v *verifier) comparison(r *Report) {
	want, ok := v.comparisonOf("comparison", r.Comparison, r.Baseline.Full.PerSeed, r.Idea.PerSeed, r)
	if !ok {
		return
	}
	m := r.MechanismSignature
	v.boolEq("comparison.system_worked", r.Comparison.SystemWorked,
		want.Verdict == stats.VerdictWin && m.MechanismSignature.Confirmed && m.MathCheck.Confirmed)
	b, bok := baselineArm(r)
	x, xok := ideaRowsArm(m.IdeaSweep)
	v.selection("comparison", r.Comparison, b, bok, x, xok, r)
}

// baselineArm is the baseline sweep's per-seed val and test metrics; ok
// false when a row lacks them (a seed-format report).
func baselineArm(r *Report) (stats.Arm, bool) {
	var a stats.Arm
	for _, row := range r.Baseline.Sweep {
		if row.Val == nil || row.PerSeed == nil {
			return stats.Arm{}, false
		}
		a.Val, a.Test = append(a.Val, row.Val.PerSeed), append(a.Test, row.PerSeed)
	}
	return a, true
}

// ideaRowsArm is an idea sweep's per-seed val and test metrics.
func ideaRowsArm(rows []IdeaRow) (stats.Arm, bool) {
	var a stats.Arm
	for _, row := range rows {
		if row.Val == nil {
			return stats.Arm{}, false
		}
		a.Val, a.Test = append(a.Val, row.Val.PerSeed), append(a.Test, row.Result.PerSeed)
	}
	return a, true
}

// selection re-derives a comparison's selection-aware p-value and verdict
// from the sweeps, present exactly when the grids pair.
func (v *verifier) selection(field string, c Comparison, b stats.Arm, bok bool, x stats.Arm, xok bool, r *Report) {
	if !bok || !xok {
		return // a seed-format report has no val per seed
	}
	v.checked++
	if len(b.Val) != len(x.Val) {
		if c.PValueSelection != nil {
			v.add(field+".p_value_selection", "present", "absent: the grids do not pair", "")
		}
		return
	}
	if c.PValueSelection == nil {
		v.add(field+".p_value_selection", "missing", "the selection-aware p-value of the paired grids", "")
		return
	}
	dir, err := stats.ParseDirection(r.MetricDirection)
	if err != nil {
		return
	}
	opt := stats.DefaultOptions()
	opt.Alpha = c.Alpha
	p, err := stats.SelectionPValue(b, x, dir, &opt)
	if err != nil {
		v.add(field+".p_value_selection", fmt.Sprint(*c.PValueSelection), err.Error(), "")
		return
	}
	v.floatEq(field+".p_value_selection", *c.PValueSelection, p)
	v.checked++
	if w := stats.VerdictOf(p, c.DeltaMean, c.Alpha, dir, c.NPairs); c.VerdictSelection != w {
		v.add(field+".verdict_selection", c.VerdictSelection, w, "")
	}
}

// comparisonOf re-derives one comparison block c (at JSON path field) from
// the baseline's and an idea's per-seed test metrics b and x, and returns
// what it re-derived; false when it could not.
func (v *verifier) comparisonOf(field string, c Comparison, b, x []float64, r *Report) (stats.Comparison, bool) {
	alpha := c.Alpha
	if r.Setup != nil {
		// The verdict's alpha is the protocol's, not whatever the
		// comparison block says.
		v.floatEq(field+".alpha", c.Alpha, r.Setup.Protocol.Alpha)
		alpha = r.Setup.Protocol.Alpha
	}
	if alpha == 0 {
		alpha = stats.DefaultOptions().Alpha
	}
	opt := stats.DefaultOptions()
	opt.Alpha = alpha
	dir, err := stats.ParseDirection(r.MetricDirection)
	if err != nil {
		v.add("metric_direction", r.MetricDirection, stats.LowerIsBetter.String(), "")
		return stats.Comparison{}, false
	}
	want, err := stats.Compare(b, x, dir, &opt)
	if err != nil {
		v.add(field, "", err.Error(), "")
		return stats.Comparison{}, false
	}
	v.floatEq(field+".delta_mean", c.DeltaMean, want.DeltaMean)
	v.intEq(field+".idea_wins", c.IdeaWins, want.IdeaWins)
	v.intEq(field+".n_pairs", c.NPairs, want.NPairs)
	v.floatsEq(field+".per_seed_diffs", c.PerSeedDiffs, want.PerSeedDiffs)
	v.checked++
	switch {
	case near(c.PValue, want.PValue):
	case c.PValueMethod == "" && math.Abs(c.PValue-want.PValue) <= 0.01:
		// A report without p_value_method is a seed-format report whose
		// p-value came from Monte Carlo: within 0.01 of the exact value is
		// a few Monte Carlo standard errors (≤ 0.005 at 10⁴ draws).
		v.add(field+".p_value", fmt.Sprint(c.PValue), fmt.Sprint(want.PValue),
			"Monte Carlo estimate of the exact sign-flip p-value; within 0.01")
	default:
		v.add(field+".p_value", fmt.Sprint(c.PValue), fmt.Sprint(want.PValue), "")
	}
	v.checked++
	n := float64(want.NPairs)
	switch {
	case near(c.MDE, want.MDE):
		v.floatEq(field+".mde_rel_pct", c.MDERelPct, want.MDERelPct)
	case want.NPairs >= 2 && near(c.MDE, want.MDE*tTable(n-1)/stats.TQuantile(1-alpha/2, n-1)):
		f := tTable(n-1) / stats.TQuantile(1-alpha/2, n-1)
		v.add(field+".mde", fmt.Sprint(c.MDE), fmt.Sprint(want.MDE),
			fmt.Sprintf("the report used the three-decimal t-table value %.3f for t(0.975,%d)", tTable(n-1), want.NPairs-1))
		v.floatEq(field+".mde_rel_pct (table t)", c.MDERelPct, want.MDERelPct*f)
	default:
		v.add(field+".mde", fmt.Sprint(c.MDE), fmt.Sprint(want.MDE), "")
		v.floatEq(field+".mde_rel_pct", c.MDERelPct, want.MDERelPct)
	}
	v.checked++
	if c.Verdict != want.Verdict {
		v.add(field+".verdict", c.Verdict, want.Verdict, "")
	}
	v.estimates(field, c, b, x, want.PerSeedDiffs, dir, alpha, r)
	return want, true
}

// estimates re-derives a comparison's intervals and power analysis from
// the re-derived differences diffs (a report before them has neither, nor
// a training block).
func (v *verifier) estimates(field string, c Comparison, b, x, diffs []float64, dir stats.Direction, alpha float64, r *Report) {
	if c.Intervals == nil && c.Power == nil && r.Training == nil {
		return
	}
	want := Comparison{Alpha: alpha, PerSeedDiffs: diffs}
	minEff := 0.0
	switch {
	case r.Setup != nil:
		minEff = r.Setup.Protocol.minEffect(stats.Summarize(b).Mean, dir)
	case c.Power != nil && c.Power.Min != nil:
		minEff = c.Power.Min.Effect
	}
	if err := want.estimate(b, x, dir, minEff); err != nil {
		v.checked++
		v.add(field+".intervals", "present", err.Error(), "")
		return
	}
	v.jsonEq(field+".intervals", c.Intervals, want.Intervals)
	v.jsonEq(field+".power", c.Power, want.Power)
}

// jsonEq compares two values by their JSON forms, leaf by leaf: numbers
// with floatEq, everything else exactly; a leaf on one side only is
// missing on the other.
func (v *verifier) jsonEq(field string, got, want any) {
	enc := func(x any) any {
		raw, err := json.Marshal(x)
		if err != nil {
			return nil
		}
		var out any
		json.Unmarshal(raw, &out)
		return out
	}
	var walk func(f string, g, w any)
	walk = func(f string, g, w any) {
		switch w := w.(type) {
		case map[string]any:
			gm, _ := g.(map[string]any)
			for _, k := range slices.Sorted(maps.Keys(w)) {
				walk(f+"."+k, gm[k], w[k])
			}
			for _, k := range slices.Sorted(maps.Keys(gm)) {
				if _, ok := w[k]; !ok {
					v.checked++
					v.add(f+"."+k, fmt.Sprint(gm[k]), "absent", "")
				}
			}
		case []any:
			ga, _ := g.([]any)
			v.intEq(f+" (count)", len(ga), len(w))
			for i := range min(len(ga), len(w)) {
				walk(fmt.Sprintf("%s[%d]", f, i), ga[i], w[i])
			}
		case float64:
			gf, ok := g.(float64)
			if !ok {
				v.checked++
				v.add(f, fmt.Sprint(g), fmt.Sprint(w), "")
				return
			}
			v.floatEq(f, gf, w)
		default:
			v.checked++
			switch {
			case g == nil && w != nil:
				v.add(f, "missing", fmt.Sprint(w), "")
			case g != w:
				v.add(f, fmt.Sprint(g), fmt.Sprint(w), "")
			}
		}
	}
	walk(field, enc(got), enc(want))
}

// ideas re-derives the further idea arms: each sweep row's summaries,
// the val selection, the chosen cfg's result, the comparison with the
// baseline, and Holm's adjustment over every idea arm.
func (v *verifier) ideas(r *Report) {
	if len(r.Ideas) == 0 {
		v.checked++
		if r.Comparison.PValueHolm != nil || r.Comparison.VerdictHolm != "" {
			v.add("comparison.p_value_holm", "present", "absent: a run of one idea adjusts nothing", "")
		}
		return
	}
	if r.Setup != nil {
		v.intEq("ideas (count)", len(r.Ideas), len(r.Setup.Protocol.Ideas))
	}
	cs := []Comparison{r.Comparison}
	for k, a := range r.Ideas {
		at := fmt.Sprintf("ideas[%d]", k)
		var key []float64
		for i, row := range a.Sweep {
			v.summary(fmt.Sprintf("%s.sweep[%d].result", at, i), row.Result)
			m := row.Result.Mean
			if row.Val != nil {
				v.summary(fmt.Sprintf("%s.sweep[%d].val", at, i), *row.Val)
				m = row.Val.Mean
			}
			key = append(key, m)
		}
		if len(key) == 0 {
			v.checked++
			v.add(at+".sweep", "empty", "one row per cfg", "")
			continue
		}
		best := argBest(key, r.divergedCounts(ideasArm(k), len(key)))
		v.cfgEq(at+".best_cfg", a.BestCfg, a.Sweep[best].Cfg)
		v.floatsEq(at+".result.per_seed", a.Result.PerSeed, a.Sweep[best].Result.PerSeed)
		v.summary(at+".result", a.Result)
		v.comparisonOf(at+".comparison", a.Comparison, r.Baseline.Full.PerSeed, a.Result.PerSeed, r)
		b, bok := baselineArm(r)
		x, xok := ideaRowsArm(a.Sweep)
		v.selection(at+".comparison", a.Comparison, b, bok, x, xok, r)
		cs = append(cs, a.Comparison)
	}
	dir, err := stats.ParseDirection(r.MetricDirection)
	if err != nil {
		return // comparisonOf named it
	}
	var ps []float64
	for _, c := range cs {
		ps = append(ps, min(max(c.PValue, 0), 1))
	}
	for i, q := range stats.Holm(ps) {
		c, at := cs[i], "comparison"
		if i > 0 {
			at = fmt.Sprintf("ideas[%d].comparison", i-1)
		}
		v.checked++
		if c.PValueHolm == nil {
			v.add(at+".p_value_holm", "missing", fmt.Sprint(q), "")
			continue
		}
		v.floatEq(at+".p_value_holm", *c.PValueHolm, q)
		v.checked++
		if w := stats.VerdictOf(q, c.DeltaMean, c.Alpha, dir, c.NPairs); c.VerdictHolm != w {
			v.add(at+".verdict_holm", c.VerdictHolm, w, "")
		}
	}
	ptrs := make([]*Comparison, len(cs))
	for i := range cs {
		ptrs[i] = &cs[i]
	}
	sel := selectionPs(ptrs)
	for i, c := range cs {
		at := "comparison"
		if i > 0 {
			at = fmt.Sprintf("ideas[%d].comparison", i-1)
		}
		v.checked++
		switch {
		case sel == nil && (c.PValueSelectionHolm != nil || c.VerdictSelectionHolm != ""):
			v.add(at+".p_value_selection_holm", "present", "absent: not every idea has a selection-aware p-value", "")
		case sel != nil && c.PValueSelectionHolm == nil:
			v.add(at+".p_value_selection_holm", "missing", "Holm over the selection-aware p-values", "")
		case sel != nil:
			q := stats.Holm(sel)[i]
			v.floatEq(at+".p_value_selection_holm", *c.PValueSelectionHolm, q)
			v.checked++
			if w := stats.VerdictOf(q, c.DeltaMean, c.Alpha, dir, c.NPairs); c.VerdictSelectionHolm != w {
				v.add(at+".verdict_selection_holm", c.VerdictSelectionHolm, w, "")
			}
		}
	}
}

func (v *verifier) signature(r *Report) {
	m := r.MechanismSignature
	s := m.MechanismSignature
	if s.NotMeasured != "" {
		v.boolEq("mechanism_signature.mechanism_signature.confirmed", s.Confirmed, false)
		return
	}
	if ic := m.ObservedBestCfg.IdeaConfig(); !ic.IsZero() && ic.Name != "gate" {
		// Another idea's probe: its laws decide, by their own rule.
		if len(s.Laws) == 0 {
			v.checked++
			v.add("mechanism_signature.mechanism_signature.laws", "missing", "the laws of "+ic.Name+"'s probe, or not_measured saying why not", "")
			return
		}
		v.boolEq("mechanism_signature.mechanism_signature.confirmed", s.Confirmed, idea.AllHold(s.Laws))
		v.metricOfSeed(r, s)
		return
	}
	v.floatEq("mechanism_signature.mechanism_signature.rho", s.Rho, m.ObservedBestCfg.Rho)
	v.floatEq("mechanism_signature.mechanism_signature.beta", s.Beta, m.ObservedBestCfg.Beta)
	v.floatEq("mechanism_signature.mechanism_signature.predicted_steady_gain", s.PredictedSteadyGain, gate.SteadyGain(s.Beta, s.MeanState))
	v.boolEq("mechanism_signature.mechanism_signature.confirmed", s.Confirmed,
		Confirm(s.Rho, s.FittedStatePole, s.InitialGain, s.FinalGain, s.PredictedSteadyGain))
	v.metricOfSeed(r, s)
	if s.Laws != nil || r.Training != nil { // a report before the laws has no training curves either
		v.laws("mechanism_signature.mechanism_signature.laws", s.Laws, idea.GateLaws(s.Rho, s.Layers))
	}
	for i, l := range s.Layers {
		p := fmt.Sprintf("mechanism_signature.mechanism_signature.layers[%d]", i)
		v.floatEq(p+".predicted_steady_gain", l.PredictedSteadyGain, gate.SteadyGain(s.Beta, l.MeanState))
		v.boolEq(p+".confirmed", l.Confirmed, Confirm(s.Rho, l.FittedStatePole, l.InitialGain, l.FinalGain, l.PredictedSteadyGain))
		// The by-position means end where the summary fields are read.
		if g, st := l.GainByPosition, l.StateByPosition; len(g) > 0 {
			v.intEq(p+".state_by_position (count)", len(st), len(g))
			v.floatEq(p+".gain_by_position[0]", g[0], l.InitialGain)
			v.floatEq(p+".gain_by_position[T-1]", g[len(g)-1], l.FinalGain)
			if len(st) == len(g) {
				v.floatEq(p+".state_by_position[T-1]", st[len(st)-1], l.MeanState)
			}
		}
	}
	if tr := r.Training; tr != nil {
		v.cfgEq("training.baseline.cfg", tr.Baseline.Cfg, r.Baseline.BestCfg)
		v.cfgEq("training.idea.cfg", tr.Idea.Cfg, m.ObservedBestCfg)
		v.intEq("training.baseline.epoch_losses (seeds)", len(tr.Baseline.EpochLosses), r.NSeeds)
		v.intEq("training.idea.epoch_losses (seeds)", len(tr.Idea.EpochLosses), r.NSeeds)
		var bVal, iVal *Summary
		for i, row := range r.Baseline.Sweep {
			if row.Cfg == r.Baseline.BestCfg && row.Val != nil && bVal == nil {
				bVal = r.Baseline.Sweep[i].Val
			}
		}
		for i, row := range m.IdeaSweep {
			if row.Cfg == m.ObservedBestCfg && row.Val != nil && iVal == nil {
				iVal = m.IdeaSweep[i].Val
			}
		}
		v.valCurves("training.baseline", tr.Baseline, bVal, r.NSeeds)
		v.valCurves("training.idea", tr.Idea, iVal, r.NSeeds)
	}
}

// sequential re-derives a sequential run's looks from the last look's
// sweeps: each look's boundary from the spending function, its p-value,
// mean difference and decision from the first n seeds, and the stopping
// rule (every look before the last undecided; the last decided or at
// max_seeds).
func (v *verifier) sequential(r *Report) {
	sr := r.Sequential
	var ps *Sequential
	if r.Setup != nil {
		ps = r.Setup.Protocol.Sequential
	}
	v.checked++
	switch {
	case sr == nil && ps == nil:
		return
	case sr == nil:
		v.add("sequential", "missing", "the looks of the protocol's sequential design", "")
		return
	case ps == nil && r.Setup != nil:
		v.add("sequential", "present", "absent: the protocol is not sequential", "")
		return
	}
	alpha := stats.DefaultOptions().Alpha
	if r.Setup != nil {
		alpha = r.Setup.Protocol.Alpha
		v.intEq("sequential.max_seeds", sr.MaxSeeds, ps.MaxSeeds)
		v.checked++
		if sr.Spending != cmp.Or(ps.Spending, SpendOBrienFleming) {
			v.add("sequential.spending", sr.Spending, cmp.Or(ps.Spending, SpendOBrienFleming), "")
		}
	}
	if len(sr.Looks) == 0 || sr.MaxSeeds < 1 {
		v.add("sequential.looks", "empty", "one look or more", "")
		return
	}
	n1 := sr.Looks[0].NSeeds
	sizes := (&Sequential{MaxSeeds: sr.MaxSeeds}).LookSizes(n1)
	v.intEq("sequential.looks (count)", len(sr.Looks), min(len(sizes), len(sr.Looks)))
	dir := stats.LowerIsBetter
	prev := 0.0
	for k, l := range sr.Looks {
		f := fmt.Sprintf("sequential.looks[%d]", k)
		if k >= len(sizes) {
			break
		}
		v.intEq(f+".n_seeds", l.NSeeds, sizes[k])
		spent := Spend(sr.Spending, alpha, float64(sizes[k])/float64(sr.MaxSeeds))
		v.floatEq(f+".boundary", l.Boundary, spent-prev)
		prev = spent
		if r.Diverged == nil { // substitutes for diverged seeds depend on the look's trials
			want, _, err := lookOf(r, sizes[k], l.Boundary, dir, alpha)
			if err != nil {
				v.checked++
				v.add(f, "present", err.Error(), "")
				continue
			}
			v.floatEq(f+".p_value", l.PValue, want.PValue)
			v.floatEq(f+".delta_mean", l.DeltaMean, want.DeltaMean)
		}
		v.boolEq(f+".decided", l.Decided, l.PValue < l.Boundary && l.DeltaMean != 0)
		if k < len(sr.Looks)-1 {
			v.boolEq(f+".decided (a look before the last)", l.Decided, false)
		}
	}
	last := sr.Looks[len(sr.Looks)-1]
	v.checked++
	if !last.Decided && last.NSeeds != sr.MaxSeeds {
		v.add("sequential.looks", fmt.Sprintf("stopped undecided at %d seeds", last.NSeeds), fmt.Sprintf("a decision or max_seeds = %d", sr.MaxSeeds), "")
	}
	v.intEq("sequential.stopped_at", sr.StoppedAt, last.NSeeds)
	v.intEq("sequential.seeds_saved", sr.SeedsSaved, sr.MaxSeeds-last.NSeeds)
	v.intEq("sequential.stopped_at (n_seeds)", sr.StoppedAt, r.NSeeds)
	want := sequentialVerdict(last, alpha)
	v.checked++
	if sr.Verdict != want {
		v.add("sequential.verdict", sr.Verdict, want, "")
	}
}

// budget re-derives the tuning-budget curves from the sweeps (a report
// before them has neither curves nor training curves).
func (v *verifier) budget(r *Report) {
	if r.TuningBudget == nil && r.Training == nil {
		return
	}
	dir, err := stats.ParseDirection(r.MetricDirection)
	if err != nil {
		return // comparisonOf named it
	}
	want, err := tuningBudget(r, dir)
	if err != nil {
		v.checked++
		v.add("tuning_budget", "present", err.Error(), "")
		return
	}
	v.jsonEq("tuning_budget", r.TuningBudget, want)
}

// metricOfSeed checks the signature's metric against the idea's test
// metric on its seed.
func (v *verifier) metricOfSeed(r *Report, s SignatureJSON) {
	seeds := r.MechanismSignature.Protocol.Seeds
	if i := slices.Index(seeds, s.TrainedModelSeed); i >= 0 && i < len(r.Idea.PerSeed) {
		v.floatEq("mechanism_signature.mechanism_signature.metric", s.Metric, r.Idea.PerSeed[i])
	} else {
		v.checked++
		v.add("mechanism_signature.mechanism_signature.trained_model_seed", fmt.Sprint(s.TrainedModelSeed), fmt.Sprint(seeds), "")
	}
}

// laws compares laws with their re-derivation want, field by field.
func (v *verifier) laws(field string, got, want []idea.Law) {
	v.intEq(field+" (count)", len(got), len(want))
	for i := range min(len(got), len(want)) {
		p := fmt.Sprintf("%s[%d]", field, i)
		v.checked++
		if got[i].Name != want[i].Name || got[i].AtLeast != want[i].AtLeast {
			v.add(p+".name", got[i].Name, want[i].Name, "")
			continue
		}
		v.floatEq(p+".got", got[i].Got, want[i].Got)
		v.floatEq(p+".want", got[i].Want, want[i].Want)
		v.floatEq(p+".tol", got[i].Tol, want[i].Tol)
	}
}

// valCurves checks an arm's per-epoch val curves against its chosen
// cfg's val summary: each seed's kept epoch is the last one, or under
// early stopping the first epoch of least val metric, and its val metric
// is the seed's val value. Diverged seeds (kept epoch 0) are skipped.
func (v *verifier) valCurves(field string, ac ArmCurves, val *Summary, n int) {
	if ac.ValCurves == nil {
		return // a report from before per-epoch validation
	}
	v.intEq(field+".val_curves (seeds)", len(ac.ValCurves), n)
	v.intEq(field+".best_epochs (seeds)", len(ac.BestEpochs), n)
	for i, curve := range ac.ValCurves {
		if i >= len(ac.BestEpochs) || ac.BestEpochs[i] == 0 {
			continue
		}
		be := ac.BestEpochs[i]
		want := len(curve)
		if ac.Cfg.Patience > 0 {
			want = 1
			for e, x := range curve {
				if x < curve[want-1] {
					want = e + 1
				}
			}
		}
		v.intEq(fmt.Sprintf("%s.best_epochs[%d]", field, i), be, want)
		if val != nil && be >= 1 && be <= len(curve) && i < len(val.PerSeed) {
			v.floatEq(fmt.Sprintf("%s.val_curves[%d][%d]", field, i, be-1), curve[be-1], val.PerSeed[i])
		}
	}
}

// competence checks the best reference forecaster and the competence
// flag against the report's own numbers.
func (v *verifier) competence(r *Report) {
	f := r.ReferenceForecasters
	if f == nil || f.BestReference == "" {
		return // a report from before the competence flag
	}
	var want Forecasters = *f
	want.judge(r.Baseline.Full.Mean)
	v.checked++
	if f.BestReference != want.BestReference {
		v.add("reference_forecasters.best_reference", f.BestReference, want.BestReference, "")
	}
	v.floatEq("reference_forecasters.best_reference_mse", f.BestReferenceMSE, want.BestReferenceMSE)
	v.floatEq("reference_forecasters.baseline_margin", f.BaselineMargin, want.BaselineMargin)
	v.floatEq("reference_forecasters.baseline_margin_pct", f.BaselineMarginPct, want.BaselineMarginPct)
	v.boolEq("reference_forecasters.baseline_competent", f.BaselineCompetent, want.BaselineCompetent)
}

// optEq compares an optional float: both absent, or both present and
// equal.
func (v *verifier) optEq(field string, got, want *float64) {
	switch {
	case got == nil && want == nil:
		v.checked++
	case got == nil || want == nil:
		v.checked++
		show := func(x *float64) string {
			if x == nil {
				return "missing"
			}
			return fmt.Sprint(*x)
		}
		v.add(field, show(got), show(want), "")
	default:
		v.floatEq(field, *got, *want)
	}
}

func (v *verifier) mathCheck(r *Report) {
	m := r.MechanismSignature
	rows := m.MathCheck.Rows
	maxSteps := gate.SettleSteps(math.Nextafter(1, 0)) // the most steps a report of this harness simulates
	var gated []Cfg                                    // the idea cfgs with a row
	for _, row := range m.IdeaSweep {
		if trainsGate(row.Cfg) {
			gated = append(gated, row.Cfg)
		}
	}
	v.intEq("mechanism_signature.math_check.rows (count)", len(rows), len(gated))
	all := true
	for i, row := range rows {
		p := fmt.Sprintf("mechanism_signature.math_check.rows[%d]", i)
		if i < len(gated) {
			v.floatEq(p+".rho", row.Rho, gated[i].Rho)
		}
		// The closed forms are defined for a valid ρ only (the gate's rule).
		if err := (gate.Params{Rho: row.Rho}).Validate(); err != nil {
			v.checked++
			v.add(p+".rho", fmt.Sprint(row.Rho), err.Error(), "")
			all = all && row.Holds()
			continue
		}
		v.intEq(p+".half_predicted", row.HalfPredicted, gate.HalfLife(row.Rho))
		obs, err := gate.ObservedHalfLife(row.Rho, 1<<20)
		if err != nil {
			v.add(p+".half_observed", fmt.Sprint(row.HalfObserved), err.Error(), "")
		} else {
			v.intEq(p+".half_observed", row.HalfObserved, obs)
		}
		switch {
		case row.Beta != nil && row.Drive != nil && row.Steps != nil && (*row.Steps < 1 || *row.Steps > maxSteps):
			// Simulating an absurd step count would take its memory and time.
			v.checked++
			v.add(p+".steps", fmt.Sprint(*row.Steps), fmt.Sprintf("in [1, %d]", maxSteps), "")
		case row.Beta != nil && row.Drive != nil && row.Steps != nil:
			v.floatEq(p+".steady_gain_abs_error", row.SteadyGainAbsError, gate.SteadyGainError(row.Rho, *row.Beta, *row.Drive, *row.Steps))
		default:
			v.checked++
			if !(row.SteadyGainAbsError <= SteadyErrTol) {
				v.add(p+".steady_gain_abs_error", fmt.Sprint(row.SteadyGainAbsError), fmt.Sprintf("<= %g", SteadyErrTol), "")
			}
		}
		all = all && row.Holds()
	}
	if m.MathCheck.Laws != nil || r.Training != nil {
		// The laws, re-derived by each idea's own theory (a report from
		// before them has neither laws nor training curves).
		arms := [][]Cfg{nil}
		for _, row := range m.IdeaSweep {
			arms[0] = append(arms[0], row.Cfg)
		}
		for _, ir := range r.Ideas {
			var g []Cfg
			for _, row := range ir.Sweep {
				g = append(g, row.Cfg)
			}
			arms = append(arms, g)
		}
		want, err := ideaLaws(arms...)
		v.checked++
		if err != nil {
			v.add("mechanism_signature.math_check.laws", "present", err.Error(), "")
		}
		got := m.MathCheck.Laws
		v.intEq("mechanism_signature.math_check.laws (count)", len(got), len(want))
		for i := range min(len(got), len(want)) {
			p := fmt.Sprintf("mechanism_signature.math_check.laws[%d]", i)
			v.checked++
			if got[i].Idea != want[i].Idea || got[i].Params != want[i].Params {
				v.add(p, got[i].Idea+" "+got[i].Params.String(), want[i].Idea+" "+want[i].Params.String(), "")
				continue
			}
			v.laws(p+".laws", got[i].Laws, want[i].Laws)
			v.boolEq(p+".holds", got[i].Holds, idea.AllHold(got[i].Laws))
			all = all && got[i].Holds
		}
	}
	v.boolEq("mechanism_signature.math_check.confirmed", m.MathCheck.Confirmed, all)
}

func (v *verifier) protocol(r *Report) {
	pj := r.MechanismSignature.Protocol
	var bl, il []float64
	for _, row := range r.Baseline.Sweep {
		bl = append(bl, row.Cfg.LR)
	}
	for _, row := range r.MechanismSignature.IdeaSweep {
		il = append(il, row.Cfg.LR)
	}
	v.floatsEq("mechanism_signature.protocol.baseline_lr_grid", pj.BaselineLRGrid, bl)
	v.floatsEq("mechanism_signature.protocol.idea_lr_grid", pj.IdeaLRGrid, il)
	v.intEq("mechanism_signature.protocol.epochs", pj.Epochs, r.Baseline.BestCfg.Epochs)
	v.intEq("baseline.full.n", r.Baseline.Full.N, r.NSeeds)
	v.intEq("idea.n", r.Idea.N, r.NSeeds)
}

func (v *verifier) forecasters(r *Report) {
	d, err := r.Setup.Protocol.Data()
	if err != nil {
		v.add("setup.protocol", "", err.Error(), "the track could not be rebuilt, so the reference forecasters were not rechecked")
		return
	}
	want, err := forecasters(d.Dataset)
	if err != nil {
		v.add("reference_forecasters", "", err.Error(), "")
		return
	}
	f := r.ReferenceForecasters
	v.floatEq("reference_forecasters.persistence", f.Persistence, want.Persistence)
	v.floatEq("reference_forecasters.linear_ar", f.LinearAR, want.LinearAR)
	v.floatEq("reference_forecasters.noise_floor", f.NoiseFloor, want.NoiseFloor)
	if f.BestReference != "" {
		// A report with the competence flag has every reference the
		// track gives.
		v.optEq("reference_forecasters.linear_centred", f.LinearCentred, want.LinearCentred)
		v.optEq("reference_forecasters.seasonal_persistence", f.SeasonalPersistence, want.SeasonalPersistence)
		v.intEq("reference_forecasters.seasonal_period", f.SeasonalPeriod, want.SeasonalPeriod)
		if f.Val == nil {
			v.checked++
			v.add("reference_forecasters.val", "missing", "the val MSE of every reference", "")
		} else {
			w := want.Val
			v.floatEq("reference_forecasters.val.persistence", f.Val.Persistence, w.Persistence)
			v.optEq("reference_forecasters.val.seasonal_persistence", f.Val.SeasonalPersistence, w.SeasonalPersistence)
			v.floatEq("reference_forecasters.val.linear_ar", f.Val.LinearAR, w.LinearAR)
			v.floatEq("reference_forecasters.val.linear_centred", f.Val.LinearCentred, w.LinearCentred)
		}
	}
	v.boolEq("reference_forecasters.baseline_beats_linear", f.BaselineBeatsLinear, r.Baseline.Full.Mean < f.LinearAR)
	v.boolEq("reference_forecasters.idea_beats_linear", f.IdeaBeatsLinear, r.Idea.Mean < f.LinearAR)
}

// diverged checks that each listed diverged trial's per-seed test metric
// is the recorded substitute, and that the substitutes are finite.
func (v *verifier) diverged(r *Report) {
	d := r.Diverged
	if d == nil {
		return
	}
	v.checked++
	if math.IsNaN(d.TestSubstitute) || math.IsInf(d.TestSubstitute, 0) || math.IsNaN(d.ValSubstitute) || math.IsInf(d.ValSubstitute, 0) {
		v.add("diverged.test_substitute", fmt.Sprint(d.TestSubstitute), "a finite value", "")
	}
	seedIdx := map[uint64]int{}
	for i, s := range r.MechanismSignature.Protocol.Seeds {
		seedIdx[s] = i
	}
	for k, t := range d.Trials {
		i, ok := seedIdx[t.Seed]
		field := fmt.Sprintf("diverged.trials[%d]", k)
		var ps []float64
		switch {
		case t.Arm == "baseline" && t.Cfg >= 0 && t.Cfg < len(r.Baseline.Sweep):
			ps = r.Baseline.Sweep[t.Cfg].PerSeed
		case t.Arm == "idea" && t.Cfg >= 0 && t.Cfg < len(r.MechanismSignature.IdeaSweep):
			ps = r.MechanismSignature.IdeaSweep[t.Cfg].Result.PerSeed
		case ideasIndex(t.Arm, len(r.Ideas)) >= 0 && t.Cfg >= 0 && t.Cfg < len(r.Ideas[ideasIndex(t.Arm, len(r.Ideas))].Sweep):
			ps = r.Ideas[ideasIndex(t.Arm, len(r.Ideas))].Sweep[t.Cfg].Result.PerSeed
		default:
			v.checked++
			v.add(field, fmt.Sprintf("%s cfg %d", t.Arm, t.Cfg), "an arm and cfg of the sweep", "")
			continue
		}
		if !ok || i >= len(ps) {
			continue // the seed report's sweep rows may carry no per-seed values
		}
		v.floatEq(field+" per-seed test metric", ps[i], d.TestSubstitute)
	}
}

// ideasIndex is k for arm "ideas[k]" with 0 <= k < n, else -1.
func ideasIndex(arm string, n int) int {
	for k := range n {
		if arm == ideasArm(k) {
			return k
		}
	}
	return -1
}
