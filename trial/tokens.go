package trial

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// WriteTokensCSV writes the sequences of a token split as CSV: a header
// "sequence,token.0,…,token.<T-1>,label.0,…,label.<T-1>", then one row
// per sequence, its T token ids and its T labels (-1 where a position is
// not scored).
func WriteTokensCSV(w io.Writer, s *track.TokenSplit) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("sequence")
	for _, kind := range []string{"token", "label"} {
		for t := range s.T {
			fmt.Fprintf(bw, ",%s.%d", kind, t)
		}
	}
	bw.WriteByte('\n')
	var buf []byte
	for n := range s.N {
		tok, lab := s.Seq(n)
		buf = strconv.AppendInt(buf[:0], int64(n), 10)
		for _, v := range append(append([]int32(nil), tok...), lab...) {
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(v), 10)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// IsTokensHeader reports whether a CSV's first line that is not the
// stamp (WriteStamp) is a token split's header (WriteTokensCSV).
func IsTokensHeader(line string) bool {
	const p = "sequence,token.0"
	return len(line) >= len(p) && line[:len(p)] == p
}

// ReadTokensCSV parses a token split written by WriteTokensCSV, its ids
// checked against vocab; every error names the file, the line and the
// field.
func ReadTokensCSV(r io.Reader, name string, vocab int) (*track.TokenSplit, error) {
	cr := csv.NewReader(bufio.NewReader(r))
	cr.Comment = '#' // the stamp (WriteStamp)
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("trial: %s is empty; want a token CSV from ideabench data", name)
		}
		return nil, fmt.Errorf("trial: %s: %w", name, err)
	}
	if len(head) < 3 || (len(head)-1)%2 != 0 || head[0] != "sequence" {
		return nil, fmt.Errorf("trial: %s: the header is not sequence,token.0,…,label.0,…; export the split with ideabench data", name)
	}
	t := (len(head) - 1) / 2
	for i, h := range head[1:] {
		kind, k := "token", i
		if i >= t {
			kind, k = "label", i-t
		}
		if h != kind+"."+strconv.Itoa(k) {
			return nil, fmt.Errorf("trial: %s: header column %d is %q, want %s.%d", name, i+2, h, kind, k)
		}
	}
	s := &track.TokenSplit{T: t, Vocab: vocab}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("trial: %s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		for i, f := range rec[1:] {
			v, err := strconv.Atoi(f)
			lo := 0
			if i >= t {
				lo = -1
			}
			if err != nil || v < lo || v >= vocab {
				return nil, fmt.Errorf("trial: %s: line %d, %s = %q: want an integer id in [%d, %d) (the checkpoint's vocabulary)", name, line, head[i+1], f, lo, vocab)
			}
			if i < t {
				s.Tokens = append(s.Tokens, int32(v))
			} else {
				s.Labels = append(s.Labels, int32(v))
			}
		}
		s.N++
	}
	if s.N == 0 {
		return nil, fmt.Errorf("trial: %s holds no sequence", name)
	}
	return s, nil
}

// EvaluateTokens returns a token model's mean cross-entropy and accuracy
// over the labelled positions of s (TrainTokens's test metric, the same
// bits at the trial's batch size); an error when s does not fit the
// model or has no labelled position.
func EvaluateTokens(m *transformer.Model[float32], s *track.TokenSplit) (ce, acc float64, err error) {
	if m.Config.Vocab == 0 || s.T != m.Config.T {
		return 0, 0, fmt.Errorf("trial: sequences of %d tokens for a token model of vocab %d and t %d; export the split of the checkpoint's track", s.T, m.Config.Vocab, m.Config.T)
	}
	tb := transformer.TokenBatch{Tokens: make([]int32, m.MaxBatch*s.T), Labels: make([]int32, m.MaxBatch*s.T), T: s.T}
	ce, acc = evaluateTokens(m, s, &tb)
	if math.IsNaN(ce) {
		return 0, 0, errors.New("trial: the sequences have no labelled position to score")
	}
	return ce, acc, nil
}
