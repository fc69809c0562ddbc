package track

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// tinyCSV generates the ETT-like file of testdata/tiny.csv: hourly rows
// from 2016-07-01 00:00:00 with a daily cycle, a slow trend and noise in
// two load columns and the target OT, which lags them.
func tinyCSV(rows int) []byte {
	r := rand.New(rand.NewPCG(6, 6))
	var b bytes.Buffer
	b.WriteString("date,HUFL,MUFL,OT\n")
	t0 := time.Date(2016, 7, 1, 0, 0, 0, 0, time.UTC)
	prev := 0.0
	for i := range rows {
		day := math.Sin(2 * math.Pi * float64(i) / 24)
		hufl := 5 + 2*day + 0.3*r.NormFloat64()
		mufl := 1.5 + 0.5*math.Cos(2*math.Pi*float64(i)/24) + 0.2*r.NormFloat64()
		ot := 0.8*prev + 0.2*(20+3*day) + 0.01*float64(i) + 0.5*r.NormFloat64()
		if i == 0 {
			ot = 20
		}
		prev = ot
		f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
		fmt.Fprintf(&b, "%s,%s,%s,%s\n", t0.Add(time.Duration(i)*time.Hour).Format("2006-01-02 15:04:05"), f(hufl), f(mufl), f(ot))
	}
	return b.Bytes()
}

const tinyRows = 400

// TestTinyCSVFile: the shipped file is what tinyCSV generates, so it can
// be regenerated and reviewed.
func TestTinyCSVFile(t *testing.T) {
	got, err := os.ReadFile("testdata/tiny.csv")
	require.NoError(t, err)
	require.Equal(t, string(tinyCSV(tinyRows)), string(got), "regenerate testdata/tiny.csv from tinyCSV(%d)", tinyRows)
}

func TestReadCSV(t *testing.T) {
	tab, err := LoadCSV("testdata/tiny.csv")
	require.NoError(t, err)
	require.Equal(t, []string{"HUFL", "MUFL", "OT"}, tab.Columns)
	require.Equal(t, tinyRows, tab.Rows())
	require.Len(t, tab.Values, tinyRows*3)
	require.Equal(t, time.Date(2016, 7, 1, 1, 0, 0, 0, time.UTC), tab.Times[1])
	require.Equal(t, 20.0, tab.Values[2], "row 0, OT")
	raw, _ := os.ReadFile("testdata/tiny.csv")
	require.Len(t, tab.SHA256, 64)
	again, err := ReadCSV(bytes.NewReader(raw), "x")
	require.NoError(t, err)
	require.Equal(t, tab.SHA256, again.SHA256)
	raw[len(raw)-2] ^= 1 // another last digit: another file
	other, err := ReadCSV(bytes.NewReader(raw), "x")
	require.NoError(t, err)
	require.NotEqual(t, tab.SHA256, other.SHA256)
}

func TestReadCSVErrors(t *testing.T) {
	const head = "date,A,OT\n"
	for _, tc := range []struct {
		name, data string
		want       []string
	}{
		{"empty", "", []string{"f.csv is empty"}},
		{"header_only", head, []string{"no rows"}},
		{"one_column", "date\n2016-07-01 00:00:00\n", []string{"header has 1 column"}},
		{"duplicate_column", "date,A,A\n", []string{`"A" appears twice`}},
		{"non_numeric", head + "2016-07-01 00:00:00,1,2\n2016-07-01 01:00:00,x1,2\n", []string{"f.csv:3", "column A", `"x1" is not a finite decimal number`}},
		{"empty_cell", head + "2016-07-01 00:00:00,1,\n", []string{"f.csv:2", "column OT", `"" is not a finite decimal number`}},
		{"nan_cell", head + "2016-07-01 00:00:00,NaN,1\n", []string{"column A", "NaN"}},
		// Go syntax that strconv.ParseFloat takes is not a number of a CSV file.
		{"digit_separator", head + "2016-07-01 00:00:00,1_000,1\n", []string{"f.csv:2", "column A", `"1_000" is not a finite decimal number`}},
		{"hex_float", head + "2016-07-01 00:00:00,0x1p3,1\n", []string{"f.csv:2", `"0x1p3" is not a finite decimal number`}},
		{"beyond_float64", head + "2016-07-01 00:00:00,1e309,1\n", []string{"f.csv:2", `"1e309"`}},
		{"bad_time", head + "yesterday,1,2\n", []string{"f.csv:2", "column date", `"yesterday" is not a timestamp`}},
		{"decreasing_time", head + "2016-07-01 01:00:00,1,2\n2016-07-01 00:00:00,1,2\n", []string{"f.csv:3", "is before the previous row's 2016-07-01 01:00:00", "sort the file"}},
		{"ragged", head + "2016-07-01 00:00:00,1\n", []string{"f.csv:2", "2 fields, the header has 3"}},
		// Bounds: a line without a break (a device, a binary file) stops
		// at MaxLineBytes, naming its line; a long cell is quoted by its
		// first bytes only.
		{"long_header", strings.Repeat("\x00", MaxLineBytes+1), []string{"f.csv:1: a line of more than 4194304 bytes (4 MiB)", "check the path"}},
		{"long_line", head + "2016-07-01 00:00:00,1,2\n" + strings.Repeat("9", MaxLineBytes+10), []string{"f.csv:3: a line of more than"}},
		{"line_at_bound", head + "2016-07-01 00:00:00,1," + strings.Repeat("9", MaxLineBytes-22) + "\n", []string{"f.csv:2", "column OT: a cell of 4194282 bytes, over the 1024", `"9999999999999999999999999999999999999999"… (4194282 bytes)`}},
		{"long_cell", head + "2016-07-01 00:00:00,1," + strings.Repeat("x", 2000) + "\n", []string{"f.csv:2", "column OT: a cell of 2000 bytes", `"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… (2000 bytes)`}},
		{"long_bad_number", head + "2016-07-01 00:00:00,1," + strings.Repeat("1", 100) + "x\n", []string{"f.csv:2", "column OT", `"1111111111111111111111111111111111111111"… (101 bytes) is not a finite decimal number`}},
		{"long_bad_time", head + strings.Repeat("y", 500) + ",1,2\n", []string{"f.csv:2", `"yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"… (500 bytes) is not a timestamp`}},
		{"long_column_name", "date," + strings.Repeat("c", 1025) + "\n", []string{"f.csv:1: header column 2: a cell of 1025 bytes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadCSV(strings.NewReader(tc.data), "f.csv")
			require.Error(t, err)
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestReadCSVStops: loading stops once its context is done, with an
// error naming the file that wraps the context's; a device that never
// ends is refused at the first MaxLineBytes.
func TestReadCSVStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := &cancelAfter{n: 1 << 20, cancel: cancel, r: strings.NewReader(string(tinyCSV(100000)))}
	_, err := ReadCSVContext(ctx, r, "f.csv")
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorContains(t, err, "track: f.csv: reading stopped at line ")
	require.Less(t, r.read, 2<<20, "stopped within a buffer or two of the cancel")
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err = LoadCSVContext(context.Background(), "/dev/zero")
	require.ErrorContains(t, err, "track: /dev/zero:1: a line of more than 4194304 bytes")
}

// cancelAfter reads r and calls cancel once n bytes are read.
type cancelAfter struct {
	r      io.Reader
	n      int
	read   int
	cancel func()
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if c.read += n; c.read >= c.n {
		c.cancel()
	}
	return n, err
}

func TestCSVTrack(t *testing.T) {
	tab, err := LoadCSV("testdata/tiny.csv")
	require.NoError(t, err)
	c := CSVConfig{Path: "testdata/tiny.csv", Target: "OT", T: 24, H: 6}
	ds, err := CSV(tab, c)
	require.NoError(t, err)
	// fractions: train rows [0,280), val [280,320), test [320,400).
	a, b, e := 280, 320, 400
	require.Equal(t, a-24-6+1, ds.Train.N)
	require.Equal(t, b-a-6+1, ds.Val.N)
	require.Equal(t, e-b-6+1, ds.Test.N)
	require.Equal(t, 3, ds.Train.C)
	require.Equal(t, 2, ds.Target, "OT is the third column")

	// Normalization from the train rows only: mean 0, std 1 there.
	for ch := range 3 {
		var s, ss float64
		for i := range a {
			v := (tab.Values[i*3+ch] - ds.Norm.Mean[ch]) / ds.Norm.Std[ch]
			s += v
			ss += v * v
		}
		require.InDelta(t, 0, s/float64(a), 1e-12)
		require.InDelta(t, 1, ss/float64(a), 1e-12)
	}
	z := func(row, ch int) float64 { return (tab.Values[row*3+ch] - ds.Norm.Mean[ch]) / ds.Norm.Std[ch] }
	// The first val window's context is the last T train rows; its first
	// evaluation target is row a, the first val row.
	x, y := ds.Val.Window(0)
	require.Equal(t, z(a-24, 0), x[0])
	require.Equal(t, z(a-1, 2), x[23*3+2])
	require.Equal(t, z(a, 2), y[24])
	// The last test window ends on the last row.
	_, y = ds.Test.Window(ds.Test.N - 1)
	require.Equal(t, z(e-1, 2), y[len(y)-1])

	// Hourly rows: the seasonal period is a day.
	require.Equal(t, 24, ds.Period)

	// Features subset: the target is added as an input; an explicit
	// period wins over the step's.
	ds, err = CSV(tab, CSVConfig{Path: "p", Target: "OT", Features: []string{"HUFL"}, T: 24, H: 6, Period: 12})
	require.NoError(t, err)
	require.Equal(t, 2, ds.Train.C)
	require.Equal(t, 1, ds.Target)
	require.Equal(t, 12, ds.Period)
}

func TestPeriodOf(t *testing.T) {
	for step, want := range map[time.Duration]int{
		time.Hour: 24, 15 * time.Minute: 96, 24 * time.Hour: 7, time.Minute: 0, 2 * time.Hour: 0,
	} {
		require.Equal(t, want, PeriodOf(step), "%v", step)
	}
}

func TestCSVTrackErrors(t *testing.T) {
	tab, err := LoadCSV("testdata/tiny.csv")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		c    CSVConfig
		want string
	}{
		{"missing_target", CSVConfig{Path: "p", Target: "TEMP", T: 24, H: 6}, `no column "TEMP"; its columns are HUFL, MUFL, OT`},
		{"missing_feature", CSVConfig{Path: "p", Target: "OT", Features: []string{"LULL"}, T: 24, H: 6}, `no column "LULL"`},
		{"too_few_rows", CSVConfig{Path: "p", Target: "OT", T: 24, H: 96}, "the val split (fractions) has 40 rows"},
		{"ett_too_short", CSVConfig{Path: "p", Target: "OT", T: 24, H: 6, Split: "ett-hour"}, "has 400 rows; split ett-hour needs 14400"},
		{"bad_t", CSVConfig{Path: "p", Target: "OT", T: 0, H: 6}, "csv.t = 0 must be >= 1"},
		{"bad_split", CSVConfig{Path: "p", Target: "OT", T: 4, H: 6, Split: "random"}, `csv.split = "random" is unknown`},
		{"bad_fractions", CSVConfig{Path: "p", Target: "OT", T: 4, H: 6, TrainFrac: 0.9, ValFrac: 0.2}, "their sum < 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CSV(tab, tc.c)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// ettPath is ETTh1 next to the checkout, when present.
var ettPath = filepath.Join("..", "..", "shared", "data", "ETT-small", "ETTh1.csv")

// TestETTh1: the common ETTh1 protocol at input 96, horizon 96: 8449 |
// 2785 | 2785 windows (the split sizes published with the data set's
// benchmarks), train statistics only, and the reference forecasters.
func TestETTh1(t *testing.T) {
	if _, err := os.Stat(ettPath); err != nil {
		t.Skipf("ETTh1 not present at %s: %v", ettPath, err)
	}
	tab, err := LoadCSV(ettPath)
	require.NoError(t, err)
	require.Equal(t, []string{"HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT"}, tab.Columns)
	require.Equal(t, 17420, tab.Rows())
	ds, err := CSV(tab, CSVConfig{Path: ettPath, Target: "OT", T: 96, H: 96})
	require.NoError(t, err)
	require.Equal(t, [3]int{8449, 2785, 2785}, [3]int{ds.Train.N, ds.Val.N, ds.Test.N})
	require.Equal(t, 7, ds.Train.C)
	require.Equal(t, 6, ds.Target)
	p := Persistence(&ds.Test, ds.Target)
	tr, te := Univariate(&ds.Train, ds.Target), Univariate(&ds.Test, ds.Target)
	lin, err := FitLinear(&tr)
	require.NoError(t, err)
	l := lin.MSE(&te)
	t.Logf("ETTh1 OT, 96 -> 96, normalized test MSE: persistence %.4f, per-channel linear %.4f", p, l)
	require.Less(t, l, p, "the linear map beats repeating the last value")
}

// FuzzReadCSV: ReadCSV never panics; every error names the file; an
// accepted table is consistent (strictly increasing times, finite values,
// one value per column and row) and builds a track or fails with an error.
//
//	go test -run '^$' -fuzz '^FuzzReadCSV$' -fuzztime 60s ./track/
func FuzzReadCSV(f *testing.F) {
	f.Add(tinyCSV(40))
	f.Add([]byte("date,A,OT\n2016-07-01 00:00:00,1,2\n2016-07-01 01:00:00,x,2\n"))
	f.Add([]byte("date,A,OT\n2016-07-01 01:00:00,1,2\n2016-07-01 00:00:00,1,2\n"))
	f.Add([]byte("date,A\n2016-07-01,1e309\n"))
	f.Add([]byte("date,\"A\nB\",OT\n2016-07-01T00:00:00Z,1,2\n"))
	f.Fuzz(func(t *testing.T, raw []byte) {
		tab, err := ReadCSV(bytes.NewReader(raw), "fuzz.csv")
		if err != nil {
			require.ErrorContains(t, err, "fuzz.csv")
			return
		}
		require.Len(t, tab.Values, tab.Rows()*len(tab.Columns))
		for i := 1; i < tab.Rows(); i++ {
			require.True(t, tab.Times[i].After(tab.Times[i-1]))
		}
		for _, v := range tab.Values {
			require.False(t, math.IsNaN(v) || math.IsInf(v, 0))
		}
		ds, err := CSV(tab, CSVConfig{Path: "fuzz.csv", Target: tab.Columns[len(tab.Columns)-1], T: 2, H: 1})
		if err == nil {
			require.Positive(t, ds.Test.N)
		}
	})
}

// TestCSVOverflow: a column whose squares overflow float64 is named as
// such, not as constant.
func TestCSVOverflow(t *testing.T) {
	var b strings.Builder
	b.WriteString("date,A,OT\n")
	for i := range 200 {
		fmt.Fprintf(&b, "2016-07-01 %02d:%02d:00,%de306,%d\n", i/60, i%60, 1+i%9, i%7)
	}
	tab, err := ReadCSV(strings.NewReader(b.String()), "big.csv")
	require.NoError(t, err)
	_, err = CSV(tab, CSVConfig{Path: "big.csv", Target: "OT", T: 8, H: 2})
	require.ErrorContains(t, err, "column A overflows float64 when standardized")
	require.NotContains(t, err.Error(), "constant")
}

// TestFractionsSplit: the 70/10/20 split cuts rows as the LTSF loaders
// do, train = int(0.7n), test = int(0.2n), val the rest: ILI's 966 rows
// give 676/97/193, weather's 52696 give 36887/5270/10539.
func TestFractionsSplit(t *testing.T) {
	for _, tc := range []struct {
		n, train, val, test int
	}{
		{966, 676, 97, 193},
		{52696, 36887, 5270, 10539},
		{1000, 700, 100, 200}, // 0.2n whole: not one row short
		{17420, 12194, 1742, 3484},
	} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			tab := &Table{Name: "f.csv", Times: make([]time.Time, tc.n)}
			for i := range tab.Times {
				tab.Times[i] = time.Unix(int64(i)*600, 0)
			}
			a, b, e, split, err := CSVConfig{Split: "fractions"}.borders(tab)
			require.NoError(t, err)
			require.Equal(t, "fractions", split)
			require.Equal(t, []int{tc.train, tc.val, tc.test}, []int{a, b - a, e - b})
		})
	}
}

// TestReadCSVRowsAsUsersHaveThem: a repeated timestamp and a gap are kept
// with a note (windows are cut by rows), slashed spreadsheet dates parse,
// weekly dates across months are no gap, and a decreasing timestamp is
// still an error.
func TestReadCSVRowsAsUsersHaveThem(t *testing.T) {
	const head = "date,A,OT\n"
	for _, tc := range []struct {
		name, data string
		rows       int
		notes      []string
	}{
		{"repeat", head + "2020-05-12 05:50:00,1,2\n2020-05-12 06:00:00,1,2\n2020-05-12 06:00:00,1,2\n2020-05-12 06:10:00,1,2\n", 4,
			[]string{"f.csv:4 repeats the timestamp 2020-05-12 06:00:00 of the row before; both rows are kept"}},
		{"gap", head + "2020-01-01 00:00:00,1,2\n2020-01-01 00:10:00,1,2\n2020-01-01 01:50:00,1,2\n", 3,
			[]string{"f.csv:4 comes 1h40m0s after the row before, not the file's step of 10m0s: a gap"}},
		{"slashed", head + "1990/1/1 0:00,1,2\n1990/1/1 1:00,1,2\n1990/1/1 2:00,1,2\n", 3, nil},
		{"weekly", head + "2002-12-24,1,2\n2002-12-31,1,2\n2003-01-07,1,2\n", 3, nil},
		// The step is the most common one, not the first: a repeat at the
		// start does not make every later row a gap.
		{"repeat_first", head + "2020-01-01 00:00:00,1,2\n2020-01-01 00:00:00,1,2\n2020-01-01 00:10:00,1,2\n2020-01-01 00:20:00,1,2\n", 4,
			[]string{"f.csv:3 repeats the timestamp"}},
		// Months vary in length; a missing month is a gap.
		{"monthly", head + "2020-01-01,1,2\n2020-02-01,1,2\n2020-03-01,1,2\n2020-04-01,1,2\n2020-06-01,1,2\n", 5,
			[]string{"f.csv:6 comes 1464h0m0s after the row before, not the file's step of 744h0m0s"}},
		// Months written as YYYY-MM, quoted, as time-series libraries
		// publish them (the sunspot series).
		{"year_month", "\"Month\",\"Sunspots\"\n\"1749-01\",58.0\n\"1749-02\",62.6\n\"1749-03\",70.0\n", 3, nil},
		// A missing day of daily data is a gap.
		{"daily_gap", head + "2020-01-01,1,2\n2020-01-02,1,2\n2020-01-03,1,2\n2020-01-05,1,2\n", 4, []string{"f.csv:5 comes 48h0m0s after"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := ReadCSV(strings.NewReader(tc.data), "f.csv")
			require.NoError(t, err)
			require.Equal(t, tc.rows, tab.Rows())
			require.Len(t, tab.Notes, len(tc.notes))
			for i, n := range tc.notes {
				require.Contains(t, tab.Notes[i], n)
			}
		})
	}
	_, err := ReadCSV(strings.NewReader(head+"2020-01-01 01:00:00,1,2\n2020-01-01 00:00:00,1,2\n"), "f.csv")
	require.ErrorContains(t, err, "f.csv:3: timestamp 2020-01-01 00:00:00 is before the previous row's")
}

// TestCSVIndependent: channels "independent" stacks every feature column
// as its own series, normalized by its train rows, in the series layout.
func TestCSVIndependent(t *testing.T) {
	tab, err := LoadCSV("testdata/tiny.csv")
	require.NoError(t, err)
	ds, err := CSV(tab, CSVConfig{Path: "testdata/tiny.csv", Channels: ChannelsIndependent, T: 24, H: 6})
	require.NoError(t, err)
	a, b, e := 280, 320, 400
	per := [3]int{a - 24 - 6 + 1, b - a - 6 + 1, e - b - 6 + 1}
	require.Equal(t, []string{"HUFL", "MUFL", "OT"}, ds.Series)
	for k, s := range []*Split{&ds.Train, &ds.Val, &ds.Test} {
		require.Equal(t, 1, s.C)
		require.Equal(t, per[k], s.Per)
		require.Equal(t, 3*per[k], s.N)
		require.Equal(t, 3, s.Series())
	}
	z := func(row, ch int) float64 { return (tab.Values[row*3+ch] - ds.Norm.Mean[ch]) / ds.Norm.Std[ch] }
	// Window i of channel ch of val starts T rows before the val region.
	for ch := range 3 {
		x, y := ds.Val.Window(ch*per[1] + 5)
		require.Equal(t, z(a-24+5, ch), x[0])
		require.Equal(t, z(a+5, ch), y[24], "first target of channel %d", ch)
	}
	_, y := ds.Test.Window(ds.Test.N - 1)
	require.Equal(t, z(e-1, 2), y[len(y)-1])
	// A target is optional, and must exist when given.
	_, err = CSV(tab, CSVConfig{Path: "p", Channels: ChannelsIndependent, Target: "nope", T: 24, H: 6})
	require.ErrorContains(t, err, "nope")
	_, err = CSV(tab, CSVConfig{Path: "p", Channels: "all", T: 24, H: 6})
	require.ErrorContains(t, err, "csv.channels")
}

// TestCSVContextsShareTargets: the same file cut at two look-backs
// forecasts the same val and test targets, window for window (the
// longer look-back's inputs reach further back), so test MSEs compare
// across look-backs.
func TestCSVContextsShareTargets(t *testing.T) {
	tab, err := LoadCSV("testdata/tiny.csv")
	require.NoError(t, err)
	for _, ch := range []string{"", ChannelsIndependent} {
		t.Run("channels="+ch, func(t *testing.T) {
			short, err := CSV(tab, CSVConfig{Path: "p", Target: "OT", Channels: ch, T: 12, H: 6})
			require.NoError(t, err)
			long, err := CSV(tab, CSVConfig{Path: "p", Target: "OT", Channels: ch, T: 36, H: 6})
			require.NoError(t, err)
			for _, pair := range [][2]*Split{{&short.Val, &long.Val}, {&short.Test, &long.Test}} {
				a, b := pair[0], pair[1]
				require.Equal(t, a.N, b.N)
				for n := range a.N {
					_, ya := a.Window(n)
					_, yb := b.Window(n)
					require.Equal(t, ya[a.T:], yb[b.T:], "window %d", n)
					require.Equal(t, ya[:a.T], yb[b.T-a.T:b.T], "window %d: the shorter inputs end the longer ones", n)
				}
			}
			require.Greater(t, short.Train.N, long.Train.N, "a longer look-back leaves fewer train windows")
		})
	}
}

// TestCSVMixed: channels "mixed" gives every column's windows all the
// columns, that column first and the others after it in file order,
// wrapping round; the target is the first channel.
func TestCSVMixed(t *testing.T) {
	tab, err := LoadCSV("testdata/tiny.csv")
	require.NoError(t, err)
	ds, err := CSV(tab, CSVConfig{Path: "p", Channels: ChannelsMixed, T: 24, H: 6})
	require.NoError(t, err)
	a := 280
	per := 320 - a - 6 + 1
	require.Equal(t, []string{"HUFL", "MUFL", "OT"}, ds.Series)
	require.Equal(t, 3, ds.Val.C)
	require.Equal(t, 3*per, ds.Val.N)
	require.Equal(t, 0, ds.Target)
	z := func(row, ch int) float64 { return (tab.Values[row*3+ch] - ds.Norm.Mean[ch]) / ds.Norm.Std[ch] }
	for k := range 3 {
		x, y := ds.Val.Window(k*per + 5)
		for j := range 3 {
			require.Equal(t, z(a-24+5, (k+j)%3), x[j], "series %d, input channel %d", k, j)
			require.Equal(t, z(a-24+5+23, (k+j)%3), x[23*3+j])
		}
		require.Equal(t, z(a+5, k), y[24], "the first target is column %d", k)
		require.Equal(t, x[23*3], y[23], "y's inputs are the first channel")
	}
	// Its target series is the same as channels "independent"'s.
	ind, err := CSV(tab, CSVConfig{Path: "p", Channels: ChannelsIndependent, T: 24, H: 6})
	require.NoError(t, err)
	require.Equal(t, ind.Test.Y, TargetSeries(&ds.Test).Y)
}
