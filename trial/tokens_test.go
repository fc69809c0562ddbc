package trial

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

func TestTokensCSV(t *testing.T) {
	s := track.TokenSplit{Tokens: []int32{1, 2, 3, 4, 5, 6}, Labels: []int32{-1, 7, -1, -1, -1, 0}, N: 2, T: 3, Vocab: 8}
	var buf bytes.Buffer
	require.NoError(t, WriteStamp(&buf, "abc", "test"))
	require.NoError(t, WriteTokensCSV(&buf, &s))
	text := buf.String()
	require.True(t, IsTokensHeader(strings.SplitN(text, "\n", 3)[1]))
	back, err := ReadTokensCSV(strings.NewReader(text), "t.csv", 8)
	require.NoError(t, err)
	require.Equal(t, s, *back, "the split round-trips")

	head := "sequence,token.0,token.1,label.0,label.1\n"
	for _, tc := range []struct{ name, csv, want string }{
		{"empty", "", "t.csv is empty"},
		{"header", "window,x.0,y.0\n0,1,2\n", "the header is not"},
		{"order", "sequence,token.0,token.2,label.0,label.1\n", `header column 3 is "token.2", want token.1`},
		{"not a number", head + "0,1,x,-1,3\n", `line 2, token.1 = "x"`},
		{"beyond vocab", head + "0,1,9,-1,3\n", `line 2, token.1 = "9": want an integer id in [0, 8)`},
		{"label below -1", head + "0,1,2,-2,3\n", `line 2, label.0 = "-2": want an integer id in [-1, 8)`},
		{"short row", head + "0,1,2,-1\n", "wrong number of fields"},
		{"no sequence", head, "holds no sequence"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTokensCSV(strings.NewReader(tc.csv), "t.csv", 8)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestScoreTokens: cross-entropy and accuracy from an external trainer's
// scores, on hand-derived rows; logits give what their log-softmax gives.
func TestScoreTokens(t *testing.T) {
	// Two sequences of 2 positions, 3 labelled, vocabulary 3.
	s := track.TokenSplit{Tokens: []int32{0, 1, 2, 0}, Labels: []int32{1, -1, 0, 2}, N: 2, T: 2, Vocab: 3}
	lg := math.Log
	for _, tc := range []struct {
		name    string
		scores  []float64
		ce, acc float64
	}{
		// Log-probabilities: CE is the mean of −log p(label).
		{"log-probabilities", []float64{lg(.25), lg(.5), lg(.25), lg(.5), lg(.25), lg(.25), lg(.1), lg(.1), lg(.8)},
			-(lg(.5) + lg(.5) + lg(.8)) / 3, 1},
		// Equal logits: ln 3 each; the arg-max of equal scores is id 0,
		// right for the second labelled position only.
		{"equal logits", make([]float64, 9), lg(3), 1.0 / 3},
		// Logits shifted by a constant give the same numbers.
		{"shifted", []float64{100 + lg(.25), 100 + lg(.5), 100 + lg(.25), 7 + lg(.5), 7 + lg(.25), 7 + lg(.25), -3 + lg(.1), -3 + lg(.1), -3 + lg(.8)},
			-(lg(.5) + lg(.5) + lg(.8)) / 3, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ce, acc := ScoreTokens(tc.scores, &s, 3)
			require.InDelta(t, tc.ce, ce, 1e-12)
			require.Equal(t, tc.acc, acc)
		})
	}
}

// TestReadTokenScores: an external trainer's scores file is read row by
// row against the split's labelled positions; each malformed file gets
// an error naming the line and what to write.
func TestReadTokenScores(t *testing.T) {
	s := track.TokenSplit{Tokens: []int32{0, 1, 2, 0}, Labels: []int32{1, -1, 0, 2}, N: 2, T: 2, Vocab: 3}
	head := "sequence,position,lp.0,lp.1,lp.2\n"
	ok := "0,0,-1,-2,-3\n1,0,0,0,0\n1,1,-5,-1e30,0.5\n"
	for _, tc := range []struct{ name, csv, want string }{
		{"ok", head + ok, ""},
		{"no header", ok, ""},
		{"short", head + "0,0,-1,-2,-3\n1,0,0,0,0\n", "2 rows, want 3 (one row per labelled position"},
		{"long", head + ok + "1,1,0,0,0\n", "line 5: more than the 3 labelled positions"},
		{"fields", head + "0,0,-1,-2\n", "line 2: 4 fields, want 5"},
		{"order", head + "1,0,0,0,0\n0,0,-1,-2,-3\n", `line 2: sequence "1" position "0", want sequence 0 position 0`},
		{"unlabelled", head + "0,1,0,0,0\n", `line 2: sequence "0" position "1", want sequence 0 position 0`},
		{"nan", head + "0,0,-1,NaN,-3\n", `line 2: the score of token 1 at sequence 0 position 0 is "NaN", not a finite number`},
		{"inf", head + "0,0,-Inf,0,-3\n", `the score of token 0 at sequence 0 position 0 is "-Inf"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "val.csv")
			require.NoError(t, os.WriteFile(path, []byte(tc.csv), 0o644))
			f, err := ReadTokenScores(path, &s, 3)
			if tc.want == "" {
				require.NoError(t, err)
				require.Equal(t, []float64{-1, -2, -3, 0, 0, 0, -5, -1e30, 0.5}, f)
				return
			}
			require.ErrorContains(t, err, "out/val.csv")
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err := ReadTokenScores(filepath.Join(t.TempDir(), "test.csv"), &s, 3)
	require.ErrorIs(t, err, os.ErrNotExist)

	var buf bytes.Buffer
	require.NoError(t, WriteTokenInputsCSV(&buf, &s))
	require.Equal(t, "sequence,token.0,token.1,scored.0,scored.1\n0,0,1,1,0\n1,2,0,1,1\n", buf.String(), "the test inputs: tokens and scored flags, no labels")
}
