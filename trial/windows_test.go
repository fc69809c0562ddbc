package trial

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// TestWindowsCSV: exported windows read back to the same split, and a
// trained model scores them with the bits of the report's test metric.
func TestWindowsCSV(t *testing.T) {
	p := testkit.TinyProtocol()
	ds := testkit.MustSequence(t, p)
	var buf bytes.Buffer
	require.NoError(t, WriteWindowsCSV(&buf, &ds.Test, []string{"x"}, 0))
	head, _, _ := strings.Cut(buf.String(), "\n")
	require.True(t, strings.HasPrefix(head, "window,x.x.0,x.x.1,"))
	require.True(t, strings.HasSuffix(head, ",y.x.3,y.x.4"))
	s, ch, target, err := ReadWindowsCSV(&buf, "w.csv")
	require.NoError(t, err)
	require.Equal(t, []string{"x"}, ch)
	require.Equal(t, 0, target)
	require.Equal(t, ds.Test, *s)

	c := p.Idea[0]
	m, res, err := TrainTrial(context.Background(), p, ds, c, 1)
	require.NoError(t, err)
	got, err := Evaluate(m, s)
	require.NoError(t, err)
	require.Equal(t, res.Test, got)

	_, err = Evaluate(m, &ds.Train) // same shape: fine
	require.NoError(t, err)
	other := track.Split{T: 3, H: 1, C: 1, N: 1, X: make([]float64, 3), Y: make([]float64, 4)}
	_, err = Evaluate(m, &other)
	require.ErrorContains(t, err, "windows are T=3 H=1 C=1 but the model takes T=16 H=4 C=1")
}

func TestWindowsCSVMultichannel(t *testing.T) {
	tab, err := track.LoadCSV("../track/testdata/tiny.csv")
	require.NoError(t, err)
	ds, err := track.CSV(tab, track.CSVConfig{Path: "x", Target: "MUFL", T: 5, H: 3})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, WriteWindowsCSV(&buf, &ds.Val, []string{"HUFL", "MUFL", "OT"}, ds.Target))
	s, ch, target, err := ReadWindowsCSV(&buf, "w.csv")
	require.NoError(t, err)
	require.Equal(t, []string{"HUFL", "MUFL", "OT"}, ch)
	require.Equal(t, 1, target)
	require.Equal(t, ds.Val, *s)
}

func TestWindowsCSVErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"empty", "", "is empty"},
		{"no_window", "a,b,c\n", `header starts "a,b,c"`},
		{"bad_column", "window,x.a.0,z.a.1\n", `column "z.a.1"`},
		{"order", "window,x.a.1,x.a.0,y.a.1\n", "out of order"},
		{"no_y", "window,x.a.0,x.a.1\n", "no y columns"},
		{"target_not_input", "window,x.a.0,y.b.1\n", "target b is not among the input channels a"},
		{"no_rows", "window,x.a.0,y.a.1\n", "no windows"},
		{"bad_number", "window,x.a.0,y.a.1\n0,1,x\n", "w.csv:2: column y.a.1"},
		{"bad_index", "window,x.a.0,y.a.1\n1,1,2\n", "w.csv:2: window \"1\", want 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, _, err := ReadWindowsCSV(strings.NewReader(tc.data), "w.csv")
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestStamp: the data id changes with what chooses the windows (the data
// config) and not with the rest (grids, model); a stamped windows CSV
// reads as the same split, and its stamp reads back.
func TestStamp(t *testing.T) {
	p := testkit.TinyProtocol()
	id := p.DataID("")
	q := p
	q.Baseline = q.Baseline[:1]
	q.Arch.D *= 2
	require.Equal(t, id, q.DataID(""), "grids and model do not choose the data")
	q.Sequence.DataSeed++
	require.NotEqual(t, id, q.DataID(""))

	ds := testkit.MustSequence(t, p)
	var buf bytes.Buffer
	require.NoError(t, WriteStamp(&buf, id, "test"))
	require.NoError(t, WriteWindowsCSV(&buf, &ds.Test, []string{"x"}, 0))
	line, _, _ := strings.Cut(buf.String(), "\n")
	gotID, split, ok := ReadStamp(line)
	require.True(t, ok)
	require.Equal(t, id, gotID)
	require.Equal(t, "test", split)
	s, _, _, err := ReadWindowsCSV(&buf, "w.csv")
	require.NoError(t, err)
	require.Equal(t, ds.Test, *s)
	_, _, ok = ReadStamp("window,x.x.0")
	require.False(t, ok)
}
