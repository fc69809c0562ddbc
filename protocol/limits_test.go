package protocol

import (
	"context"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ideabench/ideabench/track"
)

// allocated returns the bytes f allocated (runtime.MemStats.TotalAlloc):
// a refusal made before a track is drawn allocates next to nothing.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestDataWithinGenerated: every generated track whose windows exceed
// the memory at hand is refused before any is drawn (it allocates under
// a MiB where the windows would take hundreds), with the need, the
// memory available and the block's fields that size the windows.
func TestDataWithinGenerated(t *testing.T) {
	const huge = 1 << 21 // train windows or sequences: hundreds of MiB
	cases := []struct {
		kind string
		grow func(p *Protocol)
		want string // the fields to lower
	}{
		{"panel", func(p *Protocol) { p.Panel.TrainWindows = huge }, "lower panel.train_windows, panel.val_windows or panel.test_windows, or panel.t"},
		{"sequence", func(p *Protocol) { p.Sequence.TrainWindows = huge }, "lower sequence.train_windows, sequence.val_windows or sequence.test_windows, or sequence.t"},
		{"mqar", func(p *Protocol) { p.MQAR.Sizes.Train = huge }, "lower mqar.sizes (train, val, test) or mqar.t"},
		{"forget-mqar", func(p *Protocol) { p.ForgetMQAR.Sizes.Train = huge }, "lower forget-mqar.sizes (train, val, test) or forget-mqar.t"},
		{"recall", func(p *Protocol) { p.Recall.Sizes.Train = huge }, "lower recall.sizes (train, val, test) or recall.t"},
		{"noisy-recall", func(p *Protocol) { p.NoisyRecall.Sizes.Train = huge }, "lower noisy-recall.sizes (train, val, test) or noisy-recall.t"},
		{"fuzzy-recall", func(p *Protocol) { p.FuzzyRecall.Sizes.Train = huge }, "lower fuzzy-recall.sizes (train, val, test) or fuzzy-recall.t"},
		{"selective-copy", func(p *Protocol) { p.SelectiveCopy.Sizes.Train = huge }, "lower selective-copy.sizes (train, val, test) or selective-copy.t"},
	}
	// Every registered kind that generates its windows has a row.
	rows := map[string]bool{}
	for _, c := range cases {
		rows[c.kind] = true
	}
	for _, k := range track.Kinds() {
		p := CIProfileFor(k.Name())
		if k.GeneratedBytes(&p.Blocks) > 0 {
			require.True(t, rows[k.Name()], "%s: a generated kind without a row", k.Name())
		}
	}
	const limit = 64 << 20
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			p := CIProfileFor(tc.kind)
			tc.grow(&p)
			require.Greater(t, p.dataEstimate(), 2.0*limit)
			var err error
			n := allocated(func() { _, err = p.DataWithin(context.Background(), Limits{MaxBytes: limit}) })
			require.ErrorIs(t, err, ErrBeyondLimits)
			require.ErrorContains(t, err, "the "+tc.kind+" track's windows need about")
			require.ErrorContains(t, err, "but 64 MiB is available; "+tc.want)
			require.Less(t, n, uint64(1<<20), "refused before drawing")
			require.ErrorIs(t, p.CheckBefore(Limits{MaxBytes: limit}, 1, 1, func(Cfg, TrainSize) ModelCost { return ModelCost{} }), ErrBeyondLimits,
				"CheckBefore refuses the windows alone as DataWithin does")
		})
	}
}

// TestCheckBefore: the models are weighed beside a generated track's
// windows from the protocol alone, each cfg at its look-back with the
// fewest channels and token ids a track can have; the refusal names the
// look-back's fields, the windows alone the block's.
func TestCheckBefore(t *testing.T) {
	var seen []TrainSize
	// A model of a MiB a position, a channel and a token id.
	cost := func(c Cfg, z TrainSize) ModelCost {
		seen = append(seen, z)
		return ModelCost{Bytes: float64(z.Context*max(z.Channels, z.Vocab)) * (1 << 20)}
	}
	csv := CIProfileFor("csv")
	csv.CSV = &track.CSVConfig{Path: "no-such-file.csv", Channels: track.ChannelsMixed, T: 24, H: 6}
	csv.Arch.Patch = 4
	csv.Idea[0].Context = 48
	for _, tc := range []struct {
		name    string
		p       Protocol
		shape   TrainSize // what the cost model is asked
		trial   float64   // TrialBytes
		data    bool      // DataBytes is the track's GeneratedBytes
		lookBck string
	}{
		{"token", CIProfileFor("mqar"), TrainSize{Context: 24, Vocab: 1, Windows: 1}, 24 << 20, true, "mqar.t"},
		{"panel", CIProfileFor("panel"), TrainSize{Context: CIProfileFor("panel").Panel.T, H: CIProfileFor("panel").Panel.H, Channels: 1, Windows: 1}, float64(CIProfileFor("panel").Panel.T) * (1 << 20), true, "panel.t"},
		// A file's windows are checked from the file; the idea arm's
		// look-back of 48 is the largest model.
		{"csv", csv, TrainSize{Context: 48, H: 6, Channels: 1, Windows: 1}, 48 << 20, false, "csv.t or a cfg's context"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen = nil
			e := tc.p.EstimateBefore(4, cost)
			require.Contains(t, seen, tc.shape)
			require.Equal(t, tc.trial, e.TrialBytes)
			require.Equal(t, 4, e.Trials)
			require.Zero(t, e.MaxFLOPs, "the FLOPs need the windows' count")
			if tc.data {
				require.Positive(t, e.DataBytes)
			} else {
				require.Zero(t, e.DataBytes)
			}
			require.Equal(t, tc.lookBck, e.LookBack)

			require.NoError(t, tc.p.CheckBefore(Limits{MaxBytes: e.DataBytes + 2*e.TrialBytes}, 2, 4, cost))
			err := tc.p.CheckBefore(Limits{MaxBytes: e.DataBytes + 1.5*e.TrialBytes}, 2, 4, cost)
			require.ErrorIs(t, err, ErrBeyondLimits)
			require.ErrorContains(t, err, "per trial for 2 trials at once")
			require.ErrorContains(t, err, "the look-back ("+tc.lookBck+")")
			require.NoError(t, tc.p.CheckBefore(Limits{MaxBytes: e.DataBytes + 1.5*e.TrialBytes}, 1, 4, cost), "one worker fits")
			require.NoError(t, tc.p.CheckBefore(Limits{}, 2, 4, cost), "no limit")
		})
	}
}

// TestDataWithinFiles: a track read from a file whose windows would not
// fit is refused from its file before they are cut, naming the fields
// to change (TestDataWithinCSV has the csv track at length).
func TestDataWithinFiles(t *testing.T) {
	csv := CIProfileFor("csv")
	csv.CSV = &track.CSVConfig{Path: "../track/testdata/tiny.csv", Channels: track.ChannelsMixed, T: 24, H: 6}
	csv.Arch.Patch = 4
	tsf := CIProfileFor("tsf")
	tsf.TSF = &track.TSFConfig{Path: "../track/testdata/tiny-panel.tsf", T: 8, H: 4}
	tsf.Arch.Patch = 4
	for _, tc := range []struct {
		name string
		p    Protocol
		want string
	}{
		{"csv", csv, `the csv track's windows of ../track/testdata/tiny.csv need about 0.0366 MiB of memory but 0.00977 MiB is available; forecast fewer columns (csv.features), use csv.channels "independent"`},
		{"tsf", tsf, "the tsf track's windows of ../track/testdata/tiny-panel.tsf need about"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Zero(t, tc.p.dataEstimate(), "read from a file")
			_, err := tc.p.DataWithin(context.Background(), Limits{MaxBytes: 10 << 10})
			require.ErrorIs(t, err, ErrBeyondLimits)
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, "but 0.00977 MiB is available; ")
			_, err = tc.p.DataWithin(context.Background(), Limits{MaxBytes: 1 << 30})
			require.NoError(t, err)
		})
	}
}
