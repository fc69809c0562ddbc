package reference

import (
	"testing"

	"github.com/ideabench/ideabench/protocol"

	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// TestReferencesByLookBack: with a grid of two look-backs every
// reference that reads the window's length takes, test and val alike,
// the look-back of its lower val MSE, computed here from each look-back's
// own references.
func TestReferencesByLookBack(t *testing.T) {
	p := protocol.CIProfileFor("csv")
	p.CSV = &track.CSVConfig{Path: "../track/testdata/tiny.csv", Target: "OT", Features: []string{"OT"}, T: 24, H: 6}
	p.Arch.Patch = 4
	c := p.Baseline[0]
	c.Context = 12
	p.Baseline = append(p.Baseline, c)
	d, err := p.Data()
	require.NoError(t, err)
	require.Equal(t, []int{12, 24}, p.Contexts())
	got, err := References(d.Dataset, p.Contexts())
	require.NoError(t, err)
	at := map[int]*Forecasters{}
	for _, k := range []int{12, 24} {
		at[k], err = forecasters(d.Dataset.At(k))
		require.NoError(t, err)
	}
	for _, name := range []string{"linear_ar", "linear_centred"} {
		v12, _ := at[12].ValMSE(name)
		v24, _ := at[24].ValMSE(name)
		want := 12
		if v24 < v12 {
			want = 24
		}
		require.Equal(t, want, got.Contexts[name], name)
		gv, _ := got.ValMSE(name)
		wv, _ := at[want].ValMSE(name)
		require.Equal(t, wv, gv, name)
	}
	require.Equal(t, at[got.Contexts["linear_ar"]].LinearAR, got.LinearAR)
	require.Equal(t, *at[got.Contexts["linear_centred"]].LinearCentred, *got.LinearCentred)
	// Persistence does not read the look-back: the same at both.
	require.Equal(t, at[12].Persistence, got.Persistence)
	require.Equal(t, at[24].Persistence, got.Persistence)
}
