package compare

import (
	"fmt"
	"slices"
	"testing"

	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
	"github.com/stretchr/testify/require"
)

func rowsOf(arms map[string][]float64, order ...string) []Row {
	var rows []Row
	for _, a := range order {
		for s, x := range arms[a] {
			rows = append(rows, Row{Arm: a, Seed: fmt.Sprint(s), Test: x, Line: len(rows) + 2})
		}
	}
	return rows
}

// TestCompareByHand: two arms, one cfg each, four seeds on which the idea
// is better by 0.1, 0.2, 0.3 and 0.4: delta -0.25, four wins, and the exact
// sign-flip p-value 2/16 (only the all-plus and all-minus relabellings
// reach |mean| 0.25).
func TestCompareByHand(t *testing.T) {
	rows := rowsOf(map[string][]float64{"base": {1, 2, 3, 4}, "idea": {0.9, 1.8, 2.7, 3.6}}, "base", "idea")
	c, err := Compare(rows, Options{Source: "hand.csv", Direction: stats.LowerIsBetter})
	require.NoError(t, err)
	require.Equal(t, []string{"0", "1", "2", "3"}, c.Seeds)
	cmp := c.Comparison
	require.InDelta(t, -0.25, cmp.DeltaMean, 1e-15)
	require.Equal(t, 4, cmp.IdeaWins)
	require.Equal(t, 2.0/16, cmp.PValue)
	require.Equal(t, "exact", cmp.PValueMethod)
	require.Equal(t, stats.VerdictNoWin, cmp.Verdict, "2/16 is above 0.05")
	require.Empty(t, Verify(c).Mismatches())

	bad := *c
	bad.Comparison.PValue = 0.01
	require.Equal(t, "comparison.p_value", Verify(&bad).Mismatches()[0].Field)
	edited := *c
	edited.Arms = append([]report.ComparedArm(nil), c.Arms...)
	edited.Arms[1].Cfgs = append(edited.Arms[1].Cfgs[:0:0], c.Arms[1].Cfgs...)
	edited.Arms[1].Cfgs[0].Test.PerSeed = []float64{0.9, 1.8, 2.7, 3.5}
	var fields []string
	for _, m := range Verify(&edited).Mismatches() {
		fields = append(fields, m.Field)
	}
	require.Contains(t, fields, "digests.arms", "an edited input is named by its digest")
}

// TestCompareErrors: each malformed input names the row and the fix.
func TestCompareErrors(t *testing.T) {
	one := 0.5
	base := rowsOf(map[string][]float64{"b": {1, 2, 3}, "x": {1, 2, 3}}, "b", "x")
	for _, tc := range []struct {
		name string
		rows []Row
		opt  Options
		want string
	}{
		{"missing_seed", base[:5], Options{}, "arm x cfg \"\" has no row for seed 2"},
		{"repeat", slices.Concat(base, base[:1]), Options{}, "line 2: arm b cfg \"\" seed 0 repeats"},
		{"val_some", slices.Concat([]Row{{Arm: "b", Seed: "9", Val: &one, Test: 1}}, base), Options{}, "a val metric on some rows only"},
		{"cfgs_no_val", slices.Concat(base, []Row{{Arm: "x", Cfg: "other", Seed: "0", Test: 1}}), Options{}, "arm x has 2 cfgs but the file has no val metric"},
		{"one_arm", base[:3], Options{}, "has one arm (b)"},
		{"baseline", base, Options{Baseline: "z"}, "--baseline z: no such arm"},
		{"alpha", base, Options{Alpha: 2}, "alpha = 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opt.Source = "m.csv"
			_, err := Compare(tc.rows, tc.opt)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestComparePairsByName: an arm whose cfgs are named as the baseline's
// is paired cfg by cfg by name, whatever the file's order; cfgs named
// otherwise are paired by position, with a warning.
func TestComparePairsByName(t *testing.T) {
	val := func(x float64) *float64 { return &x }
	var rows []Row
	add := func(arm, cfg string, v []float64) {
		for s, x := range v {
			rows = append(rows, Row{Arm: arm, Cfg: cfg, Seed: fmt.Sprint(s), Val: val(x), Test: x})
		}
	}
	add("base", "lr=0.001", []float64{1, 2, 3})
	add("base", "lr=0.1", []float64{5, 6, 7})
	add("idea", "lr=0.1", []float64{5.5, 6.5, 7.5})
	add("idea", "lr=0.001", []float64{0.9, 1.9, 2.9})
	c, err := Compare(rows, Options{Source: "m.csv", Direction: stats.LowerIsBetter})
	require.NoError(t, err)
	require.Equal(t, "lr=0.001", c.Arms[1].Cfgs[0].Name)
	require.Equal(t, 0, c.Arms[1].BestCfg)
	require.NotContains(t, fmt.Sprint(c.Comparison.Warnings), "paired by position")
	require.Empty(t, Verify(c).Mismatches())

	for i := range rows[6:] {
		rows[6+i].Cfg = "other" + rows[6+i].Cfg
	}
	c, err = Compare(rows, Options{Source: "m.csv", Direction: stats.LowerIsBetter})
	require.NoError(t, err)
	require.Contains(t, fmt.Sprint(c.Comparison.Warnings), "cfgs paired by position")
}
