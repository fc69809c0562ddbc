package trial

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// Windows CSV: the evaluation windows of a split, one row per window, so
// another tool can score a checkpoint on exactly the windows the report
// scored. Values are on the normalized scale the model sees (the
// checkpoint's metadata holds the normalization). The header is
//
//	window, x.<ch>.0, …, x.<ch>.<T-1> for each input channel ch in the
//	model's channel order, then y.<target>.1, …, y.<target>.<H>
//
// where x.<ch>.t is channel ch at input position t (T-1 the last
// observed step) and y.<target>.k the target k steps after it. Numbers are
// written in the shortest form that parses back to the same float64.

// WriteWindowsCSV writes split s with channel names (C) and the target's
// index among them.
func WriteWindowsCSV(w io.Writer, s *track.Split, channels []string, target int) error {
	return writeWindows(w, s, channels, target, true)
}

// WriteInputsCSV writes the windows of s as WriteWindowsCSV does, without
// their targets (the y columns): what a trainer gets of the test split, so
// that it forecasts windows it cannot score itself.
func WriteInputsCSV(w io.Writer, s *track.Split, channels []string, target int) error {
	return writeWindows(w, s, channels, target, false)
}

func writeWindows(w io.Writer, s *track.Split, channels []string, target int, targets bool) error {
	if len(channels) != s.C || target < 0 || target >= s.C {
		panic(fmt.Sprintf("trial: WriteWindowsCSV: %d channel names and target %d for C = %d", len(channels), target, s.C))
	}
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	head := []string{"window"}
	for _, ch := range channels {
		for t := range s.T {
			head = append(head, fmt.Sprintf("x.%s.%d", ch, t))
		}
	}
	for k := 1; targets && k <= s.H; k++ {
		head = append(head, fmt.Sprintf("y.%s.%d", channels[target], k))
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	row := make([]string, len(head))
	for n := range s.N {
		x, y := s.Window(n)
		row[0] = strconv.Itoa(n)
		i := 1
		for c := range s.C {
			for t := range s.T {
				row[i] = strconv.FormatFloat(x[t*s.C+c], 'g', -1, 64)
				i++
			}
		}
		for _, v := range y[s.T:] {
			if !targets {
				break
			}
			row[i] = strconv.FormatFloat(v, 'g', -1, 64)
			i++
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}

// ReadWindowsCSV parses a windows CSV (see WriteWindowsCSV) into a split,
// its channel names and the target's index. Y's first T values are the
// target channel's inputs, as in the split it came from, so the split
// scores the same bits.
func ReadWindowsCSV(r io.Reader, name string) (s *track.Split, channels []string, target int, err error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.Comment = '#' // the stamp (WriteStamp)
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, 0, fmt.Errorf("trial: %s is empty; want a windows CSV from ideabench data", name)
		}
		return nil, nil, 0, fmt.Errorf("trial: %s: %w", name, err)
	}
	head = append([]string(nil), head...)
	bad := func(format string, a ...any) error {
		return fmt.Errorf("trial: %s: "+format+"; want the header of ideabench data (window, x.<channel>.<t>…, y.<target>.<k>…)", append([]any{name}, a...)...)
	}
	if len(head) < 3 || head[0] != "window" {
		return nil, nil, 0, bad("header starts %q", strings.Join(head[:min(3, len(head))], ","))
	}
	// x.<ch>.<t> columns, channel by channel, t from 0; then y.<target>.<k>.
	type col struct {
		kind, ch string
		idx      int
	}
	cols := make([]col, 0, len(head)-1)
	for _, h := range head[1:] {
		dot1, dot2 := strings.IndexByte(h, '.'), strings.LastIndexByte(h, '.')
		if dot1 != 1 || dot2 <= dot1+1 || (h[0] != 'x' && h[0] != 'y') {
			return nil, nil, 0, bad("column %q", h)
		}
		i, err := strconv.Atoi(h[dot2+1:])
		if err != nil {
			return nil, nil, 0, bad("column %q", h)
		}
		cols = append(cols, col{h[:1], h[dot1+1 : dot2], i})
	}
	t := 0
	for t < len(cols) && cols[t].kind == "x" && cols[t].ch == cols[0].ch {
		t++
	}
	if t == 0 {
		return nil, nil, 0, bad("no x columns")
	}
	i := 0
	for i < len(cols) && cols[i].kind == "x" {
		if cols[i].ch != cols[i-i%t].ch || cols[i].idx != i%t {
			return nil, nil, 0, bad("column %q out of order (expected x.%s.%d)", head[i+1], cols[i-i%t].ch, i%t)
		}
		if i%t == 0 {
			channels = append(channels, cols[i].ch)
		}
		i++
	}
	if i%t != 0 {
		return nil, nil, 0, bad("channel %s has %d of %d positions", cols[i-1].ch, i%t, t)
	}
	h := len(cols) - i
	if h == 0 {
		return nil, nil, 0, bad("no y columns")
	}
	target = -1
	for k, c := range cols[i:] {
		if c.kind != "y" || c.idx != k+1 || c.ch != cols[i].ch {
			return nil, nil, 0, bad("column %q out of order (expected y.%s.%d)", head[i+1+k], cols[i].ch, k+1)
		}
	}
	for k, ch := range channels {
		if ch == cols[i].ch {
			target = k
		}
	}
	if target < 0 {
		return nil, nil, 0, bad("target %s is not among the input channels %s", cols[i].ch, strings.Join(channels, ","))
	}
	c := len(channels)
	s = &track.Split{T: t, H: h, C: c}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, 0, fmt.Errorf("trial: %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if n, err := strconv.Atoi(rec[0]); err != nil || n != s.N {
			return nil, nil, 0, fmt.Errorf("trial: %s:%d: window %q, want %d (rows in order from 0)", name, line, rec[0], s.N)
		}
		x := make([]float64, t*c)
		y := make([]float64, t+h)
		for j, cell := range rec[1:] {
			v, err := strconv.ParseFloat(cell, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, 0, fmt.Errorf("trial: %s:%d: column %s: %q is not a finite number", name, line, head[j+1], cell)
			}
			if j < t*c {
				ch, pos := j/t, j%t
				x[pos*c+ch] = v
			} else {
				y[t+j-t*c] = v
			}
		}
		for pos := range t {
			y[pos] = x[pos*c+target]
		}
		s.X, s.Y = append(s.X, x...), append(s.Y, y...)
		s.N++
	}
	if s.N == 0 {
		return nil, nil, 0, fmt.Errorf("trial: %s has a header but no windows", name)
	}
	return s, channels, target, nil
}

// Evaluate is the report's metric of model m on split s: the MSE of the
// last position's H-step forecast, over all windows and steps.
func Evaluate(m *transformer.Model[float32], s *track.Split) (float64, error) {
	c := m.Config
	if s.T != c.T || s.H != c.H || s.C != c.CIn {
		return 0, fmt.Errorf("trial: windows are T=%d H=%d C=%d but the model takes T=%d H=%d C=%d; export the windows of the track it was trained on",
			s.T, s.H, s.C, c.T, c.H, c.CIn)
	}
	b := m.MaxBatch
	x := make([]float32, b*s.T*s.C)
	y := make([]float32, b*(s.T+s.H))
	return evaluate(m, s, x, y, nil, nil), nil
}

// stampPrefix starts the comment line that WriteStamp puts above a
// windows CSV.
const stampPrefix = "# ideabench data="

// WriteStamp writes the comment line that names the data id and split of
// the windows CSV that follows: "# ideabench data=<id> split=<split>".
// ReadWindowsCSV skips it; ReadStamp reads it.
func WriteStamp(w io.Writer, dataID, split string) error {
	_, err := fmt.Fprintf(w, "%s%s split=%s\n", stampPrefix, dataID, split)
	return err
}

// ReadStamp returns the data id and split of a windows CSV's stamp from
// its first line; ok false when the file has no stamp (written by another
// tool, or by hand).
func ReadStamp(firstLine string) (dataID, split string, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimRight(firstLine, "\r\n"), stampPrefix)
	if !found {
		return "", "", false
	}
	dataID, split, _ = strings.Cut(rest, " split=")
	return dataID, split, dataID != ""
}
