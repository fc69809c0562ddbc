package protocol

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestExtend works the rule by hand on grids of three rates.
func TestExtend(t *testing.T) {
	g := &GridExtension{MaxRounds: 3, MinLR: 1e-4, MaxLR: 0.5}
	base := func() Protocol {
		p := CIProfileFor("sequence")
		p.ExtendGrid = g
		return p // lr ∈ {0.0015, 0.005, 0.015} in both arms
	}
	lrs := func(grid []Cfg) []float64 {
		var out []float64
		for _, c := range grid {
			out = append(out, c.LR)
		}
		return out
	}
	for _, tc := range []struct {
		name          string
		p             func() Protocol
		round         int
		chosen        []Pick
		more          bool
		stop          string
		baseline, idx []float64 // the grids after the round
		edges         []string
	}{
		{name: "interior", p: base, chosen: []Pick{{Cfg: 1}, {Cfg: 1}}, stop: StopInterior,
			baseline: []float64{0.0015, 0.005, 0.015}, idx: []float64{0.0015, 0.005, 0.015}, edges: []string{"", ""}},
		// 0.015·0.015/0.005 = 0.045: both arms grow above, though only the
		// baseline chose the largest rate.
		{name: "largest", p: base, chosen: []Pick{{Cfg: 2}, {Cfg: 1}}, more: true,
			baseline: []float64{0.0015, 0.005, 0.015, 0.045}, idx: []float64{0.0015, 0.005, 0.015, 0.045}, edges: []string{"largest", ""}},
		// 0.0015·0.0015/0.005 = 0.00045.
		{name: "smallest", p: base, chosen: []Pick{{Cfg: 1}, {Cfg: 0}}, more: true,
			baseline: []float64{0.0015, 0.005, 0.015, 0.00045}, idx: []float64{0.0015, 0.005, 0.015, 0.00045}, edges: []string{"", "smallest"}},
		// Both ways at once: below first, then above.
		{name: "both", p: base, chosen: []Pick{{Cfg: 0}, {Cfg: 2}}, more: true,
			baseline: []float64{0.0015, 0.005, 0.015, 0.00045, 0.045}, idx: []float64{0.0015, 0.005, 0.015, 0.00045, 0.045}, edges: []string{"smallest", "largest"}},
		// A tie with a cfg at another rate does not point past the edge.
		{name: "tied", p: base, chosen: []Pick{{Cfg: 2, Tied: true}, {Cfg: 1}}, stop: StopInterior,
			baseline: []float64{0.0015, 0.005, 0.015}, idx: []float64{0.0015, 0.005, 0.015}, edges: []string{"", ""}},
		{name: "rounds", p: base, round: 3, chosen: []Pick{{Cfg: 2}, {Cfg: 2}}, stop: StopRounds,
			baseline: []float64{0.0015, 0.005, 0.015}, idx: []float64{0.0015, 0.005, 0.015}, edges: []string{"largest", "largest"}},
		// 0.0015²/0.005 = 0.00045 is below min_lr 0.001: no step.
		{name: "bound", p: func() Protocol {
			p := base()
			p.ExtendGrid = &GridExtension{MaxRounds: 3, MinLR: 0.001, MaxLR: 0.5}
			return p
		}, chosen: []Pick{{Cfg: 0}, {Cfg: 0}}, stop: StopBound,
			baseline: []float64{0.0015, 0.005, 0.015}, idx: []float64{0.0015, 0.005, 0.015}, edges: []string{"smallest", "smallest"}},
		// Rounded to three significant digits: 0.001·0.001/0.003 =
		// 0.000333...
		{name: "rounded", p: func() Protocol {
			p := base()
			for i, lr := range []float64{0.001, 0.003, 0.01} {
				p.Baseline[i].LR, p.Idea[i].LR = lr, lr
			}
			return p
		}, chosen: []Pick{{Cfg: 0}, {Cfg: 1}}, more: true,
			baseline: []float64{0.001, 0.003, 0.01, 0.000333}, idx: []float64{0.001, 0.003, 0.01, 0.000333}, edges: []string{"smallest", ""}},
		// A grid of one rate has no step: it never sits on an edge.
		{name: "one_rate", p: func() Protocol {
			p := base()
			p.Baseline, p.Idea = p.Baseline[:1], p.Idea[:1]
			return p
		}, chosen: []Pick{{Cfg: 0}, {Cfg: 0}}, stop: StopInterior,
			baseline: []float64{0.0015}, idx: []float64{0.0015}, edges: []string{"", ""}},
		// Every cfg at the edge rate is copied (two look-backs here).
		{name: "two_contexts", p: func() Protocol {
			p := base()
			var b, x []Cfg
			for _, c := range p.Baseline {
				for _, ctx := range []int{0, 8} {
					c.Context = ctx
					b = append(b, c)
				}
			}
			for _, c := range p.Idea {
				for _, ctx := range []int{0, 8} {
					c.Context = ctx
					x = append(x, c)
				}
			}
			p.Baseline, p.Idea = b, x
			return p
		}, chosen: []Pick{{Cfg: 5}, {Cfg: 2}}, more: true,
			baseline: []float64{0.0015, 0.0015, 0.005, 0.005, 0.015, 0.015, 0.045, 0.045}, idx: []float64{0.0015, 0.0015, 0.005, 0.005, 0.015, 0.015, 0.045, 0.045}, edges: []string{"largest", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := tc.p()
			next, rec, more := q.Extend(q.ExtendGrid, tc.round, tc.chosen)
			require.Equal(t, tc.more, more)
			require.Equal(t, tc.stop, rec.Stop)
			require.Equal(t, tc.baseline, lrs(next.Baseline))
			require.Equal(t, tc.idx, lrs(next.Idea))
			for i, e := range tc.edges {
				require.Equal(t, e, rec.Chosen[i].Edge, "arm %d", i)
			}
			require.Empty(t, next.BudgetDiffs(), "both arms grow alike")
			require.Len(t, q.Baseline, len(tc.p().Baseline), "q's grids are not touched")
			if more {
				added := next.Baseline[len(q.Baseline):]
				for _, c := range added {
					want := q.Baseline[len(q.Baseline)-1]
					want.LR, want.Context = c.LR, c.Context
					require.Equal(t, want, c, "a copy of an edge cfg at the new rate")
				}
			}
		})
	}
}

func TestGridExtensionValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    GridExtension
		seq  bool
		want string
	}{
		{"ok", GridExtension{MaxRounds: 3, MinLR: 1e-6, MaxLR: 1}, false, ""},
		{"rounds", GridExtension{MaxRounds: 0, MinLR: 1e-6, MaxLR: 1}, false, "extend_grid.max_rounds = 0"},
		{"min", GridExtension{MaxRounds: 1, MinLR: 0, MaxLR: 1}, false, "extend_grid.min_lr = 0"},
		{"order", GridExtension{MaxRounds: 1, MinLR: 0.1, MaxLR: 0.01}, false, "extend_grid.max_lr = 0.01"},
		{"sequential", GridExtension{MaxRounds: 1, MinLR: 1e-6, MaxLR: 1}, true, "extend_grid: a sequential design"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := CIProfileFor("sequence")
			p.ExtendGrid = &tc.g
			if tc.seq {
				p.Sequential = &Sequential{MaxSeeds: 16}
			}
			err := p.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}
