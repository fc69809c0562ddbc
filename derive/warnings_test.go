package derive

import (
	"strings"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/stats"
	"github.com/stretchr/testify/require"
)

func TestGridEdges(t *testing.T) {
	grid := []protocol.Cfg{{LR: 0.001, Epochs: 5}, {LR: 0.003, Epochs: 5}, {LR: 0.01, Epochs: 10}}
	for _, tc := range []struct {
		name string
		cs   []protocol.Cfg
		best int
		want []string // substrings, one warning each
	}{
		{"inside", grid[:2:2], 0, []string{"lr = 0.001, the smallest of its grid {0.001, 0.003}"}},
		// lr inside its range, epochs at its smallest.
		{"middle", grid, 1, []string{"epochs = 5, the smallest of its grid {5, 5, 10}"}},
		// lr and epochs both at their largest.
		{"top", grid, 2, []string{"lr = 0.01, the largest", "epochs = 10, the largest of its grid {5, 5, 10}"}},
		{"single", grid[:1], 0, nil}, // nothing varies
		// An idea's parameter is a grid field like any other.
		{"params", []protocol.Cfg{
			{LR: 0.003, Epochs: 5, Idea: "ema", Params: idea.NewParams(map[string]float64{"lambda": 0.5})},
			{LR: 0.003, Epochs: 5, Idea: "ema", Params: idea.NewParams(map[string]float64{"lambda": 0.9})},
		}, 1, []string{"params.lambda = 0.9, the largest of its grid {0.5, 0.9}"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := gridEdges("baseline", tc.cs, tc.best)
			require.Len(t, got, len(tc.want), "%q", got)
			for i, w := range tc.want {
				require.Contains(t, got[i], w)
				require.Contains(t, got[i], "the baseline arm's chosen cfg")
			}
		})
	}
}

// TestKeptWarnings: what the kept epochs of an arm's chosen cfg say, on
// hand-made curves.
func TestKeptWarnings(t *testing.T) {
	es := protocol.Cfg{LR: 0.001, Epochs: 20, Patience: 5}
	curve := func(vals ...float64) []float64 { return vals }
	flat := [][]float64{curve(1, 1, 1), curve(1, 1, 1), curve(1, 1, 1)}
	falling := protocol.Cfg{LR: 0.001, Epochs: 3, Patience: 2}
	down := [][]float64{curve(3, 2, 1), curve(3, 2.5, 2)}
	for _, tc := range []struct {
		name string
		ac   report.ArmCurves
		skip bool
		want string // substring; "" for no warning
	}{
		{"all_first", report.ArmCurves{Cfg: es, ValCurves: flat, BestEpochs: []int{1, 1, 1}}, false, "overfits the train split after one epoch"},
		{"all_first_skip", report.ArmCurves{Cfg: es, ValCurves: flat[:2], BestEpochs: []int{1, 1}}, true, "stay close to the skip path's least-squares start"},
		{"all_start", report.ArmCurves{Cfg: es, ValCurves: flat, BestEpochs: []int{0, 0, 0}}, false, "kept its starting model on every seed"},
		{"one_later", report.ArmCurves{Cfg: es, ValCurves: flat, BestEpochs: []int{1, 2, 1}}, false, ""},
		// A diverged seed (-1) does not count either way.
		{"diverged_seed", report.ArmCurves{Cfg: es, ValCurves: flat, BestEpochs: []int{1, -1, 1}}, false, "after one epoch"},
		// Without early stopping the last epoch is kept, whatever it is.
		{"no_patience", report.ArmCurves{Cfg: protocol.Cfg{LR: 0.001, Epochs: 1}, ValCurves: flat[:2], BestEpochs: []int{1, 1}}, false, ""},
		{"one_epoch", report.ArmCurves{Cfg: protocol.Cfg{LR: 0.001, Epochs: 1, Patience: 2}, ValCurves: flat[:2], BestEpochs: []int{1, 1}}, false, ""},
		// Every seed ran every epoch and was still falling at the end.
		{"still_improving", report.ArmCurves{Cfg: falling, ValCurves: down, BestEpochs: []int{3, 3}}, false, "kept its last of 3 epochs on every seed while the val metric was still falling"},
		{"one_flat_end", report.ArmCurves{Cfg: falling, ValCurves: [][]float64{curve(3, 2, 1), curve(3, 2, 2)}, BestEpochs: []int{3, 2}}, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := strings.Join(keptWarnings("idea", tc.ac, tc.skip), "\n")
			if tc.want == "" {
				require.Empty(t, got)
				return
			}
			require.Contains(t, got, "the idea arm's chosen cfg kept")
			require.Contains(t, got, tc.want)
		})
	}
}

// TestBudgetWarning: the winner of the expected test metric of the pick
// may change with the number of cfgs tried; the warning says so, with
// each k.
func TestBudgetWarning(t *testing.T) {
	// The idea's grid has one excellent cfg among bad ones: with one cfg
	// tried it usually loses, with all three it wins.
	b, err := stats.Budget([]float64{1.0, 1.1, 1.2}, []float64{1.0, 1.1, 1.2}, stats.LowerIsBetter)
	require.NoError(t, err)
	x, err := stats.Budget([]float64{0.8, 1.3, 1.3}, []float64{0.8, 1.3, 1.3}, stats.LowerIsBetter)
	require.NoError(t, err)
	require.True(t, winnerChanges(b, x, stats.LowerIsBetter))
	w := budgetWarning("wide", b, x, stats.LowerIsBetter)
	require.Contains(t, w, "k = 1: baseline")
	require.Contains(t, w, "k = 3: wide")
	require.False(t, winnerChanges(b, b[:2], stats.LowerIsBetter), "equal curves: neither leads anywhere")
	require.Empty(t, budgetWarning("same", b, b, stats.LowerIsBetter))
}

// TestNegligibleEffect: a significant difference smaller than the
// protocol's min_effect is flagged as negligible; one larger is not.
func TestNegligibleEffect(t *testing.T) {
	b := []float64{1, 1.1, 0.9, 1.05, 0.95, 1.02, 0.98, 1}
	x := make([]float64, len(b))
	for i := range b {
		x[i] = b[i] - 0.001 - 0.0001*float64(i)
	}
	p := testkit.TinyProtocol()
	one := func(v []float64) stats.Arm { return stats.Arm{Val: [][]float64{v}, Test: [][]float64{v}} }
	c, err := comparison(p, "idea", one(b), 0, one(x), 0, p.Idea[:1], stats.LowerIsBetter, -0.01, true)
	require.NoError(t, err)
	require.Equal(t, stats.VerdictWin, c.Verdict)
	require.Equal(t, report.TestSelection, c.Test)
	require.Contains(t, strings.Join(c.Warnings, "\n"), "negligible effect: a significant win, but")
	c, err = comparison(p, "idea", one(b), 0, one(x), 0, p.Idea[:1], stats.LowerIsBetter, -0.001, true)
	require.NoError(t, err)
	require.NotContains(t, strings.Join(c.Warnings, "\n"), "negligible")
}
