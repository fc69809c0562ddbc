package harness

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
	"github.com/stretchr/testify/require"
)

// TestCompetence: the report names the best reference forecaster, flags
// a baseline that does not beat it and says so in the warnings; verify
// catches a flipped flag, a wrong kept epoch and a wrong curve value.
func TestCompetence(t *testing.T) {
	o, err := Run(context.Background(), testkit.TinyProtocol(), Options{})
	require.NoError(t, err)
	r := o.Report
	f := r.ReferenceForecasters
	name, best := f.Best()
	require.Equal(t, name, f.BestReference)
	require.Equal(t, min(f.Persistence, f.LinearAR), best)
	require.Equal(t, r.Baseline.Full.Mean < best, f.BaselineCompetent)
	hollow := false
	for _, w := range r.Comparison.Warnings {
		hollow = hollow || fmt.Sprint(w)[:15] == "hollow comparis"
	}
	require.Equal(t, !f.BaselineCompetent, hollow)
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{}).Mismatches())

	for _, tc := range []struct {
		name, field string
		edit        func(r *report.Report)
	}{
		{"flag", "reference_forecasters.baseline_competent", func(r *report.Report) {
			r.ReferenceForecasters.BaselineCompetent = !r.ReferenceForecasters.BaselineCompetent
		}},
		{"best_reference", "reference_forecasters.best_reference", func(r *report.Report) { r.ReferenceForecasters.BestReference = "noise_floor" }},
		{"margin", "reference_forecasters.baseline_margin", func(r *report.Report) { r.ReferenceForecasters.BaselineMargin += 0.1 }},
		{"best_epoch", "training.baseline.best_epochs[1]", func(r *report.Report) { r.Training.Baseline.BestEpochs[1]++ }},
		{"val_curve", "training.idea.val_curves[0]", func(r *report.Report) {
			ac := r.Training.Idea
			ac.ValCurves[0][ac.BestEpochs[0]-1] *= 0.99 // still the least
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := r.Marshal()
			require.NoError(t, err)
			bad, err := report.Parse(raw, "copy")
			require.NoError(t, err)
			tc.edit(bad)
			ms := derive.Verify(bad, derive.VerifyOptions{}).Mismatches()
			require.NotEmpty(t, ms)
			var fs []string
			for _, m := range ms {
				fs = append(fs, m.Field)
			}
			testkit.RequireNamed(t, fs, tc.field)
		})
	}
}

// TestReferencesCSV: on an hourly csv track whose context holds a day,
// the report carries every reference forecaster with its val metric,
// seasonal persistence among them; verify recomputes each from the setup
// and names the one edited.
func TestReferencesCSV(t *testing.T) {
	p := protocol.FullProfile("csv")
	p.Seeds = []uint64{0, 1}
	p.Baseline, p.Idea = p.Baseline[:1], p.Idea[:1]
	p.Baseline[0].Epochs, p.Idea[0].Epochs = 1, 1
	p.Arch.D, p.Arch.Heads, p.Arch.Patch = 8, 2, 8
	p.CSV = &track.CSVConfig{Path: "../track/testdata/tiny.csv", Target: "OT", T: 24, H: 6}
	o, err := Run(context.Background(), p, Options{})
	require.NoError(t, err)
	r := o.Report
	f := r.ReferenceForecasters
	require.Equal(t, 24, f.SeasonalPeriod)
	require.NotNil(t, f.SeasonalPersistence)
	require.NotNil(t, f.LinearCentred)
	require.NotNil(t, f.Val)
	require.NotNil(t, f.Val.SeasonalPersistence)
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches())

	for _, tc := range []struct {
		field string
		edit  func(f *track.Forecasters)
	}{
		{"reference_forecasters.seasonal_persistence", func(f *track.Forecasters) { *f.SeasonalPersistence *= 1.5 }},
		{"reference_forecasters.linear_centred", func(f *track.Forecasters) { *f.LinearCentred *= 0.5 }},
		{"reference_forecasters.val.linear_ar", func(f *track.Forecasters) { f.Val.LinearAR++ }},
		{"reference_forecasters.seasonal_period", func(f *track.Forecasters) { f.SeasonalPeriod = 12 }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			raw, err := r.Marshal()
			require.NoError(t, err)
			bad, err := report.Parse(raw, "copy")
			require.NoError(t, err)
			tc.edit(bad.ReferenceForecasters)
			var fields []string
			for _, m := range derive.Verify(bad, derive.VerifyOptions{Rerun: true}).Mismatches() {
				fields = append(fields, m.Field)
			}
			testkit.RequireNamed(t, fields, tc.field)
		})
	}
}

// TestIdentityAndAAControls: an idea grid at the identity gives identical
// arms and a report that says so and verifies; the A/A control trains the
// same model on disjoint streams, so its arms differ by noise only, and
// says so too.
func TestIdentityAndAAControls(t *testing.T) {
	for _, tc := range []struct {
		name  string
		idea  protocol.Cfg
		warn  string
		zeros bool // every per-seed difference is exactly 0
	}{
		{"gate_beta0", protocol.Cfg{LR: 0.003, Epochs: 2, Rho: 0.9}, "identity idea", true},
		{"aa", protocol.Cfg{LR: 0.003, Epochs: 2, Idea: "aa"}, "A/A control", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testkit.TinyProtocol()
			p.Baseline, p.Idea = []protocol.Cfg{{LR: 0.003, Epochs: 2}}, []protocol.Cfg{tc.idea}
			o, err := Run(context.Background(), p, Options{})
			require.NoError(t, err)
			r := o.Report
			allZero := true
			for _, d := range r.Comparison.PerSeedDiffs {
				allZero = allZero && d == 0
			}
			require.Equal(t, tc.zeros, allZero, "diffs %v", r.Comparison.PerSeedDiffs)
			found := false
			for _, w := range r.Comparison.Warnings {
				found = found || strings.HasPrefix(w, tc.warn)
			}
			require.True(t, found, "warnings %q", r.Comparison.Warnings)
			require.NotEmpty(t, r.MechanismSignature.MechanismSignature.NotMeasured)
			require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches())
		})
	}
}

// TestSeveralIdeas: further idea arms are trained once per distinct cfg
// (an arm that shares a cfg with the idea arm reuses its trials; the
// same arm twice is refused, TestValidateEachField), each is
// compared with the same baseline, the p-values are Holm-adjusted over
// every idea arm, and verify re-derives all of it and names an edit.
func TestSeveralIdeas(t *testing.T) {
	p := testkit.TinyProtocol()
	p.Baseline = []protocol.Cfg{{LR: 0.003, Epochs: 2}}
	p.Idea = []protocol.Cfg{{LR: 0.003, Epochs: 2, Rho: 0.9, Beta: 1}}
	p.Ideas = []protocol.IdeaArm{
		{Name: "rezero", Grid: []protocol.Cfg{{LR: 0.003, Epochs: 2, Idea: "rezero"}, {LR: 0.01, Epochs: 2, Idea: "rezero"}}},
		{Name: "gate again", Grid: []protocol.Cfg{p.Idea[0], {LR: 0.01, Epochs: 2, Rho: 0.9, Beta: 1}}},
	}
	require.ErrorContains(t, p.Validate(), "ideas[0].grid: 2 cfgs against the baseline's 1")
	// rezero tries two cfgs against the baseline's one: it runs only
	// when the config says so, and its verdict carries the mark.
	p.UnequalBudget = true
	require.NoError(t, p.Validate())
	s, err := trial.OpenStore(t.TempDir())
	require.NoError(t, err)
	o, err := Run(context.Background(), p, Options{Store: s})
	require.NoError(t, err)
	require.Equal(t, len(p.Trials())-len(p.Seeds), o.Computed, "the shared cfg reuses the idea arm's trials")
	r := o.Report
	require.Len(t, r.Ideas, 2)
	require.Equal(t, r.MechanismSignature.IdeaSweep[0].Result.PerSeed, r.Ideas[1].Sweep[0].Result.PerSeed)
	ps := []float64{r.Comparison.PValue, r.Ideas[0].Comparison.PValue, r.Ideas[1].Comparison.PValue}
	want := stats.Holm(ps)
	require.Equal(t, want[0], *r.Comparison.PValueHolm)
	require.Equal(t, want[1], *r.Ideas[0].Comparison.PValueHolm)
	require.GreaterOrEqual(t, *r.Comparison.PValueHolm, r.Comparison.PValue)
	for _, m := range r.Comparison.Marks {
		require.NotContains(t, m, "unequal budget", "the gate arm spends the baseline's budget")
	}
	require.Equal(t, []string{"unequal budget: ideas[0].grid: 2 cfgs against the baseline's 1 (an arm that tries more cfgs has more chances on val, and trains more)"}, r.Ideas[0].Comparison.Marks)
	require.False(t, r.Budget.Equal)
	require.Equal(t, 2*r.Budget.Arms[0].Steps, r.Budget.Arms[2].Steps, "rezero: two cfgs of the baseline's one")
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches())

	for _, tc := range []struct {
		field string
		edit  func(r *report.Report)
	}{
		{"ideas[0].comparison.p_value_holm", func(r *report.Report) { *r.Ideas[0].Comparison.PValueHolm /= 2 }},
		{"ideas[0].best_cfg", func(r *report.Report) { r.Ideas[0].BestCfg = r.Ideas[0].Sweep[1-indexOf(r.Ideas[0])].Cfg }},
		{"ideas[1].comparison.delta_mean", func(r *report.Report) { r.Ideas[1].Comparison.DeltaMean += 1 }},
		{"comparison.verdict_holm", func(r *report.Report) { r.Comparison.VerdictHolm = "significant win" }},
		{"ideas[0].comparison.marks", func(r *report.Report) { r.Ideas[0].Comparison.Marks = nil }},
		{"budget.arms[2].steps", func(r *report.Report) { r.Budget.Arms[2].Steps = r.Budget.Arms[0].Steps }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			testkit.RequireNamed(t, tamperedFields(t, r, tc.edit), tc.field)
		})
	}
}

// indexOf is the index of an idea report's chosen cfg in its sweep.
func indexOf(a report.IdeaReport) int {
	for i, row := range a.Sweep {
		if row.Cfg == a.BestCfg {
			return i
		}
	}
	return -1
}

// TestControl: blocks use disjoint seeds (block 0 the protocol's own),
// each block is a full run of the protocol with the idea grid made from
// the baseline grid, and the counts add up.
func TestControl(t *testing.T) {
	p := testkit.TinyProtocol()
	p.Baseline = []protocol.Cfg{{LR: 0.003, Epochs: 1}}
	require.Equal(t, p.Seeds, ControlSeeds(p, 0, 0))
	require.Equal(t, []uint64{5000, 5001, 5002}, ControlSeeds(p, 5000, 0))
	require.Equal(t, []uint64{5003, 5004, 5005}, ControlSeeds(p, 5000, 1))
	seen := map[uint64]bool{}
	for k := range 4 {
		for _, s := range ControlSeeds(p, 0, k) {
			require.False(t, seen[s], "seed %d in two blocks", s)
			seen[s] = true
		}
	}
	aa := idea.Config{Name: "aa", Params: idea.NewParams(map[string]float64{"stream": 1})}
	done := 0
	res, err := Control(context.Background(), p, aa, 3, 0, Options{}, func(int) { done++ })
	require.NoError(t, err)
	require.Equal(t, 3, done)
	require.Len(t, res.PerBlock, 3)
	require.Equal(t, ControlSeeds(p, 0, 2), res.PerBlock[2].Seeds)
	require.Equal(t, report.TestSelection, res.Test)
	wins, losses := 0, 0
	for _, b := range res.PerBlock {
		switch b.Verdict {
		case stats.VerdictWin:
			wins++
		case stats.VerdictLoss:
			losses++
		}
	}
	require.Equal(t, wins, res.Wins)
	require.Equal(t, losses, res.Losses)
	k, rate, lo, hi := res.Rate(false)
	require.Equal(t, wins+losses, k, "the A/A control counts either verdict")
	require.InDelta(t, float64(k)/3, rate, 1e-15)
	require.LessOrEqual(t, lo, rate)
	require.GreaterOrEqual(t, hi, rate)

	// The gate as a cfg writes it.
	g := p.Baseline[0].WithIdea(idea.Config{Name: "gate", Params: idea.NewParams(map[string]float64{"rho": 0.9, "beta": 0.5})})
	require.Equal(t, protocol.Cfg{LR: 0.003, Epochs: 1, Rho: 0.9, Beta: 0.5}, g)
	_, err = Control(context.Background(), p, aa, 0, 0, Options{}, nil)
	require.ErrorContains(t, err, "blocks = 0")
	_, err = Control(context.Background(), p, aa, 10, MaxControlSeed, Options{}, nil)
	require.ErrorContains(t, err, "beyond")
}

// TestIdeaLaws: the math check carries the laws of every idea setting with
// a theory (the ema's and the gate's), the ema arm's mechanism is read by
// its own probe, the selection-aware p-values are Holm-adjusted when every
// grid pairs with the baseline's, and verify re-derives all of it.
func TestIdeaLaws(t *testing.T) {
	p := testkit.TinyProtocol()
	p.Baseline = []protocol.Cfg{{LR: 0.01, Epochs: 2}, {LR: 0.003, Epochs: 2}}
	p.Idea = []protocol.Cfg{{LR: 0.01, Epochs: 2, Idea: "ema", Params: idea.NewParams(map[string]float64{"lambda": 0.7})},
		{LR: 0.003, Epochs: 2, Idea: "ema", Params: idea.NewParams(map[string]float64{"lambda": 0.7})}}
	p.Ideas = []protocol.IdeaArm{{Name: "gate", Grid: []protocol.Cfg{{LR: 0.01, Epochs: 2, Rho: 0.9, Beta: 1}, {LR: 0.003, Epochs: 2, Rho: 0.9, Beta: 1}}}}
	require.NoError(t, p.Validate())
	o, err := Run(context.Background(), p, Options{})
	require.NoError(t, err)
	r := o.Report
	mc := r.MechanismSignature.MathCheck
	require.Empty(t, mc.Rows, "no cfg of the idea arm trains the gate")
	require.Len(t, mc.Laws, 2, "one ema setting and one gate setting")
	require.Equal(t, "ema", mc.Laws[0].Idea)
	require.Equal(t, "gate", mc.Laws[1].Idea)
	require.True(t, mc.Confirmed)
	s := r.MechanismSignature.MechanismSignature
	require.Empty(t, s.NotMeasured)
	require.Len(t, s.Laws, 2*p.Arch.Layers)
	require.Equal(t, "block0.state_pole", s.Laws[0].Name)
	require.InDelta(t, 0.7, s.Laws[0].Got, 1e-3, "the fit recovers the ema's decay")
	require.Equal(t, idea.AllHold(s.Laws), s.Confirmed)
	require.Equal(t, report.TestSelection, r.Comparison.Test)
	require.Equal(t, report.TestSelection, r.Ideas[0].Comparison.Test)
	require.NotNil(t, r.Comparison.PValueHolm)
	sel := stats.Holm([]float64{r.Comparison.PValue, r.Ideas[0].Comparison.PValue})
	require.Equal(t, sel[0], *r.Comparison.PValueHolm)
	require.Equal(t, sel[1], *r.Ideas[0].Comparison.PValueHolm)
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches())

	for _, tc := range []struct {
		field string
		edit  func(r *report.Report)
	}{
		{"mechanism_signature.math_check.laws[1].laws[0].want", func(r *report.Report) { r.MechanismSignature.MathCheck.Laws[1].Laws[0].Want++ }},
		{"mechanism_signature.math_check.laws", func(r *report.Report) { r.MechanismSignature.MathCheck.Laws = r.MechanismSignature.MathCheck.Laws[:1] }},
		{"mechanism_signature.math_check.laws[0].holds", func(r *report.Report) { r.MechanismSignature.MathCheck.Laws[0].Holds = false }},
		{"mechanism_signature.mechanism_signature.confirmed", func(r *report.Report) {
			s := &r.MechanismSignature.MechanismSignature
			s.Confirmed = !s.Confirmed
		}},
		{"mechanism_signature.mechanism_signature.laws", func(r *report.Report) { r.MechanismSignature.MechanismSignature.Laws = nil }},
		{"ideas[0].comparison.p_value_holm", func(r *report.Report) { *r.Ideas[0].Comparison.PValueHolm /= 2 }},
		{"comparison.verdict_holm", func(r *report.Report) { r.Comparison.VerdictHolm = "significant loss" }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			testkit.RequireNamed(t, tamperedFields(t, r, tc.edit), tc.field)
		})
	}
}

// TestGateLawsInReport: the gate's mechanism laws are its layers' Confirm
// criteria, and verify rebuilds them from the layers.
func TestGateLawsInReport(t *testing.T) {
	o, err := Run(context.Background(), testkit.TinyProtocol(), Options{})
	require.NoError(t, err)
	s := o.Report.MechanismSignature.MechanismSignature
	require.Equal(t, idea.GateLaws(s.Rho, s.Layers), s.Laws)
	require.Equal(t, s.Confirmed, s.Layers[0].Confirmed)
	s.Laws[0].Got += 0.5
	o.Report.MechanismSignature.MechanismSignature = s
	var fields []string
	for _, m := range derive.Verify(o.Report, derive.VerifyOptions{}).Mismatches() {
		fields = append(fields, m.Field)
	}
	testkit.RequireNamed(t, fields, "mechanism_signature.mechanism_signature.laws[0].got")
}

// TestTuningBudgetInReport: a run's report carries both arms' budget
// curves and whether the winner changes along them.
func TestTuningBudgetInReport(t *testing.T) {
	o, err := Run(context.Background(), testkit.TinyProtocol(), Options{})
	require.NoError(t, err)
	tb := o.Report.TuningBudget
	require.NotNil(t, tb)
	require.Len(t, tb.Baseline, 2)
	require.Len(t, tb.Idea, 2)
	sign := func(k int) int { return cmp.Compare(tb.Idea[k].Test, tb.Baseline[k].Test) }
	require.Equal(t, sign(0) != sign(1), tb.WinnerChanges, "the winner at k = 1 and k = 2")
}

// tamperedFields applies edit to a copy of r, read back from its JSON, and
// returns the fields of the mismatches verify finds in it.
func tamperedFields(t *testing.T, r *report.Report, edit func(*report.Report)) []string {
	t.Helper()
	raw, err := r.Marshal()
	require.NoError(t, err)
	bad, err := report.Parse(raw, "copy")
	require.NoError(t, err)
	edit(bad)
	var fields []string
	for _, m := range derive.Verify(bad, derive.VerifyOptions{}).Mismatches() {
		fields = append(fields, m.Field)
	}
	return fields
}

// TestSkipPerChannel: on a track of several series, a model whose skip
// path starts per channel starts as linear_centred_per_channel (val and
// test), the best val epoch is never worse than that start, the report
// verifies with its trials rerun; skip_start "val" starts at the lower
// on val of the shared and per-channel maps; the field is refused where
// it cannot apply.
func TestSkipPerChannel(t *testing.T) {
	p := protocol.FullProfile("csv")
	p.Seeds = []uint64{0, 1}
	p.Baseline, p.Idea = p.Baseline[2:], p.Idea[2:]
	p.Baseline[0].Epochs, p.Idea[0].Epochs = 3, 3
	p.Arch.D, p.Arch.Heads, p.Arch.Patch = 8, 2, 8
	p.Arch.SkipStart = protocol.SkipStartPerChannel
	p.CSV = &track.CSVConfig{Path: "../track/testdata/tiny.csv", Channels: track.ChannelsIndependent, T: 24, H: 6}
	require.NoError(t, p.Validate())
	o, err := Run(context.Background(), p, Options{})
	require.NoError(t, err)
	f := o.Report.ReferenceForecasters
	for i, res := range o.Results {
		require.False(t, res.Diverged, "trial %d", i)
		// float32 model output (the last input, head and skip at 0)
		// plus float64 offsets: equal to rounding.
		require.InDelta(t, *f.LinearCentredPerChannel, res.StartTest, 1e-6*res.StartTest, "trial %d", i)
		require.InDelta(t, *f.Val.LinearCentredPerChannel, res.StartVal, 1e-6*res.StartVal, "trial %d", i)
		require.LessOrEqual(t, res.Val, res.StartVal, "trial %d: the kept epoch is the start or better on val", i)
	}
	require.Empty(t, derive.Verify(o.Report, derive.VerifyOptions{Rerun: true}).Mismatches())

	// Channel mixing: the model sees every column, the references (the
	// target series' own maps) and the per-channel start are the same.
	t.Run("mixed", func(t *testing.T) {
		q := p
		c := *p.CSV
		c.Channels = track.ChannelsMixed
		q.CSV = &c
		require.NoError(t, q.Validate())
		om, err := Run(context.Background(), q, Options{})
		require.NoError(t, err)
		fm := om.Report.ReferenceForecasters
		require.Equal(t, *f.LinearCentredPerChannel, *fm.LinearCentredPerChannel)
		require.Equal(t, f.LinearAR, fm.LinearAR)
		require.Equal(t, 3, trial.ModelConfig(q, q.Baseline[0], testkit.MustData(t, q)).CIn, "the model sees every column")
		for i, res := range om.Results {
			require.InDelta(t, *fm.LinearCentredPerChannel, res.StartTest, 1e-6*res.StartTest, "trial %d", i)
		}
		require.Empty(t, derive.Verify(om.Report, derive.VerifyOptions{Rerun: true}).Mismatches())
	})

	t.Run("val", func(t *testing.T) {
		q := p
		q.Arch.SkipStart = protocol.SkipStartVal
		o, err := Run(context.Background(), q, Options{})
		require.NoError(t, err)
		f := o.Report.ReferenceForecasters
		want := *f.Val.LinearCentredPerChannel
		if f.Val.LinearCentred <= want {
			want = f.Val.LinearCentred
		}
		for i, res := range o.Results {
			require.InDelta(t, want, res.StartVal, 1e-6*want, "trial %d starts at the lower on val", i)
		}
	})

	for _, tc := range []struct {
		name string
		edit func(q *protocol.Protocol)
		want string
	}{
		{"no skip", func(q *protocol.Protocol) { q.Arch.Skip = false }, "needs arch.skip"},
		{"one series", func(q *protocol.Protocol) { q.CSV.Channels = ""; q.CSV.Target = "OT" }, "a track of several series"},
		{"revin", func(q *protocol.Protocol) { q.Arch.Norm = transformer.NormRevIN }, "each window's statistics"},
		{"every token", func(q *protocol.Protocol) { q.Arch.Loss, q.Arch.Norm = transformer.LossAll, "" }, "loss"},
		{"unknown", func(q *protocol.Protocol) { q.Arch.SkipStart = "best" }, "unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := p
			c := *p.CSV
			q.CSV = &c
			tc.edit(&q)
			err := q.Validate()
			require.Error(t, err)
			require.ErrorContains(t, err, "arch.skip_start")
			require.ErrorContains(t, err, tc.want)
		})
	}
	// "val" on a track of one series is the shared fit, valid.
	q := p
	q.CSV = &track.CSVConfig{Path: "../track/testdata/tiny.csv", Target: "OT", T: 24, H: 6}
	q.Arch.SkipStart = protocol.SkipStartVal
	require.NoError(t, q.Validate())
}

// TestBlownUp: a cfg whose test mean is over report.BlowUpFactor times
// persistence's is named in the warnings; a working grid has none.
func TestBlownUp(t *testing.T) {
	p := testkit.TinyProtocol()
	p.Idea[0].LR = 50 // Adam steps of 50: finite, and far from any forecast
	o, err := Run(context.Background(), p, Options{})
	require.NoError(t, err)
	r := o.Report
	require.Nil(t, r.Diverged, "blown up, not diverged")
	pers := r.ReferenceForecasters.Persistence
	require.Greater(t, r.MechanismSignature.IdeaSweep[0].Result.Mean, report.BlowUpFactor*pers)
	w := strings.Join(r.Comparison.Warnings, "\n")
	require.Contains(t, w, "blown up: the idea arm's cfg 0 (lr 50)")
	require.NotContains(t, w, "the baseline arm's cfg", "the baseline's cfgs train")
	for _, c := range []struct {
		mean float64
		want bool
	}{{99 * pers, false}, {100 * pers, false}, {101 * pers, true}} {
		require.Equal(t, c.want, report.BlownUp(c.mean, pers))
	}
}

// TestTunedRun: a protocol with a tune block runs end to end: each arm
// trains its tune.cfgs cfgs (fox over its bias, the baseline over the
// rate alone), the report records the block with the spaces filled and
// verifies, and an edit of a drawn cfg in the report is named.
func TestTunedRun(t *testing.T) {
	p := testkit.TinyProtocol()
	p.Tune = &protocol.Tune{Cfgs: 3, Seed: 1}
	require.NoError(t, p.SetIdea("fox", false))
	p = p.Tuned()
	require.NoError(t, p.Validate())
	o, err := Run(context.Background(), p, Options{Workers: 2})
	require.NoError(t, err)
	r := o.Report
	tu := r.Setup.Protocol.Tune
	require.NotNil(t, tu)
	require.Equal(t, idea.Space{"bias": {Lo: 0, Hi: 4}}, tu.Spaces["idea"])
	require.Len(t, r.Baseline.Sweep, 3)
	require.Len(t, r.MechanismSignature.IdeaSweep, 3)
	for j, row := range r.MechanismSignature.IdeaSweep {
		require.Equal(t, r.Baseline.Sweep[j].Cfg.LR, row.Cfg.LR, "cfg %d: the arms share each rate", j)
	}
	sens := r.Comparison.Sensitivity
	require.NotNil(t, sens, "a tuned arm's effect at each setting drawn")
	require.Len(t, sens.Settings, 3)
	for j, e := range sens.Settings {
		require.Equal(t, r.MechanismSignature.IdeaSweep[j].Cfg, e.Cfg)
		require.Contains(t, []string{report.SideBetter, report.SideWorse, report.SideNoise}, e.Side)
		require.LessOrEqual(t, e.Lo, e.DeltaMean)
		require.GreaterOrEqual(t, e.Hi, e.DeltaMean)
	}
	require.Contains(t, sens.Reading, "verdict ("+r.Comparison.Verdict+")")
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches())
	fields := tamperedFields(t, r, func(r *report.Report) {
		r.Setup.Protocol.Idea[1].Params = idea.NewParams(map[string]float64{"bias": 9})
	})
	testkit.RequireNamed(t, fields, "setup.protocol")
	fields = tamperedFields(t, r, func(r *report.Report) { r.Comparison.Sensitivity.Settings[0].Side = "better and then some" })
	testkit.RequireNamed(t, fields, "comparison.sensitivity.settings[0].side")
}
