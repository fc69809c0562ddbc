package derive

import (
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/track"

	"strings"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"
	"github.com/stretchr/testify/require"
)

// deriveWith derives TinyProtocol-shaped p (8 seeds) from results that
// test gives each trial: the baseline's cfg j on seed s scores 0.5 +
// 0.01·j + 0.001·s, and the idea's what idea makes of that.
func deriveWith(t *testing.T, p protocol.Protocol, idea func(tr protocol.Trial, base float64) (test float64, diverged bool)) Inputs {
	t.Helper()
	lc := 0.62
	f := &track.Forecasters{Persistence: 1.4, LinearAR: 0.6, LinearCentred: &lc, Val: &track.ReferenceVal{Persistence: 1.3, LinearAR: 0.55, LinearCentred: 0.57}}
	trials := p.Trials()
	res := make([]trial.Result, len(trials))
	for i, tr := range trials {
		base := 0.5 + 0.01*float64(tr.Cfg) + 0.001*float64(tr.Seed)
		r := trial.Result{EpochLoss: []float64{1, 0.9}, ValCurve: []float64{1, base}, StartVal: 9, StartTest: 9, Val: base, Test: base}
		if tr.Arm != "baseline" {
			r.Test, r.Diverged = idea(tr, base)
			r.Val = r.Test
			r.ValCurve[1] = r.Val
		}
		if r.Diverged {
			r.Val, r.Test = 1e300, 1e300
		}
		res[i] = r
	}
	return Inputs{Facts: report.Facts{Protocol: p, TrainingVersion: "pinned", TrainSizes: []protocol.TrainSize{{Context: 16, H: 4, Channels: 1, Windows: 64}}, References: f}, Trials: trials, Results: res}
}

func eightSeeds() protocol.Protocol {
	p := testkit.TinyProtocol()
	p.Seeds = []uint64{0, 1, 2, 3, 4, 5, 6, 7}
	return p
}

// TestBudget: the budget block counts, by hand, what TinyProtocol's
// arms may spend: cfg 0 trains 2 epochs and cfg 1 3, each of the 64
// windows in batches of 16 (4 steps an epoch), on 8 seeds:
// (2+3)·4·8 = 160 steps over (2+3)·64·8 = 2560 windows.
func TestBudget(t *testing.T) {
	r := derivedByHand(t)
	b := r.Budget
	require.NotNil(t, b)
	require.True(t, b.Equal)
	require.Empty(t, b.Differences)
	require.Len(t, b.Arms, 2)
	for i, name := range []string{"baseline", "idea"} {
		a := b.Arms[i]
		require.Equal(t, name, a.Arm)
		require.Equal(t, 2, a.Cfgs)
		require.Equal(t, 16, a.Trials)
		require.EqualValues(t, 160, a.Steps)
		require.EqualValues(t, 2560, a.Examples)
		mc := trial.ModelConfig(r.Setup.Protocol, r.Setup.Protocol.Baseline[0], testkit.MustSequence(t, r.Setup.Protocol))
		require.Equal(t, 160*mc.StepFLOPs(16), a.FLOPs, "matrix-product FLOPs: the gate adds none")
	}
	require.Empty(t, r.Comparison.Marks)
	require.Equal(t, r.Comparison.Verdict, r.Comparison.VerdictLine())
}

// TestUnequalBudgetMarked: an idea arm that trains twice the epochs of
// the baseline runs only with unequal_budget, and then every verdict
// carries the mark, the budget block says how they differ, and the
// report verifies.
func TestUnequalBudgetMarked(t *testing.T) {
	p := eightSeeds()
	p.Idea[1].Epochs = 6
	require.ErrorContains(t, p.Validate(), "idea[1].epochs = 6: the baseline's cfg 1 has 3")
	p.UnequalBudget = true
	r, err := Derive(deriveWith(t, p, func(_ protocol.Trial, base float64) (float64, bool) { return base * 0.9, false }))
	require.NoError(t, err)
	c := r.Comparison
	require.False(t, r.Budget.Equal)
	require.Equal(t, []string{"idea[1].epochs = 6: the baseline's cfg 1 has 3"}, r.Budget.Differences)
	require.EqualValues(t, (2+3)*4*8, r.Budget.Arms[0].Steps)
	require.EqualValues(t, (2+6)*4*8, r.Budget.Arms[1].Steps)
	require.Equal(t, []string{"unequal budget: idea[1].epochs = 6: the baseline's cfg 1 has 3"}, c.Marks)
	require.Equal(t, c.Verdict+" [unequal budget: idea[1].epochs = 6: the baseline's cfg 1 has 3]", c.VerdictLine())
	require.Equal(t, c.Verdict+" [UNEQUAL BUDGET]", c.VerdictTag())
	require.Contains(t, strings.Join(c.Warnings, "\n"), "unequal budget (setup.protocol.unequal_budget): the idea arm")
	require.Empty(t, Verify(r, VerifyOptions{}).Mismatches())
}

// TestDifferentRecipeMarked: an idea arm trained without the baseline's
// weight decay on its cfg 1 runs only with different_recipe, and then
// every verdict carries the mark, the budget block lists the difference
// beside an equal budget, and the report verifies.
func TestDifferentRecipeMarked(t *testing.T) {
	p := eightSeeds()
	p.Idea[1].WeightDecay = 0
	want := "idea[1].weight_decay = 0: the baseline's cfg 1 has 0.1"
	require.ErrorContains(t, p.Validate(), want)
	p.DifferentRecipe = true
	r, err := Derive(deriveWith(t, p, func(_ protocol.Trial, base float64) (float64, bool) { return base * 0.9, false }))
	require.NoError(t, err)
	c := r.Comparison
	require.True(t, r.Budget.Equal, "the budget is the same: only how it is spent differs")
	require.Equal(t, []string{want}, r.Budget.RecipeDifferences)
	require.Equal(t, []string{"different recipe: " + want}, c.Marks)
	require.Equal(t, c.Verdict+" [DIFFERENT RECIPE]", c.VerdictTag())
	require.Contains(t, strings.Join(c.Warnings, "\n"), "different recipe (setup.protocol.different_recipe): the idea arm")
	require.Empty(t, Verify(r, VerifyOptions{}).Mismatches())
}

// TestInert: an idea arm whose chosen cfg scores within InertRelTol of
// the baseline's same cfg on every seed is marked inert, whatever its
// other cfgs do; one that moves a single trial of its chosen cfg by
// more, or diverges where the baseline does not, is not. The idea's cfg 0
// is its choice here (the lower val).
func TestInert(t *testing.T) {
	for _, tc := range []struct {
		name  string
		idea  func(tr protocol.Trial, base float64) (float64, bool)
		inert bool
	}{
		{"identical", func(_ protocol.Trial, base float64) (float64, bool) { return base, false }, true},
		// The sunspot track's gate: 2e-5 of the metric.
		{"within_tol", func(tr protocol.Trial, base float64) (float64, bool) {
			return base * (1 + 2e-5*float64(int(tr.Seed%3)-1)), false
		}, true},
		{"one_trial_acts", func(tr protocol.Trial, base float64) (float64, bool) {
			if tr.Seed == 3 && tr.Cfg == 0 {
				return base * (1 - 2e-3), false
			}
			return base, false
		}, false},
		// At a cfg it did not choose the idea may move the metric: a high
		// rate amplifies a negligible change.
		{"other_cfg_acts", func(tr protocol.Trial, base float64) (float64, bool) {
			if tr.Cfg == 1 {
				return base * (1 + 1e-2), false
			}
			return base, false
		}, true},
		// Seed 2 diverges in both idea cfgs, so the chosen one has a
		// diverged seed where the baseline's has none.
		{"diverged_alone", func(tr protocol.Trial, base float64) (float64, bool) { return base, tr.Seed == 2 }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Derive(deriveWith(t, eightSeeds(), tc.idea))
			require.NoError(t, err)
			c := r.Comparison
			require.Equal(t, tc.inert, c.IdeaInert)
			if tc.inert {
				require.Len(t, c.Marks, 1)
				require.Contains(t, c.VerdictLine(), "[idea inert: its chosen cfg scores within 0.1% of the baseline's same cfg on every seed]")
				require.Equal(t, c.Verdict+" [IDEA INERT]", c.VerdictTag())
				require.Contains(t, strings.Join(c.Warnings, "\n"), "idea inert: on every seed the idea arm's chosen cfg (cfg 0, lr 0.003)")
			} else {
				require.Empty(t, c.Marks)
			}
			require.Empty(t, Verify(r, VerifyOptions{}).Mismatches())
		})
	}
}

// TestSensitivity: a tuned arm's effect at each setting, by hand on
// results made to order: the idea's cfg 0 better than the baseline's on
// every seed by 0.01, cfg 1 worse by 0.02, cfg 2 the same plus noise;
// the reading names both sides. An arm at fixed settings (an empty
// space) or a protocol without a tune block has none.
func TestSensitivity(t *testing.T) {
	b := stats.Arm{Test: [][]float64{{1, 1, 1, 1}, {1, 1, 1, 1}, {1, 1, 1, 1}}}
	x := stats.Arm{Test: [][]float64{{0.99, 0.99, 0.99, 0.99}, {1.02, 1.021, 1.019, 1.02}, {1.001, 0.999, 1.002, 0.998}}}
	grid := []protocol.Cfg{{LR: 0.001, Idea: "fox", Params: idea.NewParams(map[string]float64{"bias": 0.5})},
		{LR: 0.003, Idea: "fox", Params: idea.NewParams(map[string]float64{"bias": 3.5})},
		{LR: 0.01, Idea: "fox", Params: idea.NewParams(map[string]float64{"bias": 2})}}
	tu := &protocol.Tune{Cfgs: 3, Spaces: map[string]idea.Space{"idea": {"bias": {Lo: 0, Hi: 4}}}}
	s := sensitivity(tu, "idea", grid, b, x, 0, stats.LowerIsBetter, 0.05, stats.VerdictWin)
	require.NotNil(t, s)
	require.Equal(t, []string{report.SideBetter, report.SideWorse, report.SideNoise}, []string{s.Settings[0].Side, s.Settings[1].Side, s.Settings[2].Side})
	require.InDelta(t, -0.01, s.Settings[0].DeltaMean, 1e-12)
	require.Equal(t, 4, s.Settings[0].Wins)
	require.Equal(t, 0, s.Settings[1].Wins)
	require.True(t, s.Settings[0].Chosen)
	require.Equal(t, "the sign depends on the setting: better at 1 of 3 (bias 0.5 at lr 0.001), worse at 1 of 3 (bias 3.5 at lr 0.003); the verdict (significant win) is the chosen setting's, not the idea's at every start", s.Reading)

	x.Test[1] = []float64{1.001, 0.999, 1.002, 0.998}
	s = sensitivity(tu, "idea", grid, b, x, 0, stats.LowerIsBetter, 0.05, stats.VerdictWin)
	require.Equal(t, "better at 1 of 3 (bias 0.5 at lr 0.001), within seed noise elsewhere, worse at none: the verdict (significant win) holds across the settings drawn", s.Reading)
	s = sensitivity(tu, "idea", grid, b, x, 0, stats.LowerIsBetter, 0.05, stats.VerdictLoss)
	require.Equal(t, "the verdict (significant loss) flips with the setting: better at 1 of 3 (bias 0.5 at lr 0.001)", s.Reading)
	s = sensitivity(tu, "idea", grid, b, x, 2, stats.LowerIsBetter, 0.05, stats.VerdictNoWin)
	require.Equal(t, "better at 1 of 3 (bias 0.5 at lr 0.001), within seed noise elsewhere; the verdict (no significant win) counts the search over them, which these intervals, one setting at a time, do not", s.Reading)

	require.Nil(t, sensitivity(&protocol.Tune{Cfgs: 3, Spaces: map[string]idea.Space{"idea": {}}}, "idea", grid, b, x, 0, stats.LowerIsBetter, 0.05, stats.VerdictWin), "fixed settings")
	require.Nil(t, sensitivity(nil, "idea", grid, b, x, 0, stats.LowerIsBetter, 0.05, stats.VerdictWin), "no tuner")
}
