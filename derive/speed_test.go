package derive

import (
	"testing"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/trial"
	"github.com/stretchr/testify/require"
)

// TestTimeToTarget on hand-made curves: checkpoints every 10 steps, a
// budget of 40, val references whose best is 0.2 and an oracle at 1, so
// the target is 0.2 + 0.75·0.8 = 0.8.
func TestTimeToTarget(t *testing.T) {
	val := []track.TokenReference{{Name: "chance", Accuracy: 0.1}, {Name: "bigram", Accuracy: 0.2}}
	test := []track.TokenReference{{Name: "majority", Accuracy: 0.3}, {Name: "oracle", Accuracy: 1}}
	p := protocol.Protocol{Seeds: []uint64{0, 1, 2, 3}, Alpha: 0.05}
	curves := map[string][][]float64{
		// Seed 1 never gets there (censored at 40); seed 3 at the last
		// checkpoint, the budget itself.
		"baseline": {{0.1, 0.5, 0.85, 0.9}, {0.1, 0.2, 0.3, 0.4}, {0.9, 0.9, 0.9, 0.9}, {0.1, 0.1, 0.1, 0.81}},
		"idea":     {{0.85, 0.9, 0.9, 0.9}, {0.1, 0.9, 0.9, 0.9}, {0.95, 0.9, 0.9, 0.9}, {0.1, 0.1, 0.9, 0.9}},
	}
	build := func(every, budget map[string]int) ([]protocol.Trial, []trial.Result) {
		var ts []protocol.Trial
		var rs []trial.Result
		for _, arm := range []string{"baseline", "idea"} {
			for s, c := range curves[arm] {
				ts = append(ts, protocol.Trial{Arm: arm, Cfg: 0, Seed: uint64(s)})
				rs = append(rs, trial.Result{ValAccCurve: c, ValEvery: every[arm], Steps: budget[arm]})
			}
		}
		return ts, rs
	}
	picks := []chosen{{"baseline", "baseline", 0}, {"idea", "fox", 0}}
	same := map[string]int{"baseline": 10, "idea": 10}
	forty := map[string]int{"baseline": 40, "idea": 40}

	t.Run("paired", func(t *testing.T) {
		ts, rs := build(same, forty)
		var c report.Comparison
		c.Verdict = "significant win"
		tt, ok, err := timeToTarget(p, ts, rs, val, test, picks, []*report.Comparison{&c})
		require.NoError(t, err)
		require.True(t, ok)
		require.InDelta(t, 0.8, tt.Target, 1e-12)
		require.Equal(t, []int{30, 40, 10, 40}, tt.Baseline.Steps)
		require.Equal(t, []bool{true, false, true, true}, tt.Baseline.Reached)
		require.InDelta(t, 30, tt.Baseline.RestrictedMean, 1e-12)
		x := tt.Arms[0]
		require.Equal(t, []int{10, 20, 10, 30}, x.Steps)
		require.InDelta(t, 17.5, x.RestrictedMean, 1e-12)
		require.InDelta(t, -12.5, x.DeltaMean, 1e-12)
		// Differences -20, -20, 0, -10: of the 16 sign vectors, the 4
		// with the three nonzero ones alike reach |Σ| = 50: p = 1/4.
		require.InDelta(t, 0.25, x.PValue, 1e-12)
		require.Equal(t, report.TimeNoFaster, x.Reading)
		require.NotNil(t, x.Intervals)
		require.Equal(t, []string{"learns no faster and ends better: steps to val accuracy 0.8, 18 against the baseline's 30 of 40, p = 0.25; 4 of 4 seeds get there, the baseline's 3"}, c.Marks)
	})
	t.Run("faster", func(t *testing.T) {
		// Eight seeds, the idea 10 steps sooner on each: p = 2/256.
		q := p
		q.Seeds = []uint64{0, 1, 2, 3, 4, 5, 6, 7}
		var ts []protocol.Trial
		var rs []trial.Result
		for _, arm := range []string{"baseline", "idea"} {
			for s := range 8 {
				c := []float64{0.1, 0.1, 0.9, 0.9}
				if arm == "idea" {
					c = []float64{0.1, 0.9, 0.9, 0.9}
				}
				ts = append(ts, protocol.Trial{Arm: arm, Cfg: 0, Seed: uint64(s)})
				rs = append(rs, trial.Result{ValAccCurve: c, ValEvery: 10, Steps: 40})
			}
		}
		var c report.Comparison
		tt, _, err := timeToTarget(q, ts, rs, val, test, picks, []*report.Comparison{&c})
		require.NoError(t, err)
		require.InDelta(t, 2.0/256, tt.Arms[0].PValue, 1e-12)
		require.Equal(t, report.TimeFaster, tt.Arms[0].Reading)
		require.Contains(t, c.Marks[0], "learns faster and ends no better")
	})
	t.Run("budgets differ", func(t *testing.T) {
		ts, rs := build(same, map[string]int{"baseline": 40, "idea": 80})
		tt, _, err := timeToTarget(p, ts, rs, val, test, picks, nil)
		require.NoError(t, err)
		require.Equal(t, report.TimeBudgetsDif, tt.Arms[0].Reading)
	})
	t.Run("neither", func(t *testing.T) {
		ts, rs := build(same, forty)
		for i := range rs {
			rs[i].ValAccCurve = []float64{0.1, 0.2}
		}
		tt, _, err := timeToTarget(p, ts, rs, val, test, picks, nil)
		require.NoError(t, err)
		require.Equal(t, report.TimeNeither, tt.Arms[0].Reading)
		require.Equal(t, []int{40, 40, 40, 40}, tt.Baseline.Steps)
	})
	t.Run("old records", func(t *testing.T) {
		ts, rs := build(same, forty)
		rs[5].ValEvery, rs[5].Steps = 0, 0
		tt, ok, err := timeToTarget(p, ts, rs, val, test, picks, nil)
		require.NoError(t, err)
		require.False(t, ok, "a trial without a curve: not measured")
		require.Nil(t, tt)
	})
	t.Run("no ceiling", func(t *testing.T) {
		ts, rs := build(same, forty)
		tt, ok, err := timeToTarget(p, ts, rs, val, val, picks, nil)
		require.NoError(t, err)
		require.True(t, ok)
		require.Nil(t, tt)
	})
}
