package trial

import (
	"context"
	"math"
	"testing"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// tokenTrial is a tiny MQAR and a model for it.
func tokenTrial(t *testing.T) (*track.TokenDataset, transformer.Config) {
	t.Helper()
	c := track.CIMQARConfig()
	c.Sizes = track.TokenSizes{Train: 256, Val: 32, Test: 32}
	ds, err := track.MQAR(c)
	if err != nil {
		t.Fatal(err)
	}
	return ds, transformer.Config{D: 16, Heads: 2, Layers: 2, T: ds.Train.T, Vocab: ds.Vocab}
}

func TestTrainTokens(t *testing.T) {
	ds, mc := tokenTrial(t)
	chance := math.Log(float64(len(ds.Answers)))
	for _, tc := range []struct {
		name string
		idea idea.Config
		cfg  protocol.Cfg
	}{
		{"baseline", idea.Config{}, protocol.Cfg{LR: 3e-3, Epochs: 3, Schedule: protocol.ScheduleCosine, Clip: 1}},
		{"gate/patience", idea.Config{Name: "gate", Params: idea.NewParams(map[string]float64{"rho": 0.9, "beta": 1})}, protocol.Cfg{LR: 3e-3, Epochs: 4, Patience: 1, EpochWindows: 128}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mc := mc
			mc.Idea = tc.idea
			_, a, err := TrainTokens(context.Background(), mc, 32, ds, tc.cfg, 7)
			if err != nil {
				t.Fatal(err)
			}
			_, b, err := TrainTokens(context.Background(), mc, 32, ds, tc.cfg, 7)
			if err != nil {
				t.Fatal(err)
			}
			if math.Float64bits(a.Test) != math.Float64bits(b.Test) || math.Float64bits(a.TestAcc) != math.Float64bits(b.TestAcc) {
				t.Errorf("the same seed gave test %v/%v and %v/%v", a.Test, a.TestAcc, b.Test, b.TestAcc)
			}
			// An untrained model scores about ln(vocab) (all ids, not
			// only the answers, are in its softmax).
			if d := math.Abs(a.StartTest - math.Log(float64(ds.Vocab))); d > 0.5 {
				t.Errorf("untrained test CE %.3f, want about ln %d = %.3f", a.StartTest, ds.Vocab, math.Log(float64(ds.Vocab)))
			}
			// A few steps move the model toward the answer ids.
			if a.Test >= a.StartTest || a.StartTest-a.Test > a.StartTest-chance+1 {
				t.Errorf("trained test CE %.3f from %.3f, want lower (ln |answers| = %.3f)", a.Test, a.StartTest, chance)
			}
			for _, acc := range []float64{a.ValAcc, a.TestAcc} {
				if acc < 0 || acc > 1 {
					t.Errorf("accuracy %v outside [0,1]", acc)
				}
			}
			if len(a.ValCurve) != len(a.EpochLoss) || len(a.ValCurve) == 0 {
				t.Errorf("%d val scores for %d epochs", len(a.ValCurve), len(a.EpochLoss))
			}
			if tc.cfg.Patience > 0 && a.Val != min(a.StartVal, slicesMin(a.ValCurve)) {
				t.Errorf("early stopping kept val %v, the best of the start %v and the curve %v", a.Val, a.StartVal, a.ValCurve)
			}
		})
	}
}

func slicesMin(x []float64) float64 {
	m := math.Inf(1)
	for _, v := range x {
		m = min(m, v)
	}
	return m
}

// TestTrainTokensLearns trains MAD's in-context recall at a tiny size
// until the model reads values back: accuracy far above chance.
func TestTrainTokensLearns(t *testing.T) {
	if testing.Short() {
		t.Skip("trains a model for a few seconds")
	}
	c := track.CIMQARConfig()
	c.Vocab, c.T, c.Pairs = 16, 12, 2
	c.Sizes = track.TokenSizes{Train: 2048, Val: 64, Test: 128}
	ds, err := track.MQAR(c)
	if err != nil {
		t.Fatal(err)
	}
	mc := transformer.Config{D: 32, Heads: 2, Layers: 2, T: ds.Train.T, Vocab: ds.Vocab}
	cfg := protocol.Cfg{LR: 3e-3, Epochs: 12, Schedule: protocol.ScheduleCosine, Warmup: 0.1, Clip: 1, WeightDecay: 0.1}
	_, res, err := TrainTokens(context.Background(), mc, 64, ds, cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	chance := 1 / float64(len(ds.Answers))
	t.Logf("test CE %.3f accuracy %.3f (chance %.3f)", res.Test, res.TestAcc, chance)
	if res.TestAcc < 0.9 {
		t.Errorf("test accuracy %.3f after training, want >= 0.9 (chance %.3f)", res.TestAcc, chance)
	}
}

func TestTrainTokensRefusesMismatch(t *testing.T) {
	ds, mc := tokenTrial(t)
	mc.Vocab++
	if _, _, err := TrainTokens(context.Background(), mc, 8, ds, protocol.Cfg{LR: 1e-3, Epochs: 1}, 1); err == nil {
		t.Error("a model of another vocabulary trained on the track")
	}
}
