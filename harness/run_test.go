package harness

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// tinyProtocol has the protocol's structure at a size that runs in a
// second: 3 seeds, 2 cfgs per arm, a narrow model, few windows.
func tinyProtocol() Protocol {
	p := CIProfile()
	p.Profile = "tiny"
	p.Seeds = []uint64{0, 1, 2}
	p.Baseline = []Cfg{{0.003, 2, 0, 0}, {0.01, 2, 0, 0}}
	p.Idea = []Cfg{{0.003, 2, 0.85, 0.5}, {0.01, 2, 0.9, 1}}
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
