package harness

import (
	"context"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"
	"github.com/stretchr/testify/require"
)

// extendingProtocol is TinyProtocol with a grid extension over lr ∈
// {0.0003, 0.001, 0.003} at equal training, whose choice takes an edge.
func extendingProtocol() protocol.Protocol {
	p := testkit.TinyProtocol()
	p.Baseline, p.Idea = nil, nil
	for _, lr := range []float64{0.0003, 0.001, 0.003} {
		p.Baseline = append(p.Baseline, protocol.Cfg{LR: lr, Epochs: 2})
		p.Idea = append(p.Idea, protocol.Cfg{LR: lr, Epochs: 2, Rho: 0.9, Beta: 1})
	}
	p.ExtendGrid = &protocol.GridExtension{MaxRounds: 2, MinLR: 1e-5, MaxLR: 1}
	return p
}

// TestExtendGrid: a choice on the edge of the lr grid grows both arms'
// grids by a step that way until the choice is interior or the rounds
// run out; the report records the rounds, warns of an edge only when the
// extension stopped there, re-derives under verify (from its own values
// and from the trial records), and a sharded run merged gives the
// one-go report, merge running the later rounds.
func TestExtendGrid(t *testing.T) {
	p := extendingProtocol()
	dir := t.TempDir()
	s, err := trial.OpenStore(dir)
	require.NoError(t, err)
	o, err := Run(context.Background(), p, Options{Store: s})
	require.NoError(t, err)
	r := o.Report
	ext := r.GridExtension
	require.GreaterOrEqual(t, len(ext), 2, "the tiny track's choice takes an edge: %+v", ext)
	require.NotEmpty(t, ext[len(ext)-1].Stop)
	for _, e := range ext[:len(ext)-1] {
		require.Empty(t, e.Stop)
		require.True(t, e.Below != nil || e.Above != nil)
	}
	grown := 3
	for _, e := range ext {
		grown += len(e.Below)/2 + len(e.Above)/2
	}
	require.Len(t, r.Baseline.Sweep, grown, "one cfg an arm per rate added")
	require.Len(t, r.MechanismSignature.IdeaSweep, grown)
	require.Equal(t, p, r.Setup.Protocol, "the report's protocol is the one given, with its starting grids")
	require.True(t, r.Budget.Equal)
	require.Equal(t, int64(grown)*2*4*3, r.Budget.Arms[0].Steps, "grown cfgs × 2 epochs × 4 steps × 3 seeds")
	edge := false
	for _, w := range r.Comparison.Warnings {
		edge = edge || len(w) > 10 && w[:10] == "grid edge:"
	}
	require.Equal(t, ext[len(ext)-1].Stop != protocol.StopInterior, edge, "an edge warning stands only where the extension stopped on an edge")
	require.Equal(t, len(o.Trials), o.Computed)

	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Findings)
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Results: []string{dir}}).Findings)

	for _, tc := range []struct {
		field string
		edit  func(r *report.Report)
	}{
		{"grid_extension[0].chosen[0].lr", func(r *report.Report) { r.GridExtension[0].Chosen[0].LR *= 2 }},
		{"baseline.sweep[3].cfg.lr", func(r *report.Report) { r.Baseline.Sweep[3].Cfg.LR *= 2 }},
		{"budget.arms[0].steps", func(r *report.Report) { r.Budget.Arms[0].Steps++ }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			testkit.RequireNamed(t, tamperedFields(t, r, tc.edit), tc.field)
		})
	}

	t.Run("again", func(t *testing.T) {
		again, err := Run(context.Background(), p, Options{Store: s})
		require.NoError(t, err)
		require.Zero(t, again.Computed, "every round's trials are reused")
		require.Equal(t, marshal(t, o), marshal(t, again))
	})
	t.Run("shards", func(t *testing.T) {
		var dirs []string
		for i := range 2 {
			d := t.TempDir()
			dirs = append(dirs, d)
			st, err := trial.OpenStore(d)
			require.NoError(t, err)
			so, err := Run(context.Background(), p, Options{Store: st, Shard: i, Shards: 2})
			require.NoError(t, err)
			require.Nil(t, so.Report)
			require.Equal(t, 3*2*3/2, so.Computed, "a shard trains its share of the starting grids")
		}
		m, err := Merge(context.Background(), dirs)
		require.NoError(t, err)
		require.Equal(t, marshal(t, o), marshal(t, m))
	})
}
