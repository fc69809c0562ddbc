package harness

import (
	"context"
	"math"
	"os/exec"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/stretchr/testify/require"
)

// torchPython is a Python that imports torch (Debian's python3-torch is
// /usr/bin/python3's), or "".
func torchPython() string {
	for _, py := range []string{"/usr/bin/python3", "python3"} {
		if exec.Command(py, "-c", "import torch").Run() == nil {
			return py
		}
	}
	return ""
}

// TestTorchExample runs the PyTorch example trainer (examples/torch) as
// both arms of the tiny protocol (with the skip path), the idea arm with --idea gate: every
// trial finishes, the rerun check reproduces its trial bit for bit, and
// the report verifies. Skipped where no Python imports torch.
func TestTorchExample(t *testing.T) {
	py := torchPython()
	if py == "" {
		t.Skip("no python3 with torch (Debian: apt-get install python3-torch)")
	}
	if testing.Short() {
		t.Skip("trains 12 trials in PyTorch")
	}
	script := "../examples/torch/train.py"
	p := testkit.TinyProtocol()
	// The skip path on last-value-centred windows, trained on the last
	// token: the untrained model is then the least-squares centred map.
	p.Arch.Skip, p.Arch.Norm, p.Arch.Loss = true, "last", "last"
	p.Trainers = map[string]*protocol.Trainer{
		"baseline": {Command: []string{py, script}, Files: []string{script}, TimeoutS: 300},
		"idea":     {Command: []string{py, script, "--idea", "gate"}, Files: []string{script}, TimeoutS: 300},
	}
	o, err := Run(context.Background(), p, Options{Workers: 2})
	require.NoError(t, err)
	r := o.Report
	require.Nil(t, r.Diverged)
	require.True(t, r.External.Rerun.Identical, "%+v", r.External.Rerun)
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches())
	// The untrained model is the skip path's least-squares start: the
	// reference linear_centred, up to float32 (an independent check of
	// the harness's scoring of forecasts).
	lc := r.ReferenceForecasters.LinearCentred
	require.NotNil(t, lc)
	for _, st := range r.Informativeness.StartTest {
		require.InDelta(t, *lc, st, 1e-4**lc)
	}
	require.NotContains(t, strings.Join(r.Comparison.Warnings, "\n"), "not reproduced")
}

// TestTorchExampleTokens runs the PyTorch example on the mqar track at
// ci size (two lrs, four seeds): its untrained model scores ln(vocab), a
// uniform guess over every token id; the rerun check reproduces a trial
// bit for bit; the report verifies. Skipped where no Python imports
// torch.
func TestTorchExampleTokens(t *testing.T) {
	py := torchPython()
	if py == "" {
		t.Skip("no python3 with torch (Debian: apt-get install python3-torch)")
	}
	if testing.Short() {
		t.Skip("trains 16 trials in PyTorch")
	}
	script := "../examples/torch/train.py"
	p := protocol.CIProfileFor("mqar")
	p.Seeds = p.Seeds[:4]
	p.Baseline, p.Idea = p.Baseline[1:], p.Idea[1:]
	p.Trainers = map[string]*protocol.Trainer{
		"baseline": {Command: []string{py, script}, Files: []string{script}, TimeoutS: 300},
		"idea":     {Command: []string{py, script, "--idea", "gate"}, Files: []string{script}, TimeoutS: 300},
	}
	o, err := Run(context.Background(), p, Options{Workers: 2})
	require.NoError(t, err)
	r := o.Report
	require.True(t, r.External.Rerun.Identical, "%+v", r.External.Rerun)
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches())
	d, err := p.Data()
	require.NoError(t, err)
	for _, st := range r.Informativeness.StartTest {
		require.InDelta(t, math.Log(float64(d.Tokens.Vocab)), st, 0.02, "the untrained model guesses uniformly")
	}
	t.Logf("baseline test CE %v, chance %.3f", r.Baseline.Full.PerSeed, r.ReferenceForecasters.Tokens[0].CE)
}
