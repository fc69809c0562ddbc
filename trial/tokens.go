package trial

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// WriteTokensCSV writes the sequences of a token split as CSV: a header
// "sequence,token.0,…,token.<T-1>,label.0,…,label.<T-1>", then one row
// per sequence, its T token ids and its T labels (-1 where a position is
// not scored).
func WriteTokensCSV(w io.Writer, s *track.TokenSplit) error {
	return writeTokens(w, s, "label", func(l int32) int32 { return l })
}

// writeTokens writes s as WriteTokensCSV does, its second block of
// columns named second and holding col(label) for each position.
func writeTokens(w io.Writer, s *track.TokenSplit, second string, col func(label int32) int32) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("sequence")
	for _, kind := range []string{"token", second} {
		for t := range s.T {
			fmt.Fprintf(bw, ",%s.%d", kind, t)
		}
	}
	bw.WriteByte('\n')
	var buf []byte
	for n := range s.N {
		tok, lab := s.Seq(n)
		buf = strconv.AppendInt(buf[:0], int64(n), 10)
		for _, v := range tok {
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(v), 10)
		}
		for _, l := range lab {
			buf = append(buf, ',')
			buf = strconv.AppendInt(buf, int64(col(l)), 10)
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

// WriteTokenInputsCSV writes the sequences of a token split without their
// labels, for a trainer that must not see them (an external trainer's
// test split): a header "sequence,token.0,…,token.<T-1>,scored.0,…,
// scored.<T-1>", then one row per sequence, its T token ids and T flags,
// 1 where the position is scored and 0 where it is not.
func WriteTokenInputsCSV(w io.Writer, s *track.TokenSplit) error {
	return writeTokens(w, s, "scored", func(l int32) int32 {
		if l >= 0 {
			return 1
		}
		return 0
	})
}

// ReadTokenScores reads an external trainer's scores of a token split's
// labelled positions: an optional header row, then one row per labelled
// position of s, in order (sequence, then position, ascending): the
// sequence's index, the position, then vocab scores, the model's
// log-probabilities of each token id (or any logits: ScoreTokens
// normalizes them). Every value must be a finite number. The scores come
// back (M,V), M = s.Labelled(). A missing file gives an error wrapping
// os.ErrNotExist.
func ReadTokenScores(path string, s *track.TokenSplit, vocab int) ([]float64, error) {
	name := filepath.Base(path)
	// The labelled positions, in the order the rows must follow.
	type pos struct{ n, t int }
	want := make([]pos, 0, s.Labelled())
	for i, l := range s.Labels {
		if l >= 0 {
			want = append(want, pos{i / s.T, i % s.T})
		}
	}
	out := make([]float64, 0, len(want)*vocab)
	row := 0
	isHeader := func(first string) bool {
		_, err := strconv.Atoi(strings.TrimSpace(first))
		return err != nil
	}
	err := readOutRows(path, "log-probabilities", isHeader, func(rec []string, line int) error {
		if row >= len(want) {
			return fmt.Errorf("out/%s line %d: more than the %d labelled positions of the split; write one row per labelled position (scored.<t> = 1 in the inputs file)", name, line, len(want))
		}
		if len(rec) != vocab+2 {
			return fmt.Errorf("out/%s line %d: %d fields, want %d (the sequence, the position, then a log-probability for each of the %d token ids)", name, line, len(rec), vocab+2, vocab)
		}
		w := want[row]
		n, errN := strconv.Atoi(strings.TrimSpace(rec[0]))
		t, errT := strconv.Atoi(strings.TrimSpace(rec[1]))
		if errN != nil || errT != nil || n != w.n || t != w.t {
			return fmt.Errorf("out/%s line %d: sequence %q position %q, want sequence %d position %d; write the labelled positions in order, sequence then position", name, line, rec[0], rec[1], w.n, w.t)
		}
		for j, v := range rec[2:] {
			x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil || !finite(x) {
				return fmt.Errorf("out/%s line %d: the score of token %d at sequence %d position %d is %q, not a finite number (a log-probability of 0 is written as a large negative number, e.g. -1e30; a trainer whose training diverged writes {\"diverged\": true} to out/result.json)", name, line, j, w.n, w.t, v)
			}
			out = append(out, x)
		}
		row++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if row != len(want) {
		return nil, fmt.Errorf("out/%s: %d rows, want %d (one row per labelled position of the split)", name, row, len(want))
	}
	return out, nil
}

// ScoreTokens returns the mean cross-entropy and the accuracy of scores
// (M,V), a row per labelled position of s in order (ReadTokenScores),
// against s's labels. Each row is normalized first, so its cross-entropy
// is
//
//	logsumexp(row) − row[label] = log Σ_j exp(row_j − m) + m − row[label],  m = max_j row_j,
//
// which is −row[label] for a row of log-probabilities; a row is correct
// when its arg-max (the lowest index among equal maxima, as the built-in
// model's) is the label. Sums run in float64, in row order.
func ScoreTokens(scores []float64, s *track.TokenSplit, vocab int) (ce, acc float64) {
	m := len(scores) / vocab
	if m == 0 || m*vocab != len(scores) {
		panic(fmt.Sprintf("trial: ScoreTokens: %d scores for vocab %d", len(scores), vocab))
	}
	var sum float64
	correct, i := 0, 0
	for _, y := range s.Labels {
		if y < 0 {
			continue
		}
		if i == m {
			panic(fmt.Sprintf("trial: ScoreTokens: %d rows of scores for a split of more labelled positions", m))
		}
		row := scores[i*vocab:][:vocab]
		mx, arg := row[0], 0
		for j, z := range row {
			if z > mx {
				mx, arg = z, j
			}
		}
		if arg == int(y) {
			correct++
		}
		var z float64
		for _, x := range row {
			z += math.Exp(x - mx)
		}
		sum += math.Log(z) + mx - row[y]
		i++
	}
	if i != m {
		panic(fmt.Sprintf("trial: ScoreTokens: %d rows of scores for %d labelled positions", m, i))
	}
	return sum / float64(m), float64(correct) / float64(m)
}
