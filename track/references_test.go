package track

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReferencesByLookBack: with a grid of two look-backs every
// reference that reads the window's length takes, test and val alike,
// the look-back of its lower val MSE, computed here from each look-back's
// own references.
func TestReferencesByLookBack(t *testing.T) {
	tab, err := LoadCSV("testdata/tiny.csv")
	require.NoError(t, err)
	c := CSVConfig{Path: "testdata/tiny.csv", Target: "OT", Features: []string{"OT"}, T: 24, H: 6}
	ds, err := CSV(tab, c)
	require.NoError(t, err)
	c.T = 12
	o, err := CSV(tab, c)
	require.NoError(t, err)
	ds.Other = map[int]*Dataset{12: o}
	got, err := References(ds, []int{12, 24})
	require.NoError(t, err)
	at := map[int]*Forecasters{}
	for _, k := range []int{12, 24} {
		at[k], err = forecasters(ds.At(k))
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
