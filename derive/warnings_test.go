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
			got := gridEdges("baseline", tc.cs, tc.best, nil)
			require.Len(t, got, len(tc.want), "%q", got)
			for i, w := range tc.want {
				require.Contains(t, got[i], w)
				require.Contains(t, got[i], "the baseline arm's chosen cfg")
			}
		})
	}
}

// TestSearchEdges: a parameter the tuner draws is no grid: its warning
// names the draws and their range, and its hint is a range past the
// choice that the parameter accepts (pasted back through
// idea.ParseSpace), narrower where the full width would leave the
// parameter's values.
func TestSearchEdges(t *testing.T) {
	arm := func(name, param string, vs ...float64) []protocol.Cfg {
		var cs []protocol.Cfg
		for _, v := range vs {
			cs = append(cs, protocol.Cfg{LR: 0.003, Epochs: 5, Idea: name, Params: idea.NewParams(map[string]float64{param: v})})
		}
		return cs
	}
	for _, tc := range []struct {
		name  string
		cs    []protocol.Cfg
		best  int
		space idea.Space
		want  []string // substrings of the one warning
		hint  string   // the --idea flag it gives; "" for none
	}{
		{"fox up", arm("fox", "bias", 0, 1.2, 3.85, 2.5), 2, idea.Space{"bias": {Lo: 0, Hi: 4}},
			[]string{"search edge: the idea arm's chosen cfg has params.bias = 3.85, the largest of the values drawn {0, 1.2, 3.85, 2.5} from its range 0..4", "--tune 8"},
			"fox:bias=3.85..7.85"},
		{"fox down", arm("fox", "bias", 0.5, 1.2, 3.85), 0, idea.Space{"bias": {Lo: 0, Hi: 4}},
			[]string{"params.bias = 0.5, the smallest"}, "fox:bias=-3.5..0.5"},
		// rho < 1: the full width (to 1.46) and its halves down to 1/16
		// leave the gate's values; 1/32 of the span is taken.
		{"rho near 1", []protocol.Cfg{{LR: 0.003, Rho: 0.6, Beta: 0.5}, {LR: 0.003, Rho: 0.97, Beta: 0.5}, {LR: 0.003, Rho: 0.8, Beta: 0.5}}, 1,
			idea.Space{"rho": {Lo: 0.5, Hi: 0.99}}, []string{"has rho = 0.97, the largest"}, "gate:rho=0.97..0.985"},
		{"log down", arm("layerscale", "init", 1e-6, 0.01), 0, idea.Space{"init": {Lo: 1e-6, Hi: 0.1, Scale: idea.ScaleLog}},
			[]string{"params.init = 1e-06, the smallest", "range 1e-06..0.1/log"}, "layerscale:init=1e-11..1e-06/log"},
		{"int up", arm("conv", "width", 2, 8, 5), 1, idea.Space{"width": {Lo: 2, Hi: 8, Scale: idea.ScaleInt}},
			[]string{"params.width = 8, the largest"}, "conv:width=8..14/int"},
		// conv's width is at least 2: no range below 2 exists.
		{"int at bound", arm("conv", "width", 2, 8, 5), 0, idea.Space{"width": {Lo: 2, Hi: 8, Scale: idea.ScaleInt}},
			[]string{"params.width = 2, the smallest"}, ""},
		{"values", arm("fox", "bias", 0, 2), 1, idea.Space{"bias": {Values: []float64{0, 2}}},
			[]string{"from its range 0|2"}, ""},
		// Not drawn: a grid like any other.
		{"grid", arm("fox", "bias", 0, 2), 1, idea.Space{},
			[]string{"grid edge: the idea arm's chosen cfg has params.bias = 2"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tune := &protocol.Tune{Cfgs: 4, Spaces: map[string]idea.Space{"idea": tc.space}}
			got := gridEdges("idea", tc.cs, tc.best, tune)
			require.Len(t, got, 1, "%q", got)
			for _, w := range tc.want {
				require.Contains(t, got[0], w)
			}
			_, flag, has := strings.Cut(got[0], "(--idea ")
			if tc.hint == "" {
				require.False(t, has, "no range past the choice: %s", got[0])
				return
			}
			require.True(t, has, got[0])
			flag = strings.TrimSuffix(flag, ")")
			require.Equal(t, tc.hint, flag)
			_, space, err := idea.ParseSpace(flag)
			require.NoError(t, err, "the hint pasted")
			require.Len(t, space, 1)
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
