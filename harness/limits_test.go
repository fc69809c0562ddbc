package harness

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/trial"
)

// fileKinds set the block of each kind read from a file on path, and
// name its test file, so that every registered kind can be built.
var fileKinds = map[string]struct {
	set  func(p *protocol.Protocol, path string)
	file string
}{
	"csv": {func(p *protocol.Protocol, path string) {
		p.CSV = &track.CSVConfig{Path: path, Channels: track.ChannelsMixed, T: 24, H: 6}
		p.Arch.Patch = 4
	}, filepath.Join("..", "track", "testdata", "tiny.csv")},
	"tsf": {func(p *protocol.Protocol, path string) {
		p.TSF = &track.TSFConfig{Path: path, T: 8, H: 4}
		p.Arch.Patch = 4
	}, filepath.Join("..", "track", "testdata", "tiny-panel.tsf")},
}

// TestCheckBeforeEveryKind: on every registered kind the models' memory
// is weighed from the protocol alone, a lower bound of the estimate on
// the data, and Run refuses a protocol beyond it before the track is
// drawn or read: a file kind's file is then one that does not exist,
// which a read would have reported instead.
func TestCheckBeforeEveryKind(t *testing.T) {
	for _, k := range track.Kinds() {
		t.Run(k.Name(), func(t *testing.T) {
			p := protocol.CIProfileFor(k.Name())
			fk, file := fileKinds[k.Name()]
			if !file && k.GeneratedBytes(&p.Blocks) == 0 {
				t.Fatalf("%s: a kind read from a file needs a row of fileKinds", k.Name())
			}
			if file {
				fk.set(&p, fk.file)
			}
			require.NoError(t, p.Validate())
			n := len(p.Trials())
			d, err := p.Data()
			require.NoError(t, err)
			est := p.Estimate(d.Dataset, n, trial.Costs(p))
			before := p.EstimateBefore(n, trial.Costs(p))
			require.Positive(t, before.TrialBytes)
			require.LessOrEqual(t, before.TrialBytes, est.TrialBytes, "a lower bound of the estimate on the data")

			if file {
				fk.set(&p, filepath.Join(t.TempDir(), "missing"))
			}
			_, err = Run(context.Background(), p, Options{Workers: 1, Limits: protocol.Limits{MaxBytes: before.DataBytes + before.TrialBytes/2}})
			require.ErrorIs(t, err, protocol.ErrBeyondLimits)
			require.ErrorContains(t, err, "per trial for 1 trials at once")
			require.ErrorContains(t, err, "the look-back ("+k.Name()+".t")
		})
	}
}

// TestRunRefusesLongTokens: a token track of long sequences, whose
// model (attention over t² positions a head) no machine holds, is
// refused before its sequences are drawn: Run allocates under 4 MiB
// where the sequences alone take 48 MiB.
func TestRunRefusesLongTokens(t *testing.T) {
	const long = 1 << 16
	for _, tc := range []struct {
		kind string
		set  func(p *protocol.Protocol)
	}{
		{"mqar", func(p *protocol.Protocol) { p.MQAR.T = long }},
		{"forget-mqar", func(p *protocol.Protocol) { p.ForgetMQAR.T = long }},
		// MAD's recall instance is t+1 tokens of two-token slots: t odd.
		{"recall", func(p *protocol.Protocol) { p.Recall.T = long - 1 }},
		{"noisy-recall", func(p *protocol.Protocol) { p.NoisyRecall.T = long - 1 }},
		{"fuzzy-recall", func(p *protocol.Protocol) { p.FuzzyRecall.T = long }},
		{"selective-copy", func(p *protocol.Protocol) { p.SelectiveCopy.T = long }},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			p := protocol.CIProfileFor(tc.kind)
			tc.set(&p)
			require.NoError(t, p.Validate())
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := Run(context.Background(), p, Options{Workers: 1, Limits: protocol.Limits{MaxBytes: 1 << 30}})
			runtime.ReadMemStats(&after)
			require.ErrorIs(t, err, protocol.ErrBeyondLimits)
			require.ErrorContains(t, err, "but 1 GiB is available; shrink arch (d, heads, layers, batch), the look-back ("+tc.kind+".t)")
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(4<<20), "refused before drawing")
		})
	}
}
