package track

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/ideabench/ideabench/internal/num"
)

// Table is a time-indexed CSV file: a header, then one row per time step
// with a timestamp in the first column and numbers in the others.
type Table struct {
	// Name is the file the table came from, for messages.
	Name string
	// Columns names the numeric columns (the header without its first
	// cell). (C)
	Columns []string
	// Times holds each row's timestamp, increasing; a row may repeat the
	// one before (Notes say so). (L)
	Times []time.Time
	// Values holds the numbers row-major: row i, column c is
	// Values[i*len(Columns)+c]. (L,C)
	Values []float64
	// SHA256 is the hex SHA-256 of the file's bytes: trial ids include
	// it, so results on other data are never reused.
	SHA256 string
	// Notes say what about the rows a user should know but that does not
	// stop the file being used: a repeated timestamp, a gap in the step.
	// Windows are cut by rows, as the forecasting literature's loaders
	// cut them, so both are kept as they are.
	Notes []string
}

// Rows is the number of time steps.
func (t *Table) Rows() int { return len(t.Times) }

// Column returns the index of the named column, or an error listing the
// columns there are.
func (t *Table) Column(name string) (int, error) {
	if i := slices.Index(t.Columns, name); i >= 0 {
		return i, nil
	}
	return 0, fmt.Errorf("track: %s has no column %q; its columns are %s", t.Name, name, strings.Join(t.Columns, ", "))
}

// timeLayouts are the timestamp formats ReadCSV accepts, tried in order:
// ISO dates with or without a time, and the slashed dates a spreadsheet
// writes (1990/1/1 0:00).
var timeLayouts = []string{
	"2006-01-02 15:04:05",
	"2006-01-02 15:04",
	time.RFC3339Nano,
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02",
	"2006-01", // monthly rows
	"2006/1/2 15:04:05",
	"2006/1/2 15:04",
	"2006/1/2",
}

func parseTime(s string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// Bounds of a CSV file's lines and cells: far beyond any time-indexed
// file of numbers (the widest LTSF file, weather's 21 columns, has lines
// of under 200 bytes), close enough that a wrong path (a device such as
// /dev/zero, a binary file) fails at once instead of filling the memory.
const (
	MaxLineBytes = 4 << 20 // a line, up to its line break
	MaxCellBytes = 1 << 10 // a cell: a number, a timestamp or a column name
)

// ReadCSV is ReadCSVContext without a context.
func ReadCSV(r io.Reader, name string) (*Table, error) {
	return ReadCSVContext(context.Background(), r, name)
}

// ReadCSVContext parses a time-indexed CSV (such as the ETT-small files:
// date,HUFL,HULL,MUFL,MULL,LUFL,LULL,OT). The first row is the header; the
// first column holds timestamps (YYYY-MM-DD hh:mm[:ss], RFC 3339,
// YYYY-MM-DD, YYYY-MM, or YYYY/M/D [h:mm[:ss]]), never decreasing (a repeated
// timestamp or a gap is kept and noted, Table.Notes); every other cell is
// a finite decimal number. A line longer than MaxLineBytes or a cell
// longer than MaxCellBytes is an error. Errors name the file, the line and
// the column, quote at most num.QuoteMax bytes of a cell, and say what to
// fix. Reading stops, with an error wrapping ctx's, once ctx is done.
func ReadCSVContext(ctx context.Context, r io.Reader, name string) (*Table, error) {
	h := sha256.New()
	br := &boundedReader{ctx: ctx, r: r, line: 1}
	cr := csv.NewReader(bufio.NewReader(io.TeeReader(br, h)))
	cr.ReuseRecord = true
	readErr := func(err error) error {
		var long *lineTooLong
		switch {
		case errors.As(err, &long):
			return fmt.Errorf("track: %s:%d: a line of more than %d bytes (%d MiB) without a line break: not a CSV file of one row per time step; check the path, or break the line into rows", name, long.line, MaxLineBytes, MaxLineBytes>>20)
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			return fmt.Errorf("track: %s: reading stopped at line %d: %w", name, br.line, err)
		}
		return fmt.Errorf("track: %s: %w", name, err)
	}
	// cellErr checks the length of cell c of the record on line.
	cellErr := func(rec []string, line int, what func(c int) string) error {
		for c, cell := range rec {
			if len(cell) > MaxCellBytes {
				return fmt.Errorf("track: %s:%d: %s: a cell of %d bytes, over the %d bytes of any number, timestamp or column name: %s; check the file", name, line, what(c), len(cell), MaxCellBytes, num.Quote(cell))
			}
		}
		return nil
	}
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("track: %s is empty; want a header row such as date,HUFL,...,OT", name)
	}
	if err != nil {
		return nil, readErr(err)
	}
	header = slices.Clone(header) // ReuseRecord: the next Read overwrites it
	if err := cellErr(header, 1, func(c int) string { return fmt.Sprintf("header column %d", c+1) }); err != nil {
		return nil, err
	}
	var lines []int // each row's line in the file
	if len(header) < 2 {
		return nil, fmt.Errorf("track: %s: the header has %d column(s); want a timestamp column and at least one numeric column", name, len(header))
	}
	tab := &Table{Name: name, Columns: slices.Clone(header[1:])}
	for i, c := range tab.Columns {
		c = strings.TrimSpace(c)
		if c == "" {
			return nil, fmt.Errorf("track: %s: header column %d is empty; name every column", name, i+2)
		}
		if slices.Contains(tab.Columns[:i], c) {
			return nil, fmt.Errorf("track: %s: header column %s appears twice; column names must be unique", name, num.Quote(c))
		}
		tab.Columns[i] = c
	}
	// column names column c of a row, quoted only when long.
	column := func(c int) string {
		name := header[0]
		if c > 0 {
			name = tab.Columns[c-1]
		}
		if len(name) > num.QuoteMax {
			name = num.Quote(name)
		}
		return "column " + name
	}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) && errors.Is(pe.Err, csv.ErrFieldCount) {
				return nil, fmt.Errorf("track: %s:%d: %d fields, the header has %d; every row needs a timestamp and one value per column", name, pe.Line, len(rec), len(header))
			}
			return nil, readErr(err)
		}
		line, _ := cr.FieldPos(0)
		if err := cellErr(rec, line, column); err != nil {
			return nil, err
		}
		ts, ok := parseTime(strings.TrimSpace(rec[0]))
		if !ok {
			return nil, fmt.Errorf("track: %s:%d: %s: %s is not a timestamp; want YYYY-MM-DD hh:mm:ss (or YYYY-MM-DD hh:mm, YYYY-MM-DD, YYYY-MM, RFC 3339, or YYYY/M/D [h:mm[:ss]])", name, line, column(0), num.Quote(rec[0]))
		}
		if n := len(tab.Times); n > 0 {
			prev := tab.Times[n-1]
			switch {
			case ts.Before(prev):
				return nil, fmt.Errorf("track: %s:%d: timestamp %s is before the previous row's %s; timestamps must not decrease (sort the file)",
					name, line, rec[0], prev.Format("2006-01-02 15:04:05"))
			}
		}
		tab.Times = append(tab.Times, ts)
		lines = append(lines, line)
		for c, cell := range rec[1:] {
			v, err := num.ParseDecimal(strings.TrimSpace(cell))
			if err != nil {
				return nil, fmt.Errorf("track: %s:%d: %s: %s is not a finite decimal number; fill or drop missing values before loading, and write numbers as 1234.5 or 1.2345e3", name, line, column(c+1), num.Quote(cell))
			}
			tab.Values = append(tab.Values, v)
		}
	}
	if len(tab.Times) == 0 {
		return nil, fmt.Errorf("track: %s has a header but no rows", name)
	}
	tab.SHA256 = hex.EncodeToString(h.Sum(nil))
	tab.Notes = rowNotes(tab, lines)
	return tab, nil
}

// boundedReader reads r, failing with a *lineTooLong once a line exceeds
// MaxLineBytes, and with ctx's error once ctx is done (checked at every
// read, each a buffer of a few KiB).
type boundedReader struct {
	ctx  context.Context
	r    io.Reader
	line int // the line being read, from 1
	n    int // its bytes so far
}

// lineTooLong is boundedReader's error: line is longer than MaxLineBytes.
type lineTooLong struct{ line int }

func (e *lineTooLong) Error() string { return fmt.Sprintf("line %d is too long", e.line) }

func (b *boundedReader) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := b.r.Read(p)
	for i := 0; i < n; {
		j := bytes.IndexByte(p[i:n], '\n')
		if j < 0 {
			j = n - i
		}
		if b.n+j > MaxLineBytes {
			return i + MaxLineBytes - b.n, &lineTooLong{b.line}
		}
		if i+j == n {
			b.n += j
			break
		}
		b.line, b.n, i = b.line+1, 0, i+j+1
	}
	return n, err
}

// rowNotes notes the rows a user should know about (Table.Notes): a
// timestamp that repeats the row before, and a step other than the
// file's (Table.Step) that is no calendar step.
func rowNotes(tab *Table, lines []int) []string {
	var notes noteList
	step := tab.Step()
	for i := 1; i < tab.Rows(); i++ {
		prev, d := tab.Times[i-1], tab.Times[i].Sub(tab.Times[i-1])
		switch {
		case d == 0:
			notes.add(fmt.Sprintf("%s:%d repeats the timestamp %s of the row before; both rows are kept (windows are cut by rows)", tab.Name, lines[i], prev.Format("2006-01-02 15:04:05")))
		case d != step && !calendarStep(step, d):
			notes.add(fmt.Sprintf("%s:%d comes %v after the row before, not the file's step of %v: a gap, kept as it is (windows are cut by rows)", tab.Name, lines[i], d, step))
		}
	}
	return notes.list()
}

// Step is the file's time step: the most common positive difference of
// consecutive timestamps (the shortest of equally common ones); 0 for
// fewer than two distinct timestamps.
func (t *Table) Step() time.Duration {
	count := map[time.Duration]int{}
	var best time.Duration
	for i := 1; i < t.Rows(); i++ {
		d := t.Times[i].Sub(t.Times[i-1])
		if d <= 0 {
			continue
		}
		count[d]++
		if c := count[d]; best == 0 || c > count[best] || c == count[best] && d < best {
			best = d
		}
	}
	return best
}

// calendarStep reports whether d is the same calendar step as step, a
// month (28 to 31 days) or a year (365 or 366 days), whose length varies.
func calendarStep(step, d time.Duration) bool {
	const day = 24 * time.Hour
	in := func(x, lo, hi time.Duration) bool { return x >= lo && x <= hi }
	return in(step, 28*day, 31*day) && in(d, 28*day, 31*day) || in(step, 365*day, 366*day) && in(d, 365*day, 366*day)
}

// noteList keeps the first few notes and counts the rest.
type noteList struct {
	kept  []string
	extra int
}

// maxNotes is how many notes a table keeps; the rest are counted.
const maxNotes = 3

func (l *noteList) add(s string) {
	if len(l.kept) < maxNotes {
		l.kept = append(l.kept, s)
		return
	}
	l.extra++
}

func (l *noteList) list() []string {
	if l.extra > 0 {
		return append(l.kept, fmt.Sprintf("and %d more rows with a repeated timestamp or a gap", l.extra))
	}
	return l.kept
}

// LoadCSV is LoadCSVContext without a context.
func LoadCSV(path string) (*Table, error) { return LoadCSVContext(context.Background(), path) }

// LoadCSVContext reads the CSV file at path (see ReadCSVContext).
func LoadCSVContext(ctx context.Context, path string) (*Table, error) {
	return loadFile(ctx, path, ReadCSVContext)
}

// loadFile opens the file at path and parses it with read, which names
// it by its path; the error of a file that does not open names it too.
func loadFile[T any](ctx context.Context, path string, read func(context.Context, io.Reader, string) (T, error)) (T, error) {
	f, err := os.Open(path)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("track: %w", err)
	}
	defer f.Close()
	return read(ctx, f, path)
}

// CSVConfig selects a forecasting task on a Table.
type CSVConfig struct {
	// Path is the CSV file; the report records it, the trial ids record
	// the file's SHA-256.
	Path string `json:"path"`
	// Target is the column forecast; it is always an input channel too.
	Target string `json:"target"`
	// Features are the input columns (the target is added when absent);
	// empty means every numeric column.
	Features []string `json:"features,omitempty"`
	// T is the context length (e.g. 96) and H the horizon (e.g. 96).
	T int `json:"t"`
	H int `json:"h"`
	// Split is how rows are cut into train | val | test:
	//   "ett-hour":   rows [0,8640) | [8640,11520) | [11520,14400): 12, 4 and
	//                 4 months of hours (the ETTh1/ETTh2 protocol);
	//   "ett-minute": the same months in 15-minute rows, x4 (ETTm1/ETTm2);
	//   "fractions":  as the LTSF loaders cut it (Zeng et al. 2023's
	//                 data_loader, Dataset_Custom): train = ⌊n·TrainFrac⌋
	//                 rows, test = ⌊n·(1-TrainFrac-ValFrac)⌋, val the rest
	//                 between them (70/10/20: train int(0.7n), test
	//                 int(0.2n));
	//   "" (auto):    ett-hour or ett-minute when the file is at least that
	//                 long and its step is 1 h or 15 min, else fractions.
	// Val and test windows take their first T inputs from the end of the
	// region before, as in the common protocol, so every row of a region
	// is forecast.
	Split     string  `json:"split,omitempty"`
	TrainFrac float64 `json:"train_frac,omitempty"` // default 0.7
	ValFrac   float64 `json:"val_frac,omitempty"`   // default 0.1
	// Channels is what is forecast: "" or "target", the target column,
	// from the feature columns as input channels (the literature's "S"
	// with one feature, "MS" with several); "independent", every feature
	// column (the literature's "M"), each a univariate series through one
	// shared model (channel independence, as PatchTST): the windows of all
	// channels form one split in the series layout, and the metric is the
	// MSE over channels, windows and steps, as the LTSF loaders score it.
	// "mixed" forecasts every column too, through one shared model that
	// sees every column: the windows of column k hold all columns, k
	// first and the others after it in file order, wrapping round, so
	// the model forecasts its first input channel from all of them
	// (channel mixing). Target then only has to name a column when given.
	Channels string `json:"channels,omitempty"`
	// Period is the season, in rows, of the seasonal-persistence
	// reference forecaster; 0 takes it from the file's step (PeriodOf):
	// a day of hourly or 15-minute rows, a week of daily ones.
	Period int `json:"period,omitempty"`
}

// CSVConfig.Channels values.
const (
	ChannelsTarget      = "target"
	ChannelsIndependent = "independent"
	ChannelsMixed       = "mixed"
)

// Several reports whether c forecasts every column (channels
// "independent" or "mixed"): a track of several series.
func (c CSVConfig) Several() bool {
	return c.Channels == ChannelsIndependent || c.Channels == ChannelsMixed
}

// PeriodOf is the seasonal period a file's step implies: one day (24
// hourly or 96 quarter-hourly rows, the daily cycle of load and
// temperature in ETT), one week of daily rows (7); 0 for any other step.
func PeriodOf(step time.Duration) int {
	switch step {
	case time.Hour:
		return 24
	case 15 * time.Minute:
		return 96
	case 24 * time.Hour:
		return 7
	}
	return 0
}

// Default split fractions of non-ETT files (the convention of the
// forecasting literature for custom data: 70% train, 10% val, 20% test).
const (
	DefaultTrainFrac = 0.7
	DefaultValFrac   = 0.1
)

// Validate reports every field of c that CSV cannot use, with JSON paths
// under "csv.".
func (c CSVConfig) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("csv."+format, args...)) }
	if c.Path == "" {
		bad("path is empty; give the CSV file (e.g. ETTh1.csv)")
	}
	switch c.Channels {
	case "", ChannelsTarget:
		if c.Target == "" {
			bad("target is empty; name the column to forecast (e.g. OT), or set channels to %q to forecast every column", ChannelsIndependent)
		}
	case ChannelsIndependent, ChannelsMixed:
	default:
		bad("channels = %q is unknown; use %q (the target column), %q (every column, one shared model, each channel alone) or %q (every column, one shared model that sees all of them)", c.Channels, ChannelsTarget, ChannelsIndependent, ChannelsMixed)
	}
	if c.T <= 0 {
		bad("t = %d must be >= 1 (e.g. 96)", c.T)
	}
	if c.H <= 0 {
		bad("h = %d must be >= 1 (e.g. 96)", c.H)
	}
	switch c.Split {
	case "", "ett-hour", "ett-minute", "fractions":
	default:
		bad("split = %q is unknown; use ett-hour, ett-minute, fractions or leave it empty", c.Split)
	}
	if c.Period < 0 {
		bad("period = %d must be >= 0 (0 takes it from the file's step; e.g. 24 for hourly rows)", c.Period)
	}
	tf, vf := c.fractions()
	if !(tf > 0 && vf > 0 && tf+vf < 1) {
		bad("train_frac = %v, val_frac = %v: need both > 0 and their sum < 1 (test gets the rest)", c.TrainFrac, c.ValFrac)
	}
	return errors.Join(errs...)
}

func (c CSVConfig) fractions() (train, val float64) {
	train, val = c.TrainFrac, c.ValFrac
	if train == 0 {
		train = DefaultTrainFrac
	}
	if val == 0 {
		val = DefaultValFrac
	}
	return train, val
}

// ETT split lengths in rows of one hour.
const (
	ettTrainHours = 12 * 30 * 24
	ettValHours   = 4 * 30 * 24
	ettTestHours  = 4 * 30 * 24
)

// borders returns the end rows of the train, val and test regions and
// the split's name.
func (c CSVConfig) borders(tab *Table) (a, b, e int, split string, err error) {
	split = c.Split
	step := tab.Step()
	if split == "" {
		switch {
		case step == time.Hour && tab.Rows() >= ettTrainHours+ettValHours+ettTestHours:
			split = "ett-hour"
		case step == 15*time.Minute && tab.Rows() >= 4*(ettTrainHours+ettValHours+ettTestHours):
			split = "ett-minute"
		default:
			split = "fractions"
		}
	}
	switch split {
	case "ett-hour", "ett-minute":
		k := 1
		if split == "ett-minute" {
			k = 4
		}
		a, b, e = k*ettTrainHours, k*(ettTrainHours+ettValHours), k*(ettTrainHours+ettValHours+ettTestHours)
		if tab.Rows() < e {
			return 0, 0, 0, "", fmt.Errorf("track: %s has %d rows; split %s needs %d (12+4+4 months)", tab.Name, tab.Rows(), split, e)
		}
	default:
		tf, vf := c.fractions()
		n := tab.Rows()
		// The test fraction as the loaders write it (0.2, not 1-0.7-0.1 =
		// 0.19999999999999996, which would lose a row where 0.2n is whole).
		testFrac := math.Round((1-tf-vf)*1e9) / 1e9
		a = int(float64(n) * tf)
		b = n - int(float64(n)*testFrac)
		e = n
	}
	return a, b, e, split, nil
}

// CSV builds the forecasting track of c on tab (see CSVConfig.Split for
// the regions). Channels are the feature columns, target first among
// them only if listed first; each is z-normalized with the mean and
// population std of the train rows. A split with fewer rows than T+H (so
// no window) is an error naming the split and the rows it would need.
func CSV(tab *Table, c CSVConfig) (*Dataset, error) {
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("track: %w", err)
	}
	target := -1
	if c.Target != "" || !c.Several() {
		t, err := tab.Column(c.Target)
		if err != nil {
			return nil, err
		}
		target = t
	}
	features := c.Features
	if len(features) == 0 {
		features = tab.Columns
	}
	var cols []int
	for _, f := range features {
		i, err := tab.Column(f)
		if err != nil {
			return nil, err
		}
		if slices.Contains(cols, i) {
			return nil, fmt.Errorf("track: csv.features lists %q twice", f)
		}
		cols = append(cols, i)
	}
	if target >= 0 && !slices.Contains(cols, target) {
		cols = append(cols, target)
	}
	tgt := max(0, slices.Index(cols, target))
	a, b, e, split, err := c.borders(tab)
	if err != nil {
		return nil, err
	}
	t, h := c.T, c.H
	for _, r := range []struct {
		name   string
		rows   int
		window int
	}{{"train", a, a}, {"val", b - a, b - a + t}, {"test", e - b, e - b + t}} {
		if r.window-t-h+1 < 1 {
			return nil, fmt.Errorf("track: %s: the %s split (%s) has %d rows; windows of t+h = %d need at least %d; use a longer file or a shorter t or h",
				tab.Name, r.name, split, r.rows, t+h, t+h-(r.window-r.rows))
		}
	}
	nc, width := len(cols), len(tab.Columns)
	series := make([]float64, e*nc) // (E,C)
	for i := range e {
		for j, col := range cols {
			series[i*nc+j] = tab.Values[i*width+col]
		}
	}
	name := "csv"
	norm, z, bad := normalize(series, nc, a)
	if bad >= 0 {
		col := tab.Columns[cols[bad]]
		if m, sd := norm.Mean[bad], norm.Std[bad]; math.IsNaN(m) || math.IsInf(m, 0) || math.IsNaN(sd) || math.IsInf(sd, 0) {
			return nil, fmt.Errorf("track: %s: column %s overflows float64 when standardized over the %d train rows (mean %g, std %g: its values or their squares pass 1.8e308); rescale the column, e.g. divide it by 1e6", tab.Name, col, a, m, sd)
		}
		return nil, fmt.Errorf("track: %s: column %s is constant over the %d train rows; drop it from csv.features", tab.Name, col, a)
	}
	region := func(lo, hi int) ([]float64, int) { return z[lo*nc : hi*nc], hi - lo - t - h + 1 }
	tr, ntr := region(0, a)
	va, nva := region(a-t, b)
	te, nte := region(b-t, e)
	chans := make([]string, nc)
	for j, col := range cols {
		chans[j] = tab.Columns[col]
	}
	period := c.Period
	if period == 0 && tab.Rows() >= 2 {
		period = PeriodOf(tab.Step())
	}
	// windows cuts the n windows of a region's rows: copied one by one
	// (the target forecast from the feature columns), or in the series
	// layout for every column.
	windows := func(rows []float64, n int) Split { return cut(rows, nc, tgt, n, t, h) }
	channels, forecast := chans, []string(nil)
	switch c.Channels {
	case ChannelsIndependent:
		// Each column's rows, column after column: a univariate split,
		// X and Y one buffer.
		windows = func(rows []float64, n int) Split {
			r := len(rows) / nc
			z := make([]float64, nc*r)
			for ch := range nc {
				for i := range r {
					z[ch*r+i] = rows[i*nc+ch]
				}
			}
			return Split{X: z, Y: z, N: nc * n, T: t, H: h, C: 1, Per: n}
		}
		channels, forecast, tgt = []string{"x"}, chans, 0
	case ChannelsMixed:
		// Column k's windows: every column, k first, the rest after it
		// in file order, wrapping round; Y is column k.
		windows = func(rows []float64, n int) Split {
			r := len(rows) / nc
			x, y := make([]float64, nc*r*nc), make([]float64, nc*r)
			for k := range nc {
				for i := range r {
					for j := range nc {
						x[(k*r+i)*nc+j] = rows[i*nc+(k+j)%nc]
					}
					y[k*r+i] = rows[i*nc+k]
				}
			}
			return Split{X: x, Y: y, N: nc * n, T: t, H: h, C: nc, Per: n}
		}
		channels = make([]string, nc)
		for j := range nc {
			channels[j] = fmt.Sprintf("+%d", j)
		}
		forecast, tgt = chans, 0
	}
	return &Dataset{
		Name:     name,
		Notes:    tab.Notes,
		Period:   period,
		Channels: channels,
		Series:   forecast,
		Train:    windows(tr, ntr),
		Val:      windows(va, nva),
		Test:     windows(te, nte),
		Norm:     norm,
		Target:   tgt,
	}, nil
}
