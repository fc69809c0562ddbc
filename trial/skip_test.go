package trial

import (
	"math/rand/v2"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
	"github.com/stretchr/testify/require"
)

// TestSkipInit: the skip path starts at the closed-form linear forecaster
// of the model's scale: under norm "last" the last-value-centred map
// (computed independently by track.FitLinearCentred), without a norm the
// linear_ar map; and a freshly initialized skip model forecasts exactly
// what that map does (its head starts at zero), to float32 rounding.
func TestSkipInit(t *testing.T) {
	p := testkit.TinyProtocol()
	ds := testkit.MustSequence(t, p)
	tr := track.Univariate(&ds.Train, ds.Target)
	for _, tc := range []struct {
		name string
		norm string
		fit  func(*track.Split) (*track.Linear, error)
	}{
		{"last", transformer.NormLast, track.FitLinearCentred},
		{"none", "", track.FitLinear},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.Arch.Norm, p.Arch.Skip, p.Arch.Loss = tc.norm, true, transformer.LossLast
			mc := ModelConfig(p, p.Baseline[0], ds)
			w, b, err := skipInit(mc, ds)
			require.NoError(t, err)
			again, _, err := skipInit(mc, ds)
			require.NoError(t, err)
			require.Same(t, &w[0], &again[0], "the trials of a run share one fit")
			want, err := tc.fit(&tr)
			require.NoError(t, err)
			require.InDeltaSlice(t, want.W, w, 1e-9)
			require.InDeltaSlice(t, want.B, b, 1e-9)

			m, err := transformer.New[float32](mc, ds.Test.N)
			require.NoError(t, err)
			m.Params.Init(rand.New(rand.NewPCG(1, 1)))
			m.SetSkip(w, b)
			x := make([]float32, ds.Test.N*ds.Test.T)
			for i, v := range ds.Test.X {
				x[i] = float32(v)
			}
			pred := m.Predict(x, ds.Test.N)
			n, h := mc.Tokens(), mc.H
			got := make([]float64, ds.Test.N*h)
			for i := range ds.Test.N {
				for k := range h {
					got[i*h+k] = float64(pred[(i*n+n-1)*h+k])
				}
			}
			require.InDelta(t, want.MSE(&ds.Test), track.LastPositionMSE(got, &ds.Test), 1e-5)
		})
	}
}

// TestModelConfigPositions: the arch's position embedding reaches the
// model on a forecasting track as on a token track.
func TestModelConfigPositions(t *testing.T) {
	for _, trk := range []string{"mqar", "panel"} {
		for _, pos := range []string{"", "learned", "none"} {
			p := protocol.CIProfileFor(trk)
			p.Arch.Positions = pos
			d, err := p.Data()
			require.NoError(t, err)
			mc := ModelConfig(p, p.Baseline[0], d.Dataset)
			require.Equal(t, pos, mc.Positions, "%s: the model's positions", trk)
			require.NoError(t, mc.Validate())
		}
	}
}
