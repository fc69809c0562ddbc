package track

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ideabench/ideabench/internal/num"
)

// The archive's weekly sets also circulate as a pair of text files, as
// the authors' experiments on weekly series (Godahewa et al. 2022,
// github.com/rakshitha123/WeeklyForecasting) keep them: NAME_dataset.txt
// holds each series' in-sample part, one a line, its values separated by
// ','; NAME_results.txt holds its test targets, one line a series in the
// same order, ';'-separated, after a first field the authors' R code
// drops (test_set[-1]). ReadTSFPair joins the two into one TSF, which
// WriteTSF writes in the archive's format.

// PairConfig is what a pair of text files does not say about its series.
type PairConfig struct {
	// Relation is the data set's name (@relation), e.g. "nn5_weekly".
	Relation string
	// Frequency is its @frequency, e.g. "weekly"; it sets the MASE lag
	// (MASEPeriod).
	Frequency string
}

// ReadTSFPair reads the in-sample parts (train) and the test targets
// (test) of a pair of text files into a TSF: series k, named T<k>, is
// line k of train followed by the values of line k of test; @horizon is
// the number of test values a line, which every line must share. Errors
// name the file, the line and the field (the value's position from 1)
// and say what to fix: a value that is no finite number, a test line
// without values, lines of test whose counts differ, a file with more
// lines than the other, or an empty file.
func ReadTSFPair(ctx context.Context, train, test io.Reader, trainName, testName string, c PairConfig) (*TSF, error) {
	if _, err := MASEPeriod(c.Frequency); err != nil {
		return nil, err
	}
	if strings.ContainsAny(c.Relation, "\n\r") || strings.TrimSpace(c.Relation) == "" {
		return nil, fmt.Errorf("track: relation %q: give the data set's name on one line, e.g. nn5_weekly", c.Relation)
	}
	in, err := readPairLines(ctx, train, trainName, ",", 0)
	if err != nil {
		return nil, err
	}
	out, err := readPairLines(ctx, test, testName, ";", 1)
	if err != nil {
		return nil, err
	}
	if len(in) != len(out) {
		return nil, fmt.Errorf("track: %s has %d series and %s %d: line k of each must be series k; use the two files of one data set", trainName, len(in), testName, len(out))
	}
	f := &TSF{Name: trainName, Relation: c.Relation, Frequency: c.Frequency, Horizon: len(out[0].v),
		Attributes: []TSFAttribute{{Name: "series_name", Type: "string"}}}
	for k := range in {
		if len(out[k].v) != f.Horizon {
			return nil, fmt.Errorf("track: %s:%d: %d test values where line %d has %d: every series has the horizon's; fix the line", testName, out[k].line, len(out[k].v), out[0].line, f.Horizon)
		}
		f.Series = append(f.Series, TSFSeries{Attrs: []string{"T" + strconv.Itoa(k+1)}, Values: append(in[k].v, out[k].v...), Line: in[k].line})
	}
	f.EqualLength = f.sameLength()
	return f, nil
}

type pairLine struct {
	line int
	v    []float64
}

// readPairLines reads one value list a non-blank line, the values
// separated by sep, after skip leading fields.
func readPairLines(ctx context.Context, r io.Reader, name, sep string, skip int) ([]pairLine, error) {
	br := &boundedReader{ctx: ctx, r: r, line: 1}
	sc := bufio.NewScanner(br)
	sc.Buffer(make([]byte, 64<<10), MaxLineBytes+1)
	var out []pairLine
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		fields := strings.Split(text, sep)
		if len(fields) <= skip {
			return nil, fmt.Errorf("track: %s:%d: %d field(s), no value after the first %d: one series a line, its values separated by %q", name, line, len(fields), skip, sep)
		}
		pl := pairLine{line: line, v: make([]float64, 0, len(fields)-skip)}
		for i, s := range fields[skip:] {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("track: %s:%d: value %d is %s, not a finite number; fix or drop the series", name, line, i+1, num.Quote(s))
			}
			pl.v = append(pl.v, v)
		}
		out = append(out, pl)
	}
	if err := sc.Err(); err != nil {
		var long *lineTooLong
		if errors.As(err, &long) || errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("track: %s:%d: a line of more than %d bytes: not a file of one series a line; check the path", name, line+1, MaxLineBytes)
		}
		return nil, fmt.Errorf("track: %s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("track: %s: no series: one series a line, its values separated by %q", name, sep)
	}
	return out, nil
}

// WriteTSF writes f in the archive's .tsf format (ReadTSF reads it
// back to the same attributes, header and values): its header tags, its
// attributes, then one line a series, the values in the shortest
// decimal form that parses back to the same float64 and '?' for a
// missing one. Comment lines go first, each prefixed with "# ".
func WriteTSF(w io.Writer, f *TSF, comments ...string) error {
	bw := bufio.NewWriter(w)
	for _, c := range comments {
		for l := range strings.SplitSeq(c, "\n") {
			fmt.Fprintf(bw, "# %s\n", l)
		}
	}
	if f.Relation != "" {
		fmt.Fprintf(bw, "@relation %s\n", f.Relation)
	}
	for _, a := range f.Attributes {
		fmt.Fprintf(bw, "@attribute %s %s\n", a.Name, a.Type)
	}
	if f.Frequency != "" {
		fmt.Fprintf(bw, "@frequency %s\n", f.Frequency)
	}
	if f.Horizon > 0 {
		fmt.Fprintf(bw, "@horizon %d\n", f.Horizon)
	}
	fmt.Fprintf(bw, "@missing %t\n@equallength %t\n@data\n", f.Missing || f.anyMissing(), f.EqualLength)
	for _, s := range f.Series {
		if len(s.Attrs) != len(f.Attributes) {
			panic(fmt.Sprintf("track: WriteTSF: series with %d attribute values for %d attributes", len(s.Attrs), len(f.Attributes)))
		}
		for _, a := range s.Attrs {
			bw.WriteString(a)
			bw.WriteByte(':')
		}
		for i, v := range s.Values {
			if i > 0 {
				bw.WriteByte(',')
			}
			if math.IsNaN(v) {
				bw.WriteByte('?')
				continue
			}
			bw.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
