package derive

import (
	"testing"

	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// TestSolves on hand-made accuracies. References: chance 0.1, majority
// 0.2, the oracle 1, so the floor is 0.2, the target 0.2 + 0.75·0.8 =
// 0.8 and a bimodal gap at least 0.25·0.8 = 0.2.
func TestSolves(t *testing.T) {
	refs := []track.TokenReference{{Name: "chance", Accuracy: 0.1}, {Name: "majority", Accuracy: 0.2}, {Name: "oracle", Accuracy: 1}}
	// Solved on seeds 0, 1, 4, 6; the rest on a plateau near 0.3.
	base := []float64{0.95, 0.9, 0.3, 0.28, 0.85, 0.3, 0.99, 0.31}
	for _, tc := range []struct {
		name           string
		idea           []float64
		solved         int
		bimodal        bool
		gap            float64
		only, onlyBase int
		p              float64
		marked         bool
	}{
		// Solves seeds 2, 5 and 7 where the baseline does not, and none
		// the other way: McNemar 2·(1/2)³ = 0.25.
		{"splits", []float64{0.97, 0.95, 0.9, 0.3, 0.9, 0.88, 0.99, 0.95}, 7, true, 0.88 - 0.3, 3, 0, 0.25, true},
		// Every seed solved: not bimodal, but the baseline's seeds are,
		// so the arm is marked.
		{"all solved", []float64{0.97, 0.95, 0.9, 0.81, 0.9, 0.88, 0.99, 0.95}, 8, false, 0, 4, 0, 0.125, true},
		// Scattered about the target (0.79 to 0.82): solved and not,
		// 0.01 apart, no two clusters.
		{"scattered", []float64{0.79, 0.81, 0.79, 0.82, 0.8, 0.79, 0.81, 0.8}, 5, false, 0.8 - 0.79, 2, 1, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &report.Secondary{Baseline: report.Summary{PerSeed: base, N: 8}, Arms: []report.ArmSecondary{{Name: "fox", Result: report.Summary{PerSeed: tc.idea, N: 8}}}}
			var c report.Comparison
			s := solves(a, refs, []*report.Comparison{&c})
			require.NotNil(t, s)
			require.InDelta(t, 0.2, s.Floor, 1e-12)
			require.InDelta(t, 0.8, s.Target, 1e-12)
			require.Equal(t, report.ArmSolves{Solved: 4, N: 8, Bimodal: true, Gap: 0.85 - 0.31}, s.Baseline)
			got := a.Arms[0].Solves
			require.Equal(t, tc.solved, got.Solved)
			require.Equal(t, tc.bimodal, got.Bimodal)
			require.InDelta(t, tc.gap, got.Gap, 1e-12)
			require.Equal(t, tc.only, got.OnlyIdea)
			require.Equal(t, tc.onlyBase, got.OnlyBaseline)
			require.InDelta(t, tc.p, got.PValue, 1e-12)
			if !tc.marked {
				require.Empty(t, c.Marks)
				return
			}
			require.Len(t, c.Marks, 1)
			require.Contains(t, c.Marks[0], "bimodal outcomes")
			require.Len(t, c.Warnings, 1)
			require.Contains(t, c.Warnings[0], "the baseline 4 of 8")
		})
	}
	t.Run("neither bimodal", func(t *testing.T) {
		solid := []float64{0.95, 0.9, 0.92, 0.97, 0.85, 0.93, 0.99, 0.9}
		a := &report.Secondary{Baseline: report.Summary{PerSeed: solid}, Arms: []report.ArmSecondary{{Name: "fox", Result: report.Summary{PerSeed: base}}, {Name: "alibi", Result: report.Summary{PerSeed: solid}}}}
		c := make([]report.Comparison, 2)
		solves(a, refs, []*report.Comparison{&c[0], &c[1]})
		require.Len(t, c[0].Marks, 1, "fox's seeds split")
		require.Contains(t, c[0].Warnings[0], "the fox arm's seeds end in two clusters")
		require.Empty(t, c[1].Marks, "alibi and the baseline solve every seed")
		require.Equal(t, 8, a.Arms[1].Solves.Solved)
	})
	t.Run("no ceiling", func(t *testing.T) {
		a := &report.Secondary{Baseline: report.Summary{PerSeed: base}}
		require.Nil(t, solves(a, refs[:2], nil))
	})
}
