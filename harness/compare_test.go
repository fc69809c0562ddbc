package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/ideabench/ideabench/compare"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/stats"
	"github.com/stretchr/testify/require"
)

// TestCompareMatchesRun: a run's per-seed metrics handed to Compare, as
// results made elsewhere, give the run's comparison block: the same
// selection, tests, intervals, power and verdicts (the run adds warnings
// about its track after the comparison's own).
func TestCompareMatchesRun(t *testing.T) {
	p := testkit.TinyProtocol()
	o, err := Run(context.Background(), p, Options{Workers: 2})
	require.NoError(t, err)
	r := o.Report
	var rows []compare.Row
	for j, row := range r.Baseline.Sweep {
		for s := range row.PerSeed {
			v := row.Val.PerSeed[s]
			rows = append(rows, compare.Row{Arm: "baseline", Cfg: fmt.Sprintf("lr %g", p.Baseline[j].LR), Seed: fmt.Sprint(p.Seeds[s]), Val: &v, Test: row.PerSeed[s]})
		}
	}
	for j, row := range r.MechanismSignature.IdeaSweep {
		for s := range row.Result.PerSeed {
			v := row.Val.PerSeed[s]
			rows = append(rows, compare.Row{Arm: "gate", Cfg: fmt.Sprintf("lr %g", p.Idea[j].LR), Seed: fmt.Sprint(p.Seeds[s]), Val: &v, Test: row.Result.PerSeed[s]})
		}
	}
	c, err := compare.Compare(rows, compare.Options{Source: "run", Direction: stats.LowerIsBetter, Alpha: p.Alpha, MinEffectPct: p.MinEffectPct})
	require.NoError(t, err)
	require.Empty(t, compare.Verify(c).Mismatches())

	got, want := c.Comparison, r.Comparison
	require.Equal(t, want.Warnings[:len(got.Warnings)], got.Warnings)
	got.Warnings, want.Warnings = nil, nil
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	require.JSONEq(t, string(wj), string(gj))
	require.Equal(t, r.Baseline.Full, c.Arms[0].Result)
	require.Equal(t, r.Idea, c.Arms[1].Result)
}
