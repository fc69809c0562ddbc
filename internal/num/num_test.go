package num

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseDecimal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"0", 0, true},
		{"-1.5", -1.5, true},
		{"+2", 2, true},
		{".5", 0.5, true},
		{"5.", 5, true},
		{"2e-3", 0.002, true},
		{"1E+08", 1e8, true},
		{"1e308", 1e308, true},
		{"1e309", 0, false},     // beyond float64
		{"1_000", 0, false},     // Go's digit separator
		{"0x1p3", 0, false},     // Go's hexadecimal float
		{"NaN", 0, false},       // not a value of a series
		{"Inf", 0, false},       //
		{"-infinity", 0, false}, //
		{"", 0, false},
		{".", 0, false},
		{"e5", 0, false},
		{"1e", 0, false},
		{"1.2.3", 0, false},
		{" 1", 0, false}, // the caller trims
	} {
		t.Run(tc.in, func(t *testing.T) {
			v, err := ParseDecimal(tc.in)
			if !tc.ok {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, v)
		})
	}
}

func ExampleParseDecimal() {
	for _, s := range []string{"2.5e-3", "1_000"} {
		v, err := ParseDecimal(s)
		fmt.Println(v, err)
	}
	// Output:
	// 0.0025 <nil>
	// 0 "1_000" is not a decimal number
}

// TestQuote: a long value is quoted by its first QuoteMax bytes, cut at
// a character boundary, with an ellipsis and its length.
func TestQuote(t *testing.T) {
	long := ""
	for range 100 {
		long += "7"
	}
	for _, tc := range []struct{ name, in, want string }{
		{"short", "x1", `"x1"`},
		{"at_limit", long[:QuoteMax], `"` + long[:QuoteMax] + `"`},
		{"long", long, `"` + long[:QuoteMax] + `"… (100 bytes)`},
		// A three-byte character across the cut is left out whole.
		{"utf8", long[:QuoteMax-1] + "€€", `"` + long[:QuoteMax-1] + `"… (45 bytes)`},
		{"nul", "\x00\x00", `"\x00\x00"`},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, Quote(tc.in)) })
	}
	_, err := ParseDecimal(long + "x")
	require.EqualError(t, err, `"`+long[:QuoteMax]+`"… (101 bytes) is not a decimal number`)
}
