package track

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadTSF: the tiny file's header, attributes, series (unequal
// lengths, a missing value as NaN) and digest.
func TestReadTSF(t *testing.T) {
	f, err := LoadTSF(filepath.Join("testdata", "tiny.tsf"))
	require.NoError(t, err)
	require.Equal(t, "Tiny", f.Relation)
	require.Equal(t, "weekly", f.Frequency)
	require.Equal(t, 2, f.Horizon)
	require.True(t, f.Missing)
	require.False(t, f.EqualLength)
	require.Equal(t, []TSFAttribute{{"series_name", "string"}, {"start_timestamp", "date"}}, f.Attributes)
	require.Len(t, f.Series, 3)
	require.Equal(t, []string{"S2", "2020-01-12 00-00-00"}, f.Series[1].Attrs)
	require.Equal(t, 12, f.Series[1].Line)
	require.Equal(t, []float64{1, 2, 3, 4, 5, 6}, f.Series[0].Values)
	require.Equal(t, 10.5, f.Series[1].Values[0])
	require.True(t, math.IsNaN(f.Series[1].Values[1]))
	require.Equal(t, 1, f.Series[1].Missing())
	require.Equal(t, []float64{-10, 0, 1, 2, 3, 4, 5}, f.Series[2].Values)
	require.Len(t, f.SHA256, 64)
	require.Empty(t, f.Notes)
}

// TestReadTSFErrors: each malformed input fails with an error naming
// the file, the line and the field, and saying what to fix.
func TestReadTSFErrors(t *testing.T) {
	const head = "@relation R\n@attribute series_name string\n@attribute start_timestamp date\n@horizon 2\n@missing false\n@equallength true\n@data\n"
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"empty", "", []string{"x.tsf: no @attribute and no @data line"}},
		{"no data tag", "@relation R\n@attribute series_name string\nS1:1,2,3\n", []string{"x.tsf:3:", "a series line before @data"}},
		{"missing data tag at end", "@relation R\n@attribute series_name string\n", []string{"x.tsf: no @data line"}},
		{"no series", head, []string{"@data is followed by no series"}},
		{"data before attributes", "@relation R\n@data\nS1:1,2\n", []string{"x.tsf:2:", "@data before any @attribute"}},
		{"attribute count", "@attribute series_name\n@data\n", []string{"x.tsf:1:", "@attribute takes 2 value(s), the line has 1"}},
		{"attribute type", "@attribute series_name text\n@data\n", []string{"x.tsf:1:", `type "text"`, "string, numeric or date"}},
		{"horizon", "@horizon eight\n@attribute a string\n@data\nS:1\n", []string{"x.tsf:1:", `@horizon "eight"`, "whole number"}},
		{"missing flag", "@missing maybe\n", []string{"x.tsf:1:", `@missing "maybe"`, "true or false"}},
		{"truncated line", head + "S1:2020-01-05 00-00-00:1,2\nS2:2020-01-05 00-00-00\n", []string{"x.tsf:9:", "2 field(s) separated by ':', want 3", "series_name, start_timestamp", "truncated"}},
		{"too many fields", head + "S1:2020-01-05 00-00-00:1,2:3\n", []string{"x.tsf:8:", "4 field(s)", "too many fields"}},
		{"no values", head + "S1:2020-01-05 00-00-00:\n", []string{"x.tsf:8:", `series "S1" has no values`}},
		{"non-numeric value", head + "S1:2020-01-05 00-00-00:1,2,x3\n", []string{"x.tsf:8:", `value 3 of series "S1"`, `"x3" is not a decimal number`}},
		{"nan value", head + "S1:2020-01-05 00-00-00:1,NaN\n", []string{"x.tsf:8:", `value 2 of series "S1"`}},
		{"bad date", head + "S1:2020-01-05:1,2\n", []string{"x.tsf:8:", `attribute start_timestamp = "2020-01-05"`, "YYYY-MM-DD hh-mm-ss"}},
		{"bad numeric", "@attribute id numeric\n@data\nx1:1,2\n", []string{"x.tsf:3:", `attribute id = "x1"`, "whole number"}},
		{"missing under false", head + "S1:2020-01-05 00-00-00:1,?\n", []string{"x.tsf:8:", `series "S1" has 1 missing value(s)`, "@missing true"}},
		{"all missing", "@attribute a string\n@data\nS1:?,?\n", []string{"x.tsf:3:", "no value present"}},
		{"wrong count", head + "S1:2020-01-05 00-00-00:1,2,3\nS2:2020-01-05 00-00-00:1,2\n", []string{"x.tsf:9:", "2 values where the series of line 8 has 3", "@equallength false"}},
		{"header after data", head + "S1:2020-01-05 00-00-00:1,2\n@horizon 3\n", []string{"x.tsf:9:", "after @data"}},
		{"attribute twice", "@attribute a string\n@attribute a date\n", []string{"x.tsf:2:", "given twice"}},
		// The archive's evaluation groups values by series_name: two
		// lines of one name would be one series there.
		{"name twice", head + "S1:2020-01-05 00-00-00:1,2\nS2:2020-01-05 00-00-00:3,4\nS1:2020-01-12 00-00-00:5,6\n", []string{"x.tsf:10:", `series "S1" (attribute series_name)`, "the series of line 8", "its own name"}},
		// Without series_name, the first string attribute names them.
		{"name twice, first string attribute", "@attribute start date\n@attribute id string\n@data\n2020-01-05 00-00-00:A:1,2\n2020-01-05 00-00-00:A:3\n", []string{"x.tsf:5:", `series "A" (attribute id)`, "line 4"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTSF(strings.NewReader(tc.in), "x.tsf")
			require.Error(t, err)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
		})
	}
}

// TestReadTSFLenient: what the format leaves open is read: an unknown
// @-line is noted and skipped, a file without @missing or @equallength
// takes them from its series, a relation's name may hold spaces, and
// a file that ends without a line break reads whole.
func TestReadTSFLenient(t *testing.T) {
	f, err := ReadTSF(strings.NewReader("@relation My Data\n@source somewhere\n@attribute a string\n@data\nA:1,?\nB:1,2,3"), "y.tsf")
	require.NoError(t, err)
	require.Equal(t, "My Data", f.Relation)
	require.True(t, f.Missing)
	require.False(t, f.EqualLength)
	require.Len(t, f.Notes, 1)
	require.Contains(t, f.Notes[0], "y.tsf:2:")
	require.Equal(t, []float64{1, 2, 3}, f.Series[1].Values)
}

// TestReadTSFNames: a series is named by its series_name attribute,
// else by its first string attribute, else by its first attribute; a
// date or a number names none, so series may share one.
func TestReadTSFNames(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"series_name after another string", "@attribute kind string\n@attribute series_name string\n@data\nx:A:1\nx:B:2\n", []string{"A", "B"}},
		{"first string attribute", "@attribute start date\n@attribute id string\n@data\n2020-01-05 00-00-00:A:1\n2020-01-05 00-00-00:B:2\n", []string{"A", "B"}},
		{"dates only", "@attribute start date\n@data\n2020-01-05 00-00-00:1\n2020-01-05 00-00-00:2\n", []string{"2020-01-05 00-00-00", "2020-01-05 00-00-00"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ReadTSF(strings.NewReader(tc.in), "n.tsf")
			require.NoError(t, err)
			var got []string
			for _, s := range f.Series {
				got = append(got, f.SeriesName(s))
			}
			require.Equal(t, tc.want, got)
		})
	}
}

// TestLoadTSFHeader: the header alone is read, with its checks, and
// reading stops at @data (the series after it are not looked at).
func TestLoadTSFHeader(t *testing.T) {
	f, err := LoadTSFHeader(filepath.Join("testdata", "tiny.tsf"))
	require.NoError(t, err)
	require.Equal(t, 2, f.Horizon)
	require.Equal(t, "weekly", f.Frequency)
	require.Len(t, f.Attributes, 2)
	require.Empty(t, f.Series)
	require.Empty(t, f.SHA256, "no digest of a part of the file")
	dir := t.TempDir()
	for _, tc := range []struct{ name, in, err string }{
		{"series not read", "@attribute a string\n@horizon 3\n@data\nnot a series\n", ""},
		{"bad horizon", "@attribute a string\n@horizon x\n@data\n", `h.tsf:2: @horizon "x"`},
		{"no data", "@attribute a string\n", "h.tsf: no @data line"},
		{"not tsf", "date,OT\n2020-01-01,1\n", "h.tsf:1: a series line before @data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "h.tsf")
			require.NoError(t, os.WriteFile(path, []byte(tc.in), 0o644))
			f, err := LoadTSFHeader(path)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, 3, f.Horizon)
		})
	}
}

// TestReadTSFStops: a done context stops the reading with its error,
// and a path that is no file is an error naming it.
func TestReadTSFStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	raw, err := os.ReadFile(filepath.Join("testdata", "tiny.tsf"))
	require.NoError(t, err)
	_, err = ReadTSFContext(ctx, strings.NewReader(string(raw)), "z.tsf")
	require.ErrorIs(t, err, context.Canceled)
	_, err = LoadTSF(filepath.Join(t.TempDir(), "absent.tsf"))
	require.ErrorContains(t, err, "absent.tsf")
}
