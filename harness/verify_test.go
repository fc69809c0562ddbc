package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/stats"
	"github.com/stretchr/testify/require"
)

// TestVerifyCatchesTampering: each edited number must surface as a mismatch.
func TestVerifyCatchesTampering(t *testing.T) {
	out, err := Run(context.Background(), testkit.TinyProtocol(), Options{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		edit  func(r *report.Report)
		field string
	}{
		{"delta_mean", func(r *report.Report) { r.Comparison.DeltaMean += 1e-6 }, "comparison.delta_mean"},
		{"idea_wins", func(r *report.Report) { r.Comparison.IdeaWins++ }, "comparison.idea_wins"},
		{"p_value", func(r *report.Report) { r.Comparison.PValue = 0.01 }, "comparison.p_value"},
		{"mde", func(r *report.Report) { r.Comparison.MDE *= 1.1 }, "comparison.mde"},
		{"p_value_conditional", func(r *report.Report) { *r.Comparison.PValueConditional /= 2 }, "comparison.p_value_conditional"},
		{"test", func(r *report.Report) { r.Comparison.Test = report.TestSignFlip }, "comparison.test"},
		// An edited MDE does not hide an edited relative MDE.
		{"mde_rel_pct", func(r *report.Report) { r.Comparison.MDE *= 1.1; r.Comparison.MDERelPct *= 1.1 }, "comparison.mde_rel_pct"},
		// A looser alpha with the verdict and MDE to match still fails: the
		// protocol fixes alpha.
		{"alpha", func(r *report.Report) {
			c := &r.Comparison
			c.Alpha, c.Verdict = 0.7, "significant win"
			c.MDE *= stats.TQuantile(1-0.35, float64(c.NPairs-1)) / stats.TQuantile(1-r.Setup.Protocol.Alpha/2, float64(c.NPairs-1))
		}, "comparison.alpha"},
		{"verdict", func(r *report.Report) { r.Comparison.Verdict = "significant win" }, "comparison.verdict"},
		{"system_worked", func(r *report.Report) { r.Comparison.SystemWorked = !r.Comparison.SystemWorked }, "comparison.system_worked"},
		{"full_std", func(r *report.Report) { r.Baseline.Full.Std *= 2 }, "baseline.full.std"},
		{"best_cfg", func(r *report.Report) { r.Baseline.BestCfg.LR = 42 }, "baseline.best_cfg"},
		{"predicted_gain", func(r *report.Report) { r.MechanismSignature.MechanismSignature.PredictedSteadyGain += 0.1 }, "mechanism_signature.mechanism_signature.predicted_steady_gain"},
		{"half_life", func(r *report.Report) { r.MechanismSignature.MathCheck.Rows[0].HalfPredicted++ }, "mechanism_signature.math_check.rows[0].half_predicted"},
		{"linear_ar", func(r *report.Report) { r.ReferenceForecasters.LinearAR *= 1.01 }, "reference_forecasters.linear_ar"},
		{"interval", func(r *report.Report) { r.Comparison.Intervals.TLo -= 1e-3 }, "comparison.intervals.t_lo"},
		{"bootstrap", func(r *report.Report) { r.Comparison.Intervals.BootHi += 1e-3 }, "comparison.intervals.bootstrap_hi"},
		{"poi", func(r *report.Report) { r.Comparison.Intervals.PoI = 0.99 }, "comparison.intervals.probability_of_improvement"},
		{"power", func(r *report.Report) { r.Comparison.Power.Observed.SeedsNeeded += 3 }, "comparison.power.observed.seeds_needed"},
		{"power_dropped", func(r *report.Report) { r.Comparison.Power = nil }, "comparison.power.method"},
		{"budget", func(r *report.Report) { r.TuningBudget.Idea[0].Test *= 1.01 }, "tuning_budget.idea[0].expected_test"},
		{"budget_winner", func(r *report.Report) { r.TuningBudget.WinnerChanges = !r.TuningBudget.WinnerChanges }, "tuning_budget.winner_changes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := out.Report.Marshal()
			require.NoError(t, err)
			path := t.TempDir() + "/r.json"
			require.NoError(t, os.WriteFile(path, data, 0o644))
			r, err := report.Read(path)
			require.NoError(t, err)
			require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches(), "untouched report must verify")
			tc.edit(r)
			var fields []string
			for _, f := range derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches() {
				fields = append(fields, f.Field)
			}
			testkit.RequireNamed(t, fields, tc.field)
		})
	}
}

// TestVerifyPositionsAndCurves: the per-position gate means must end on
// the summary fields, and the loss curves belong to the chosen cfgs.
func TestVerifyPositionsAndCurves(t *testing.T) {
	o, err := Run(context.Background(), testkit.TinyProtocol(), Options{})
	require.NoError(t, err)
	require.Empty(t, derive.Verify(o.Report, derive.VerifyOptions{}).Mismatches())
	raw, err := o.Report.Marshal()
	require.NoError(t, err)
	for _, tc := range []struct {
		name, field string
		edit        func(r *report.Report)
	}{
		{"gain", "mechanism_signature.mechanism_signature.layers[0].gain_by_position[0]", func(r *report.Report) { r.MechanismSignature.MechanismSignature.Layers[0].GainByPosition[0] += 0.1 }},
		{"state", "mechanism_signature.mechanism_signature.layers[1].state_by_position", func(r *report.Report) {
			st := r.MechanismSignature.MechanismSignature.Layers[1].StateByPosition
			st[len(st)-1] *= 2
		}},
		{"curve_cfg", "training.idea.cfg", func(r *report.Report) { r.Training.Idea.Cfg.LR *= 2 }},
		{"curve_seeds", "training.baseline.epoch_losses", func(r *report.Report) { r.Training.Baseline.EpochLosses = r.Training.Baseline.EpochLosses[1:] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r report.Report
			require.NoError(t, json.Unmarshal(raw, &r))
			tc.edit(&r)
			var fields []string
			for _, f := range derive.Verify(&r, derive.VerifyOptions{}).Mismatches() {
				fields = append(fields, f.Field)
			}
			testkit.RequireNamed(t, fields, tc.field)
		})
	}
}

// TestSeedSchema: seedSchema is every field of the seed report, in its
// order (an array's fields read from its first element), and a report of
// this harness has all of them.
func TestSeedSchema(t *testing.T) {
	raw, err := os.ReadFile(testkit.SeedReport)
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(raw))
	var paths []string
	var value func(p string, record bool)
	value = func(p string, record bool) {
		tok, err := dec.Token()
		require.NoError(t, err)
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k, err := dec.Token()
				require.NoError(t, err)
				q := k.(string)
				if p != "" {
					q = p + "." + q
				}
				if record {
					paths = append(paths, q)
				}
				value(q, record)
			}
			_, err = dec.Token()
			require.NoError(t, err)
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				value(p+"[]", record && i == 0)
			}
			_, err = dec.Token()
			require.NoError(t, err)
		}
	}
	value("", true)
	require.Equal(t, paths, report.SeedSchema)

	o, err := Run(context.Background(), testkit.TinyProtocol(), Options{})
	require.NoError(t, err)
	ours, err := o.Report.Marshal()
	require.NoError(t, err)
	missing, err := report.SchemaCheck(ours, "ours")
	require.NoError(t, err)
	require.Empty(t, missing)
}

// TestVerifyFileShape: what the decoder would drop unseen is refused by
// name: a key that is no field of a report, a key given twice; whole
// numbers compare exactly, however large; and the findings come in a
// fixed order.
func TestVerifyFileShape(t *testing.T) {
	p := testkit.TinyProtocol()
	p.Seeds = []uint64{1 << 60, 1<<60 + 1, 1<<60 + 2}
	o, err := Run(context.Background(), p, Options{})
	require.NoError(t, err)
	raw, err := o.Report.Marshal()
	require.NoError(t, err)
	editRaw := func(f func(m map[string]any)) []byte {
		t.Helper()
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var m map[string]any
		require.NoError(t, dec.Decode(&m))
		f(m)
		out, err := json.Marshal(m)
		require.NoError(t, err)
		return out
	}
	edit := func(f func(m map[string]any)) *report.Report {
		t.Helper()
		r, err := report.Parse(editRaw(f), "edited")
		require.NoError(t, err)
		return r
	}
	fields := func(r *report.Report) []string {
		var fs []string
		for _, f := range derive.Verify(r, derive.VerifyOptions{}).Mismatches() {
			fs = append(fs, f.Field)
		}
		return fs
	}
	_, err = report.Parse(editRaw(func(m map[string]any) { m["comparison"].(map[string]any)["verdict_final"] = "significant win" }), "edited")
	require.ErrorContains(t, err, `unknown field "verdict_final" in comparison`)
	_, err = report.Parse(editRaw(func(m map[string]any) { m["headline"] = "a win" }), "edited")
	require.ErrorContains(t, err, `unknown field "headline" in the top level`)

	// 2^60 + 24 is 2^60 to float64; an integer compares exactly.
	big := edit(func(m map[string]any) {
		s := m["mechanism_signature"].(map[string]any)["mechanism_signature"].(map[string]any)
		s["trained_model_seed"] = json.Number("1152921504606847000")
	})
	testkit.RequireNamed(t, fields(big), "mechanism_signature.mechanism_signature.trained_model_seed")

	dup := bytes.Replace(raw, []byte(`"n_seeds": 3,`), []byte(`"n_seeds": 4, "n_seeds": 3,`), 1)
	_, err = report.Parse(dup, "dup.json")
	require.ErrorContains(t, err, `duplicate key "n_seeds" in `)

	order := edit(func(m map[string]any) {
		delete(m["setup"].(map[string]any)["protocol"].(map[string]any), "arch")
	})
	first := fields(order)
	require.NotEmpty(t, first)
	for range 10 {
		require.Equal(t, first, fields(order), "findings in a fixed order")
	}
}

// TestVerifyResultsShards: verify --results reads a merged run's records
// from every shard's directory; given only some of them it says which
// trials have no record.
func TestVerifyResultsShards(t *testing.T) {
	p := testkit.TinyProtocol()
	var dirs []string
	for i := range 2 {
		s, err := trial.OpenStore(t.TempDir())
		require.NoError(t, err)
		_, err = Run(context.Background(), p, Options{Store: s, Shard: i, Shards: 2})
		require.NoError(t, err)
		dirs = append(dirs, s.Dir)
	}
	o, err := Merge(context.Background(), dirs)
	require.NoError(t, err)
	require.Empty(t, derive.Verify(o.Report, derive.VerifyOptions{Results: dirs}).Findings)
	ms := derive.Verify(o.Report, derive.VerifyOptions{Results: dirs[:1]}).Mismatches()
	require.Len(t, ms, 1)
	require.Equal(t, "setup", ms[0].Field)
	require.Contains(t, ms[0].Got, fmt.Sprintf("%d of %d trials without a record", len(p.Trials())/2, len(p.Trials())))
}
