package trial

import (
	"context"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"

	"github.com/stretchr/testify/require"
)

// TestEarlyStopping: the kept weights are those of the first epoch of
// least val metric, scored again they give the trial's val metric, and
// training stops once Patience epochs bring no new best.
func TestEarlyStopping(t *testing.T) {
	p := testkit.TinyProtocol()
	ds := testkit.MustSequence(t, p)
	for _, tc := range []struct {
		name string
		c    protocol.Cfg
		stop bool // the run must stop before its last epoch
	}{
		{"off", protocol.Cfg{LR: 0.01, Epochs: 4}, false},
		// A high rate on 64 windows overfits within a few epochs.
		{"stops", protocol.Cfg{LR: 0.05, Epochs: 12, Schedule: protocol.ScheduleConstant, Patience: 1}, true},
		{"patience_3", protocol.Cfg{LR: 0.01, Epochs: 6, WeightDecay: 0.1, Schedule: protocol.ScheduleCosine, Warmup: 0.1, Clip: 1, Patience: 3}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, r, err := TrainTrial(context.Background(), p, ds, tc.c, 1)
			require.NoError(t, err)
			require.Len(t, r.EpochLoss, len(r.ValCurve))
			require.Equal(t, r.ValCurve[r.BestEpoch-1], r.Val)
			x := make([]float32, p.Arch.Batch*ds.Val.T*ds.Val.C)
			y := make([]float32, p.Arch.Batch*(ds.Val.T+ds.Val.H))
			require.Equal(t, r.Val, evaluate(m, &ds.Val, x, y, nil, nil), "the model holds the kept weights")
			if tc.c.Patience == 0 {
				require.Equal(t, tc.c.Epochs, r.BestEpoch)
				require.Len(t, r.ValCurve, tc.c.Epochs)
				return
			}
			for e, v := range r.ValCurve {
				if e+1 < r.BestEpoch {
					require.Greater(t, v, r.Val, "epoch %d", e+1)
				} else {
					require.GreaterOrEqual(t, v, r.Val, "epoch %d", e+1)
				}
			}
			if len(r.ValCurve) < tc.c.Epochs {
				require.Equal(t, tc.c.Patience, len(r.ValCurve)-r.BestEpoch, "stops after Patience epochs without a new best")
			}
			require.Equal(t, tc.stop, len(r.ValCurve) < tc.c.Epochs, "val curve %v", r.ValCurve)
		})
	}
}

// TestEpochWindows: an epoch of k windows is a seeded sample, the same
// bits on a rerun and other bits than every window; k at or above the
// train windows is every window.
func TestEpochWindows(t *testing.T) {
	p := testkit.TinyProtocol()
	d, err := p.Data()
	require.NoError(t, err)
	c := p.Baseline[1]
	train := func(k int) Result {
		c := c
		c.EpochWindows = k
		r, err := RunTrial(context.Background(), p, d.Dataset, c, 3)
		require.NoError(t, err)
		return r
	}
	all, sample := train(0), train(24)
	require.Equal(t, sample, train(24), "the same seed, the same sample")
	require.NotEqual(t, all.EpochLoss, sample.EpochLoss)
	require.Equal(t, all, train(d.Train.N), "k = N is every window")
	require.Equal(t, all, train(10*d.Train.N))
	// The estimate counts the sampled steps.
	q := p
	q.Baseline, q.Idea = []protocol.Cfg{c}, nil
	full := q.Estimate(d.Dataset, 1, Costs(q)).MaxFLOPs
	q.Baseline[0].EpochWindows = 16
	require.Less(t, q.Estimate(d.Dataset, 1, Costs(q)).MaxFLOPs, full)
}

// TestTestMASE: on a real panel the trial scores its test windows in
// the archive's metric too, and the score is MeanMASE of the trained
// model's own forecasts, recomputed here window by window.
func TestTestMASE(t *testing.T) {
	p := testkit.TinyProtocol()
	ds := *testkit.MustSequence(t, p)
	scale := make([]float64, ds.Test.N)
	for n := range scale {
		scale[n] = 0.5 + float64(n%5)/4
	}
	ds.Panel = &track.RealPanel{Dataset: &ds, Scale: scale}
	m, r, err := TrainTrial(context.Background(), p, &ds, protocol.Cfg{LR: 0.01, Epochs: 2}, 1)
	require.NoError(t, err)
	require.Greater(t, r.TestMASE, 0.0)
	s := &ds.Test
	nt := m.Config.Tokens()
	var want float64
	for n := range s.N {
		x, y := s.Window(n)
		x32 := make([]float32, len(x))
		for i, v := range x {
			x32[i] = float32(v)
		}
		pred := m.Predict(x32, 1)
		fc := make([]float64, s.H)
		for h := range fc {
			fc[h] = float64(pred[(nt-1)*s.H+h])
		}
		want += track.MASE(y[s.T:], fc, scale[n])
	}
	require.InDelta(t, want/float64(s.N), r.TestMASE, 1e-12)

	ds.Panel = nil
	_, r0, err := TrainTrial(context.Background(), p, &ds, protocol.Cfg{LR: 0.01, Epochs: 2}, 1)
	require.NoError(t, err)
	require.Zero(t, r0.TestMASE, "no panel, no MASE")
	require.Equal(t, r.Test, r0.Test, "the MSE does not depend on the MASE")
}
