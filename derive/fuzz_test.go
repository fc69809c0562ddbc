package derive

import (
	"os"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/report"

	"github.com/stretchr/testify/require"
)

// The seed corpus is testdata/fuzz/FuzzParseReport (valid, truncated, mistyped and
// hostile inputs); `go test` runs it with the f.Add seeds below, and
//
//	go test -run '^$' -fuzz '^FuzzParseReport$' -fuzztime 60s ./derive/
//
// searches further.

// FuzzParseReport: ParseReport never panics, every error names the file,
// and Verify never panics on a report it accepts.
func FuzzParseReport(f *testing.F) {
	for _, path := range []string{"../golden/ci_1.snap.json", testkit.SeedReport} {
		raw, err := os.ReadFile(path)
		require.NoError(f, err)
		f.Add(raw)
		f.Add(raw[:len(raw)/2])
	}
	for _, s := range []string{
		`{}`,
		`null`,
		`{"n_seeds": 2, "idea": {"per_seed": [1]}, "baseline": {"full": {"per_seed": [1, 2]}, "sweep": [{}]}}`,
		`{"mechanism_signature": {"math_check": {"rows": [{"rho": 1, "beta": 1, "drive": 1, "steps": 0}]}}}`,
		`{"comparison": {"alpha": 2}, "metric_direction": "lower is better", "idea": {"per_seed": [1, 2]}, "baseline": {"full": {"per_seed": [1, 3]}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := report.Parse(raw, "fuzz.json")
		if err != nil {
			require.ErrorContains(t, err, "fuzz.json")
			return
		}
		require.NotNil(t, r)
		fs := Verify(r, VerifyOptions{})
		for _, f := range fs.Findings {
			_ = f.String()
		}
	})
}
