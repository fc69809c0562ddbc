package trial

import (
	"bytes"
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
