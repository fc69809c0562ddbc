package num

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// QuoteMax is how many bytes of a value Quote shows: enough to recognise
// a number, a timestamp or a column name, short enough that a message
// about a cell of megabytes stays one line.
const QuoteMax = 40

// Quote is s quoted as %q quotes it, cut after QuoteMax bytes (at a
// character boundary) with an ellipsis and s's length when longer, so an
// error can quote a bad cell of any size.
func Quote(s string) string {
	if len(s) <= QuoteMax {
		return strconv.Quote(s)
	}
	n := QuoteMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:n]), len(s))
}

// ParseDecimal reads s as a finite float64 written in decimal notation:
// an optional sign, digits with an optional decimal point, and an
// optional exponent ("-1.5", ".5", "2e-3", "1E+08"). It refuses what
// strconv.ParseFloat would also take but a CSV file or a command line does
// not mean as a number: Go's digit separators ("1_000"), hexadecimal
// ("0x1p3"), "NaN", "Inf" and "infinity", and values beyond float64's
// range. Its errors quote s by Quote.
func ParseDecimal(s string) (float64, error) {
	if !isDecimal(s) {
		return 0, fmt.Errorf("%s is not a decimal number", Quote(s))
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, fmt.Errorf("%s is beyond the range of a float64", Quote(s))
	}
	return v, nil
}

// isDecimal reports whether s matches
//
//	[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?
func isDecimal(s string) bool {
	i, n := 0, len(s)
	if i < n && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := func() int {
		j := i
		for i < n && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i - j
	}
	mant := digits()
	if i < n && s[i] == '.' {
		i++
		mant += digits()
	}
	if mant == 0 {
		return false
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == n
}

// ShellQuote is s as one word of a POSIX shell: as it is when it holds
// only characters no shell treats specially, else in single quotes (a
// single quote inside closed, escaped and reopened), so a command
// printed for a user to paste runs as printed whatever the path it names.
func ShellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=,+@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
