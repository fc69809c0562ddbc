package track

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tinyBlocks are blocks small enough for every registered kind to build
// its dataset in milliseconds.
func tinyBlocks() Blocks {
	b := DefaultBlocks()
	b.Sequence.TrainWindows, b.Sequence.ValWindows, b.Sequence.TestWindows = 64, 16, 16
	p := DefaultPanelConfig()
	p.TrainWindows, p.ValWindows, p.TestWindows = 64, 16, 16
	b.Panel = &p
	b.CSV = &CSVConfig{Path: "testdata/tiny.csv", Target: "OT", Features: []string{"OT"}, T: 24, H: 6}
	b.TSF = &TSFConfig{Path: "testdata/tiny-panel.tsf", T: 8, H: 4}
	for _, k := range tokenKinds {
		k.Profile("ci", &b)
	}
	return b
}

// TestKinds runs every registered kind through what the layers above
// track ask of it, so a new kind gets these checks without a line here.
func TestKinds(t *testing.T) {
	for _, name := range KindNames() {
		t.Run(name, func(t *testing.T) {
			k, ok := LookupKind(name)
			require.True(t, ok)
			require.Equal(t, name, k.Name(), "the name round-trips through the registry")
			require.NotEmpty(t, k.Metric())
			require.NotEmpty(t, k.Loss())

			b := tinyBlocks()
			require.Empty(t, k.Validate(&b), "the tiny blocks are valid")
			th, hh, ok := k.Window(&b)
			require.True(t, ok)
			ds, _, err := k.Data(context.Background(), &b, []int{th}, 0)
			require.NoError(t, err)
			f, err := k.References(ds, []int{th})
			require.NoError(t, err)
			if ds.Tokens != nil {
				require.Zero(t, hh, "a token track has no horizon")
				require.Positive(t, ds.Tokens.Train.N)
				require.Equal(t, th, ds.Tokens.Test.T)
				_, ce := f.Best()
				k.Judge(f, ce)
			} else {
				require.Equal(t, []int{th}, ds.Contexts())
				require.Equal(t, hh, ds.Test.H)
				require.Positive(t, ds.Train.N)
				k.Judge(f, f.Persistence)
			}
			require.NotEmpty(t, f.BestReference)

			// A bad block is refused, naming the field under the block's key.
			bad := tinyBlocks()
			bad.Sequence.T, bad.Panel.T, bad.CSV.T, bad.TSF.T = 0, 0, 0, 0
			bad.MQAR.T, bad.ForgetMQAR.T, bad.Recall.T, bad.NoisyRecall.T, bad.FuzzyRecall.T, bad.SelectiveCopy.T = 0, 0, 0, 0, 0, 0
			errs := k.Validate(&bad)
			require.NotEmpty(t, errs)
			require.True(t, slices.ContainsFunc(errs, func(e error) bool { return strings.HasPrefix(e.Error(), name+".t = 0") }), "%v", errs)
		})
	}
}

// TestKindDirections pins each shipped kind's metric and direction.
func TestKindDirections(t *testing.T) {
	for _, c := range []struct {
		name, metric string
		lower        bool
	}{{"panel", "MSE", true}, {"sequence", "MSE", true}, {"csv", "MSE", true}, {"tsf", "MSE", true},
		{"mqar", "cross-entropy", true}, {"forget-mqar", "cross-entropy", true}, {"recall", "cross-entropy", true},
		{"noisy-recall", "cross-entropy", true}, {"fuzzy-recall", "cross-entropy", true}, {"selective-copy", "cross-entropy", true}} {
		t.Run(c.name, func(t *testing.T) {
			k, ok := LookupKind(c.name)
			require.True(t, ok)
			require.Equal(t, c.metric, k.Metric())
			require.Equal(t, c.lower, k.LowerIsBetter())
		})
	}
	require.True(t, slices.IsSorted(KindNames()))
	_, ok := LookupKind("parquet")
	require.False(t, ok)
}

// TestRegisterRefuses: a kind without a name or of a registered name is
// a programmer error.
func TestRegisterRefuses(t *testing.T) {
	require.Panics(t, func() { Register(panelKind{}) })
}

// TestCSVLimit: the csv kind refuses windows beyond the memory at hand
// from the file, before cutting them, and counts C(C+1) values a row for
// channels "mixed" and C for "independent".
func TestCSVLimit(t *testing.T) {
	b := DefaultBlocks()
	b.CSV = &CSVConfig{Path: "testdata/tiny.csv", Channels: ChannelsMixed, T: 24, H: 6}
	tab, err := LoadCSV(b.CSV.Path)
	require.NoError(t, err)
	mixed := csvBytes(*b.CSV, tab, []int{24})
	require.Equal(t, 8*400.0*3*4, mixed, "three rotated copies and the target")
	k, _ := LookupKind("csv")
	_, _, err = k.Data(context.Background(), &b, []int{24}, mixed/2)
	var le *LimitError
	require.True(t, errors.As(err, &le))
	require.Equal(t, mixed, le.Need)
	b.CSV.Channels = ChannelsIndependent
	require.Equal(t, 8*400.0*3, csvBytes(*b.CSV, tab, []int{24}))
}
