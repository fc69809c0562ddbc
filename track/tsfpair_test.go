package track

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestReadTSFPair(t *testing.T) {
	train := "1,2,3.5\n\n4,5,6\n"
	test := "1;7;8\n1;9;1e-3\n"
	f, err := ReadTSFPair(context.Background(), strings.NewReader(train), strings.NewReader(test), "a.txt", "b.txt", PairConfig{Relation: "toy", Frequency: "weekly"})
	require.NoError(t, err)
	require.Equal(t, 2, f.Horizon)
	require.True(t, f.EqualLength)
	require.Len(t, f.Series, 2)
	require.Equal(t, []string{"T1"}, f.Series[0].Attrs)
	require.Equal(t, []float64{1, 2, 3.5, 7, 8}, f.Series[0].Values)
	require.Equal(t, []float64{4, 5, 6, 9, 1e-3}, f.Series[1].Values)
	require.Equal(t, 3, f.Series[1].Line, "the series' line in the in-sample file")
}

func TestReadTSFPairErrors(t *testing.T) {
	weekly := PairConfig{Relation: "toy", Frequency: "weekly"}
	for _, tc := range []struct {
		name, train, test string
		c                 PairConfig
		want              []string
	}{
		{"empty train", "", "1;2\n", weekly, []string{"a.txt: no series", `","`}},
		{"empty test", "1,2\n", "\n", weekly, []string{"b.txt: no series"}},
		{"non-numeric", "1,x,3\n", "1;2\n", weekly, []string{"a.txt:1:", "value 2", `"x"`}},
		{"nan", "1,2\n", "1;NaN\n", weekly, []string{"b.txt:1:", "value 1", "finite"}},
		{"test without values", "1,2\n", "1\n", weekly, []string{"b.txt:1:", "no value after the first 1"}},
		{"line counts", "1,2\n3,4\n", "1;2\n", weekly, []string{"a.txt has 2 series and b.txt 1"}},
		{"horizons differ", "1,2\n3,4\n", "1;2;3\n1;2\n", weekly, []string{"b.txt:2:", "1 test values where line 1 has 2"}},
		{"unknown frequency", "1,2\n", "1;2\n", PairConfig{Relation: "toy", Frequency: "fortnightly"}, []string{`"fortnightly"`}},
		{"no relation", "1,2\n", "1;2\n", PairConfig{Frequency: "weekly"}, []string{"relation", "name"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTSFPair(context.Background(), strings.NewReader(tc.train), strings.NewReader(tc.test), "a.txt", "b.txt", tc.c)
			require.Error(t, err)
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

func TestWriteTSFRoundTrip(t *testing.T) {
	in := &TSF{Relation: "toy set", Frequency: "weekly", Horizon: 2,
		Attributes: []TSFAttribute{{Name: "series_name", Type: "string"}, {Name: "start_timestamp", Type: "date"}},
		Series: []TSFSeries{
			{Attrs: []string{"A", "2020-01-05 00-00-00"}, Values: []float64{0.1, 1.0 / 3, math.NaN(), -2e-300}},
			{Attrs: []string{"B", "2020-01-12 00-00-00"}, Values: []float64{5, 6}},
		}}
	var b bytes.Buffer
	require.NoError(t, WriteTSF(&b, in, "made by a test", "line two"))
	require.True(t, strings.HasPrefix(b.String(), "# made by a test\n# line two\n@relation toy set\n"), b.String())
	out, err := ReadTSF(&b, "rt.tsf")
	require.NoError(t, err)
	require.Equal(t, in.Relation, out.Relation)
	require.Equal(t, in.Frequency, out.Frequency)
	require.Equal(t, in.Horizon, out.Horizon)
	require.Equal(t, in.Attributes, out.Attributes)
	require.True(t, out.Missing)
	require.False(t, out.EqualLength)
	require.Len(t, out.Series, 2)
	for k, s := range out.Series {
		require.Equal(t, in.Series[k].Attrs, s.Attrs)
		require.Len(t, s.Values, len(in.Series[k].Values))
		for i, v := range s.Values {
			w := in.Series[k].Values[i]
			if math.IsNaN(w) {
				require.True(t, math.IsNaN(v))
				continue
			}
			require.Equal(t, math.Float64bits(w), math.Float64bits(v), "series %d value %d", k, i)
		}
	}
}
