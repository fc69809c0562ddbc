package kindtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/track"
)

// fakeKind is a kind of higher-is-better metric that reads the sequence
// block; it delegates its data and references to the sequence kind.
type fakeKind struct{ track.Kind }

func (fakeKind) Name() string                  { return "fake" }
func (fakeKind) Metric() string                { return "accuracy" }
func (fakeKind) Loss() string                  { return "cross-entropy" }
func (fakeKind) LowerIsBetter() bool           { return false }
func (fakeKind) Tokens() bool                  { return false }
func (fakeKind) Describe(*track.Blocks) string { return "a fake track" }

func TestFakeKind(t *testing.T) {
	seq, ok := track.LookupKind("sequence")
	require.True(t, ok)
	track.Register(fakeKind{seq})
	_, ok = track.LookupKind("fake")
	require.True(t, ok)
	require.Contains(t, track.KindNames(), "fake")

	p := protocol.CIProfileFor("fake")
	require.Equal(t, "fake", p.Track)
	require.NoError(t, p.Validate(), "a registered kind validates without a change to protocol")
	require.Equal(t, protocol.CIProfileFor("sequence").Baseline, p.Baseline, "its profile's training is its kind's")
	require.Equal(t, stats.HigherIsBetter, p.Direction())
	require.Equal(t, "accuracy", p.MetricName())
	require.Equal(t, "a fake track "+idea.RationaleOf(p.Idea[0].IdeaConfig()), protocol.Rationale(p), "the kind's description, then the idea's")

	p.Sequence.TrainWindows, p.Sequence.ValWindows, p.Sequence.TestWindows = 64, 16, 16
	d, err := p.DataWithin(context.Background(), protocol.Limits{})
	require.NoError(t, err)
	require.Equal(t, 64, d.Train.N)
	f, err := p.References(d.Dataset)
	require.NoError(t, err)
	require.NotZero(t, f.Persistence)
	k := p.Key(p.Trials()[0], "")
	require.Equal(t, "fake", k.Track)
	require.Equal(t, p.Sequence, k.Sequence)

	q, err := protocol.Build(protocol.Choice{Profile: "ci", Track: "fake"})
	require.NoError(t, err)
	require.Equal(t, "fake", q.Track)

	p.Track = "parquet"
	require.ErrorContains(t, p.Validate(), `"selective-copy" or "fake"`, "the unknown-track message lists the new kind")
}
