package derive

import (
	"fmt"
	"math"
	"slices"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"

	"github.com/ideabench/ideabench/stats"
)

// tTable is the three-decimal Student-t table value t_{0.975,ν}; the seed
// report's mde used it instead of the exact quantile.
func tTable(nu float64) float64 { return math.Round(stats.TQuantile(0.975, nu)*1000) / 1000 }

// verifySeedFormat checks a report of the seed schema without setup (the
// seed report, ../shared/seed), which records no protocol to rebuild it
// from: what its own fields determine is re-derived. Two differences of
// the seed report are explained, not mismatches: its p-value came from
// Monte Carlo (within 0.01 of the exact one), and its mde used the
// three-decimal t-table value.
func verifySeedFormat(r *report.Report) Findings {
	v := &verifier{missing: r.MissingFields()}
	// A field of the seed schema that the file lacks is reported as
	// missing, once, instead of as a mismatch of its zero value.
	for _, f := range r.MissingFields() {
		v.checked++
		v.found = append(v.found, Finding{Field: f, Got: "missing", Want: "present (a field of the seed report's schema)"})
	}
	m := r.MechanismSignature
	v.intEq("n_seeds", r.NSeeds, len(m.Protocol.Seeds))
	v.summary("baseline.full", r.Baseline.Full)
	v.summary("idea", r.Idea)
	v.intEq("baseline.full.n", r.Baseline.Full.N, r.NSeeds)
	v.intEq("idea.n", r.Idea.N, r.NSeeds)
	// Selection: by val mean when recorded, else by test mean.
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
		best := lowest(bKey)
		v.cfgEq("baseline.best_cfg", r.Baseline.BestCfg, r.Baseline.Sweep[best].Cfg)
		v.floatEq("baseline.full.mean", r.Baseline.Full.Mean, r.Baseline.Sweep[best].Mean)
	}
	var iKey []float64
	for i, row := range m.IdeaSweep {
		v.summary(fmt.Sprintf("mechanism_signature.idea_sweep[%d].result", i), row.Result)
		key := row.Result.Mean
		if row.Val != nil {
			key = row.Val.Mean
		}
		iKey = append(iKey, key)
	}
	if len(iKey) > 0 {
		best := lowest(iKey)
		row := m.IdeaSweep[best]
		v.cfgEq("mechanism_signature.observed_best_cfg", m.ObservedBestCfg, row.Cfg)
		v.floatEq("idea.mean", r.Idea.Mean, row.Result.Mean)
		v.floatsEq("idea.per_seed", r.Idea.PerSeed, row.Result.PerSeed)
	}
	verdict := v.seedComparison(r)
	s := m.MechanismSignature
	v.floatEq("mechanism_signature.mechanism_signature.rho", s.Rho, m.ObservedBestCfg.Rho)
	v.floatEq("mechanism_signature.mechanism_signature.beta", s.Beta, m.ObservedBestCfg.Beta)
	v.floatEq("mechanism_signature.mechanism_signature.predicted_steady_gain", s.PredictedSteadyGain, idea.GateSteadyGain(s.Beta, s.MeanState))
	v.boolEq("mechanism_signature.mechanism_signature.confirmed", s.Confirmed,
		idea.GateConfirm(s.Rho, s.FittedStatePole, s.InitialGain, s.FinalGain, s.PredictedSteadyGain))
	if i := slices.Index(m.Protocol.Seeds, s.TrainedModelSeed); i >= 0 && i < len(r.Idea.PerSeed) {
		v.floatEq("mechanism_signature.mechanism_signature.metric", s.Metric, r.Idea.PerSeed[i])
	} else {
		v.checked++
		v.add("mechanism_signature.mechanism_signature.trained_model_seed", fmt.Sprint(s.TrainedModelSeed), fmt.Sprint(m.Protocol.Seeds), "")
	}
	mathOK := v.seedMathRows(r)
	v.boolEq("comparison.system_worked", r.Comparison.SystemWorked, verdict == stats.VerdictWin && s.Confirmed && mathOK)
	var bl, il []float64
	for _, row := range r.Baseline.Sweep {
		bl = append(bl, row.Cfg.LR)
	}
	for _, row := range m.IdeaSweep {
		il = append(il, row.Cfg.LR)
	}
	v.floatsEq("mechanism_signature.protocol.baseline_lr_grid", m.Protocol.BaselineLRGrid, bl)
	v.floatsEq("mechanism_signature.protocol.idea_lr_grid", m.Protocol.IdeaLRGrid, il)
	v.intEq("mechanism_signature.protocol.epochs", m.Protocol.Epochs, r.Baseline.BestCfg.Epochs)
	return Findings{Checked: v.checked, Findings: v.found}
}

// seedComparison re-derives the comparison block of a seed-format report
// from the chosen cfgs' per-seed metrics and returns its verdict.
func (v *verifier) seedComparison(r *report.Report) string {
	c := r.Comparison
	alpha := c.Alpha
	if alpha == 0 {
		alpha = stats.DefaultOptions().Alpha
	}
	opt := stats.DefaultOptions()
	opt.Alpha = alpha
	dir, err := stats.ParseDirection(r.MetricDirection)
	if err != nil {
		v.checked++
		v.add("metric_direction", r.MetricDirection, protocol.SeedProfile().Direction().String(), "")
		return ""
	}
	want, err := stats.Compare(r.Baseline.Full.PerSeed, r.Idea.PerSeed, dir, &opt)
	if err != nil {
		v.checked++
		v.add("comparison", "", err.Error(), "")
		return ""
	}
	v.floatEq("comparison.delta_mean", c.DeltaMean, want.DeltaMean)
	v.intEq("comparison.idea_wins", c.IdeaWins, want.IdeaWins)
	v.intEq("comparison.n_pairs", c.NPairs, want.NPairs)
	v.floatsEq("comparison.per_seed_diffs", c.PerSeedDiffs, want.PerSeedDiffs)
	v.checked++
	switch {
	case near(c.PValue, want.PValue):
	case c.PValueMethod == "" && math.Abs(c.PValue-want.PValue) <= 0.01:
		// A p-value from Monte Carlo: within 0.01 of the exact value is a
		// few Monte Carlo standard errors (<= 0.005 at 10⁴ draws).
		v.add("comparison.p_value", fmt.Sprint(c.PValue), fmt.Sprint(want.PValue),
			"Monte Carlo estimate of the exact sign-flip p-value; within 0.01")
	default:
		v.add("comparison.p_value", fmt.Sprint(c.PValue), fmt.Sprint(want.PValue), "")
	}
	v.checked++
	n := float64(want.NPairs)
	switch {
	case near(c.MDE, want.MDE):
		v.floatEq("comparison.mde_rel_pct", c.MDERelPct, want.MDERelPct)
	case want.NPairs >= 2 && near(c.MDE, want.MDE*tTable(n-1)/stats.TQuantile(1-alpha/2, n-1)):
		f := tTable(n-1) / stats.TQuantile(1-alpha/2, n-1)
		v.add("comparison.mde", fmt.Sprint(c.MDE), fmt.Sprint(want.MDE),
			fmt.Sprintf("the report used the three-decimal t-table value %.3f for t(0.975,%d)", tTable(n-1), want.NPairs-1))
		v.floatEq("comparison.mde_rel_pct (table t)", c.MDERelPct, want.MDERelPct*f)
	default:
		v.add("comparison.mde", fmt.Sprint(c.MDE), fmt.Sprint(want.MDE), "")
		v.floatEq("comparison.mde_rel_pct", c.MDERelPct, want.MDERelPct)
	}
	v.checked++
	if c.Verdict != want.Verdict {
		v.add("comparison.verdict", c.Verdict, want.Verdict, "")
	}
	return want.Verdict
}

// seedMathRows re-derives the math check's rows (gate.CheckMath) of a
// seed-format report, one per idea cfg, and reports whether all hold.
func (v *verifier) seedMathRows(r *report.Report) bool {
	m := r.MechanismSignature
	rows := m.MathCheck.Rows
	v.intEq("mechanism_signature.math_check.rows (count)", len(rows), len(m.IdeaSweep))
	all := true
	for i, row := range rows {
		p := fmt.Sprintf("mechanism_signature.math_check.rows[%d]", i)
		if i < len(m.IdeaSweep) {
			v.floatEq(p+".rho", row.Rho, m.IdeaSweep[i].Cfg.Rho)
		}
		if err := idea.GateValidate(row.Rho, 0); err != nil {
			v.checked++
			v.add(p+".rho", fmt.Sprint(row.Rho), err.Error(), "")
			all = false
			continue
		}
		predicted, observed, err := idea.GateHalfLives(row.Rho, 1<<20)
		v.intEq(p+".half_predicted", row.HalfPredicted, predicted)
		v.checked++
		if err != nil || observed != row.HalfObserved {
			v.add(p+".half_observed", fmt.Sprint(row.HalfObserved), fmt.Sprint(observed), "")
		}
		v.checked++
		if !(row.SteadyGainAbsError <= idea.GateSteadyErrTol) {
			v.add(p+".steady_gain_abs_error", fmt.Sprint(row.SteadyGainAbsError), fmt.Sprintf("<= %g", idea.GateSteadyErrTol), "")
		}
		all = all && row.Holds()
	}
	v.boolEq("mechanism_signature.math_check.confirmed", m.MathCheck.Confirmed, all)
	return all
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

func (v *verifier) cfgEq(field string, got, want protocol.Cfg) {
	v.checked++
	if got != want {
		v.add(field, fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want), "")
	}
}

func (v *verifier) summary(field string, s report.Summary) {
	want := stats.Summarize(s.PerSeed)
	v.floatEq(field+".mean", s.Mean, want.Mean)
	v.floatEq(field+".std", s.Std, want.Std)
	v.intEq(field+".n", s.N, want.N)
}

// lowest is the index of the least of means, the first on ties: the
// selection of a report of the seed schema, which records no divergence.
func lowest(means []float64) int {
	best := 0
	for i, m := range means {
		if m < means[best] {
			best = i
		}
	}
	return best
}
