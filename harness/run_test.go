package harness

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// tinyProtocol has the protocol's structure at a size that runs in a
// second: 3 seeds, 2 cfgs per arm, a narrow model, few windows.
func tinyProtocol() Protocol {
	p := CIProfileFor("sequence")
	p.Profile = "tiny"
	p.Seeds = []uint64{0, 1, 2}
	// cfg 0 trains as the seed report did; cfg 1 with AdamW, warmup,
	// cosine decay, clipping and early stopping.
	tuned := Cfg{LR: 0.01, Epochs: 3, WeightDecay: 0.1, Schedule: ScheduleCosine, Warmup: 0.2, Clip: 1, Patience: 1}
	gated := tuned
	gated.Rho, gated.Beta = 0.9, 1
	p.Baseline = []Cfg{{LR: 0.003, Epochs: 2}, tuned}
	p.Idea = []Cfg{{LR: 0.003, Epochs: 2, Rho: 0.85, Beta: 0.5}, gated}
	p.Arch = Arch{D: 16, Heads: 2, Layers: 2, Batch: 16}
	p.Sequence.TrainWindows, p.Sequence.ValWindows, p.Sequence.TestWindows = 64, 32, 32
	p.Sequence.T, p.Sequence.H = 16, 4
	return p
}

// TestWorkersBitIdentical: the report does not depend on the number of
// workers.
func TestWorkersBitIdentical(t *testing.T) {
	p := tinyProtocol()
	one, err := Run(context.Background(), p, Options{Workers: 1})
	require.NoError(t, err)
	two, err := Run(context.Background(), p, Options{Workers: 3})
	require.NoError(t, err)
	a, err := one.Report.Marshal()
	require.NoError(t, err)
	b, err := two.Report.Marshal()
	require.NoError(t, err)
	require.Equal(t, string(a), string(b))
	require.Empty(t, Verify(one.Report, VerifyOptions{Rerun: true}).Mismatches())
}
