package track

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ideabench/ideabench/internal/num"
)

// TSF is a file in the .tsf format of the Monash Time Series Forecasting
// Archive (Godahewa et al., NeurIPS 2021 Datasets and Benchmarks): a
// header of @-lines, then one series a line, its attribute values and
// its observations separated by colons:
//
//	# comments
//	@relation Electricity
//	@attribute series_name string
//	@attribute start_timestamp date
//	@frequency weekly
//	@horizon 8
//	@missing false
//	@equallength true
//	@data
//	T1:2012-01-01 00-00-00:8032,9097,9394,...
//
// Series may differ in length (@equallength false) and hold missing
// values, written '?' (@missing true).
type TSF struct {
	// Name is the file the series came from, for messages.
	Name string
	// Relation is @relation, the data set's name.
	Relation string
	// Attributes are the @attribute lines in order: each series line
	// starts with one value of each.
	Attributes []TSFAttribute
	// Frequency is @frequency ("weekly", "daily", "4_seconds", ...);
	// empty when the file has none.
	Frequency string
	// Horizon is @horizon, the archive's forecast horizon; 0 when the
	// file has none.
	Horizon int
	// Missing and EqualLength are @missing and @equallength: whether
	// series may hold '?' and whether they all have one length.
	Missing, EqualLength bool
	// Series are the data lines in order.
	Series []TSFSeries
	// SHA256 is the hex SHA-256 of the file's bytes: trial ids include
	// it, so results on other data are never reused.
	SHA256 string
	// Notes say what a user should know that does not stop the file
	// being used: an @-line the format does not define, kept unread.
	// NewRealPanel passes them on to the report's data notes.
	Notes []string

	missingTag bool // the header had @missing
}

// TSFAttribute is one @attribute: a name and its type, "string",
// "numeric" (an integer) or "date" (YYYY-MM-DD hh-mm-ss).
type TSFAttribute struct{ Name, Type string }

// TSFSeries is one data line of a TSF file.
type TSFSeries struct {
	// Attrs are the attribute values as written, in the order of
	// TSF.Attributes.
	Attrs []string
	// Values are the observations in time order, NaN where the file
	// writes '?'. (L)
	Values []float64
	// Line is the series' line in the file, for messages.
	Line int
}

// Missing is the number of the series' missing values.
func (s TSFSeries) Missing() int {
	n := 0
	for _, v := range s.Values {
		if math.IsNaN(v) {
			n++
		}
	}
	return n
}

// tsfDateLayout is the layout of a date attribute (the archive's
// "%Y-%m-%d %H-%M-%S": dashes in the time, as the colon separates
// fields).
const tsfDateLayout = "2006-01-02 15-04-05"

// ReadTSF is ReadTSFContext without a context.
func ReadTSF(r io.Reader, name string) (*TSF, error) {
	return ReadTSFContext(context.Background(), r, name)
}

// ReadTSFContext parses a .tsf file (see TSF). Blank lines and lines
// starting with '#' are skipped. Before @data: @relation, @frequency,
// @horizon (a whole number ≥ 1), @missing and @equallength (true or
// false) take one value each, @attribute a name and a type (string,
// numeric or date); another @-line is noted and skipped. After @data,
// every line is a series: one value per attribute, then at least one
// observation, all separated by ':' and the observations by ','; an
// observation is a finite decimal number or '?'. Errors name the file,
// the line and the field (the attribute, or the observation's position
// from 1), quote at most num.QuoteMax bytes, and say what to fix: a
// header line with too few or too many values, an attribute value of the
// wrong type, a series line with too few or too many fields (truncated),
// a value that is no number, '?' under @missing false, lengths that
// differ under @equallength true, a series with no value present, two
// series of one name (SeriesName; the error names both lines), a data
// line before @data, no @data, no attributes, or no series. Reading
// stops, with an error wrapping ctx's, once ctx is done.
func ReadTSFContext(ctx context.Context, r io.Reader, name string) (*TSF, error) {
	return readTSF(ctx, r, name, false)
}

// readTSF is ReadTSFContext; with headerOnly it stops at @data and
// returns the header alone (no series, no SHA256).
func readTSF(ctx context.Context, r io.Reader, name string, headerOnly bool) (*TSF, error) {
	h := sha256.New()
	br := &boundedReader{ctx: ctx, r: r, line: 1}
	sc := bufio.NewScanner(io.TeeReader(br, h))
	sc.Buffer(make([]byte, 64<<10), MaxLineBytes+1)
	f := &TSF{Name: name}
	var (
		line        int
		inData      bool
		sawEqualLen bool
		named       map[string]int // a series' name -> its line
	)
	bad := func(format string, a ...any) error {
		return fmt.Errorf("track: %s:%d: %s", name, line, fmt.Sprintf(format, a...))
	}
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if strings.HasPrefix(text, "@") {
			if inData {
				return nil, bad("%s after @data: the header ends at @data; move the line above it", num.Quote(text))
			}
			fields := strings.Fields(text)
			tag := strings.ToLower(fields[0])
			want := 2
			switch tag {
			case "@data":
				want = 1
			case "@attribute":
				want = 3
			}
			if tag == "@relation" && len(fields) > 2 {
				// A relation's name may hold spaces.
				fields = []string{fields[0], strings.Join(fields[1:], " ")}
			}
			known := true
			switch tag {
			case "@data", "@attribute", "@relation", "@frequency", "@horizon", "@missing", "@equallength":
			default:
				known = false
			}
			if !known {
				// The archive's own loader (convert_tsf_to_dataframe in
				// its utils) reads past an @-line of a tag it does not
				// know, so refusing one would refuse files the archive
				// reads; skipping it without a word would hide a tag the
				// writer meant (a misspelt @horizon), so it is noted, and
				// the note reaches the report (NewRealPanel).
				f.Notes = append(f.Notes, fmt.Sprintf("%s:%d: %s is no tag of the .tsf format (@relation, @attribute, @frequency, @horizon, @missing, @equallength, @data); the line is skipped", name, line, num.Quote(fields[0])))
				continue
			}
			if len(fields) != want {
				return nil, bad("%s takes %d value(s), the line has %d: %s; write %s", fields[0], want-1, len(fields)-1, num.Quote(text), tsfTagUsage[tag])
			}
			switch tag {
			case "@data":
				if len(f.Attributes) == 0 {
					return nil, bad("@data before any @attribute: a series line starts with its attributes' values; add the @attribute lines (e.g. @attribute series_name string) above @data")
				}
				inData = true
				if headerOnly {
					return f, nil
				}
			case "@attribute":
				typ := strings.ToLower(fields[2])
				if typ != "string" && typ != "numeric" && typ != "date" {
					return nil, bad("@attribute %s has type %s: use string, numeric or date", fields[1], num.Quote(fields[2]))
				}
				for _, a := range f.Attributes {
					if a.Name == fields[1] {
						return nil, bad("@attribute %s is given twice; name each attribute once", fields[1])
					}
				}
				f.Attributes = append(f.Attributes, TSFAttribute{Name: fields[1], Type: typ})
			case "@relation":
				f.Relation = fields[1]
			case "@frequency":
				f.Frequency = fields[1]
			case "@horizon":
				n, err := strconv.Atoi(fields[1])
				if err != nil || n < 1 {
					return nil, bad("@horizon %s: not a whole number >= 1; write the archive's horizon, e.g. @horizon 8", num.Quote(fields[1]))
				}
				f.Horizon = n
			case "@missing", "@equallength":
				v, err := strconv.ParseBool(strings.ToLower(fields[1]))
				if err != nil {
					return nil, bad("%s %s: not true or false", fields[0], num.Quote(fields[1]))
				}
				if tag == "@missing" {
					f.Missing, f.missingTag = v, true
				} else {
					f.EqualLength, sawEqualLen = v, true
				}
			}
			continue
		}
		if !inData {
			return nil, bad("a series line before @data: %s; the header must end with an @data line above the series", num.Quote(text))
		}
		s, err := parseTSFSeries(f, text, line)
		if err != nil {
			return nil, err
		}
		if at := f.nameAttr(); at >= 0 {
			// The archive's evaluation takes each series by its name
			// (unique(series_name), then the rows of that name), so two
			// lines of one name would be read as one series there.
			if named == nil {
				named = map[string]int{}
			}
			n := s.Attrs[at]
			if first, ok := named[n]; ok {
				return nil, bad("series %s (attribute %s) is named as the series of line %d: the archive's evaluation takes one series a name, so the two lines would be read as one; give each series its own name, or drop one of them", num.Quote(n), f.Attributes[at].Name, first)
			}
			named[n] = line
		}
		f.Series = append(f.Series, s)
	}
	if err := sc.Err(); err != nil {
		var long *lineTooLong
		switch {
		case errors.As(err, &long), errors.Is(err, bufio.ErrTooLong):
			return nil, fmt.Errorf("track: %s:%d: a line of more than %d bytes (%d MiB): not a .tsf file of one series a line; check the path", name, line+1, MaxLineBytes, MaxLineBytes>>20)
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			return nil, fmt.Errorf("track: %s: reading stopped at line %d: %w", name, line, err)
		}
		return nil, fmt.Errorf("track: %s: %w", name, err)
	}
	switch {
	case !inData && len(f.Attributes) == 0:
		return nil, fmt.Errorf("track: %s: no @attribute and no @data line: not a .tsf file; check the path", name)
	case !inData:
		return nil, fmt.Errorf("track: %s: no @data line: the header must end with @data, then one series a line", name)
	case len(f.Series) == 0:
		return nil, fmt.Errorf("track: %s: @data is followed by no series; add one line a series (attributes then values, separated by ':')", name)
	}
	if !f.missingTag {
		f.Missing = f.anyMissing()
	}
	if !sawEqualLen {
		f.EqualLength = f.sameLength()
	}
	if sawEqualLen && f.EqualLength && !f.sameLength() {
		first := f.Series[0]
		for _, s := range f.Series {
			if len(s.Values) != len(first.Values) {
				return nil, fmt.Errorf("track: %s:%d: %d values where the series of line %d has %d, under @equallength true; fix the series or write @equallength false", name, s.Line, len(s.Values), first.Line, len(first.Values))
			}
		}
	}
	f.SHA256 = hex.EncodeToString(h.Sum(nil))
	return f, nil
}

// nameAttr is the index of the attribute that names a series: the one
// called series_name, as the archive's files and loader call it, else
// the first string attribute; -1 when there is neither (a date or a
// number names no series: many series share a start).
func (f *TSF) nameAttr() int {
	first := -1
	for i, a := range f.Attributes {
		if a.Name == "series_name" {
			return i
		}
		if a.Type == "string" && first < 0 {
			first = i
		}
	}
	return first
}

// SeriesName is the name of series s of f: its value of the naming
// attribute (series_name, else the first string attribute), or of its
// first attribute when f has no such attribute.
func (f *TSF) SeriesName(s TSFSeries) string {
	if at := f.nameAttr(); at >= 0 {
		return s.Attrs[at]
	}
	return s.Attrs[0]
}

// tsfTagUsage is each tag's form, for the error of a wrong count.
var tsfTagUsage = map[string]string{
	"@data":        "@data alone on its line",
	"@attribute":   "@attribute NAME TYPE, e.g. @attribute series_name string",
	"@relation":    "@relation NAME",
	"@frequency":   "@frequency NAME, e.g. @frequency weekly",
	"@horizon":     "@horizon N, e.g. @horizon 8",
	"@missing":     "@missing true or @missing false",
	"@equallength": "@equallength true or @equallength false",
}

// parseTSFSeries reads the series line text (line number line) of f.
func parseTSFSeries(f *TSF, text string, line int) (TSFSeries, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("track: %s:%d: %s", f.Name, line, fmt.Sprintf(format, a...))
	}
	parts := strings.Split(text, ":")
	if want := len(f.Attributes) + 1; len(parts) != want {
		names := make([]string, len(f.Attributes))
		for i, a := range f.Attributes {
			names[i] = a.Name
		}
		what := "truncated"
		if len(parts) > want {
			what = "too many fields"
		}
		return TSFSeries{}, bad("%d field(s) separated by ':', want %d (%s, then the values): %s; %s", len(parts), want, strings.Join(names, ", "), what, num.Quote(text))
	}
	s := TSFSeries{Attrs: parts[:len(f.Attributes)], Line: line}
	for i, a := range f.Attributes {
		v := s.Attrs[i]
		switch a.Type {
		case "numeric":
			if _, err := strconv.Atoi(v); err != nil {
				return TSFSeries{}, bad("attribute %s = %s: not a whole number (the attribute is numeric)", a.Name, num.Quote(v))
			}
		case "date":
			if _, err := time.Parse(tsfDateLayout, v); err != nil {
				return TSFSeries{}, bad("attribute %s = %s: not a date as YYYY-MM-DD hh-mm-ss (the attribute is a date)", a.Name, num.Quote(v))
			}
		}
	}
	obs := parts[len(parts)-1]
	if strings.TrimSpace(obs) == "" {
		return TSFSeries{}, bad("series %s has no values after its attributes; truncated line?", num.Quote(s.Attrs[0]))
	}
	cells := strings.Split(obs, ",")
	s.Values = make([]float64, len(cells))
	present := 0
	for i, c := range cells {
		c = strings.TrimSpace(c)
		if c == "?" {
			s.Values[i] = math.NaN()
			continue
		}
		v, err := num.ParseDecimal(c)
		if err != nil {
			return TSFSeries{}, bad("value %d of series %s: %v; write a number, or ? for a missing value", i+1, num.Quote(s.Attrs[0]), err)
		}
		s.Values[i] = v
		present++
	}
	switch m := len(cells) - present; {
	case present == 0:
		return TSFSeries{}, bad("series %s has no value present (all %d are ?); drop the line", num.Quote(s.Attrs[0]), len(cells))
	case m > 0 && !f.Missing && f.missingTag:
		return TSFSeries{}, bad("series %s has %d missing value(s) (?) under @missing false; fix the series or write @missing true", num.Quote(s.Attrs[0]), m)
	}
	return s, nil
}

func (f *TSF) anyMissing() bool {
	for _, s := range f.Series {
		if s.Missing() > 0 {
			return true
		}
	}
	return false
}

func (f *TSF) sameLength() bool {
	for _, s := range f.Series {
		if len(s.Values) != len(f.Series[0].Values) {
			return false
		}
	}
	return true
}

// LoadTSF is LoadTSFContext without a context.
func LoadTSF(path string) (*TSF, error) { return LoadTSFContext(context.Background(), path) }

// LoadTSFContext reads the .tsf file at path (see ReadTSFContext).
func LoadTSFContext(ctx context.Context, path string) (*TSF, error) {
	return loadFile(ctx, path, ReadTSFContext)
}

// LoadTSFHeader reads the header of the .tsf file at path, up to its
// @data line, with ReadTSFContext's checks of the header: the returned
// TSF has its tags, attributes and notes, and no series and no SHA256.
// It is what a command line reads to fill the settings the header
// gives (the horizon) without reading every series.
func LoadTSFHeader(path string) (*TSF, error) {
	return loadFile(context.Background(), path, func(ctx context.Context, r io.Reader, name string) (*TSF, error) {
		return readTSF(ctx, r, name, true)
	})
}
