package harness

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// The seed corpora are testdata/fuzz/FuzzParseProtocol and
// testdata/fuzz/FuzzParseReport (valid, truncated, mistyped and hostile
// inputs); `go test` runs them with the f.Add seeds below, and
//
//	go test -run '^$' -fuzz '^FuzzParseReport$' -fuzztime 60s ./harness/
//
// searches further.

// FuzzParseProtocol: ParseProtocol never panics, every error names the
// file, and an accepted protocol validates down to the model and the track
// and reads back from its own JSON unchanged.
func FuzzParseProtocol(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"seeds": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
		  "baseline": [{"lr": 0.001, "epochs": 8, "rho": 0, "beta": 0}, {"lr": 0.003, "epochs": 8, "rho": 0, "beta": 0}],
		  "idea": [{"lr": 0.001, "epochs": 8, "rho": 0.85, "beta": 0.5}, {"lr": 0.001, "epochs": 8, "rho": 0.95, "beta": 2.0}],
		  "arch": {"d": 32, "heads": 4, "layers": 2, "batch": 32},
		  "sequence": {"data_seed": 1, "train_windows": 512, "noise_std": 0.3},
		  "alpha": 0.05}`,
		`{"arch": {"d": 32, "heads": 3}, "alpha": 1, "seeds": [1, 1]}`,
		`{"idea": [{"lr": "0.1"}]}`,
		`{"Baseline": []}`,
		`{"idea": [], "idea": []}`,
		`{"seeds": [0,`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		p, err := ParseProtocol(raw, "fuzz.json", CIProfile())
		if err != nil {
			require.ErrorContains(t, err, "fuzz.json")
			return
		}
		require.NoError(t, p.Validate())
		if p.Track == "sequence" {
			require.NoError(t, p.Sequence.Validate())
		}
		// The model of every cfg is valid: with one input channel (a csv
		// file's channel count is known once it is read).
		tt, h := p.window()
		for _, c := range append(append([]Cfg{}, p.Baseline...), p.Idea...) {
			require.NoError(t, p.Arch.model(c, tt, h, 1, 0).Validate())
		}
		again, err := json.Marshal(p)
		require.NoError(t, err)
		q, err := ParseProtocol(again, "again.json", Protocol{})
		require.NoError(t, err)
		require.Equal(t, p, q)
	})
}

// FuzzParseReport: ParseReport never panics, every error names the file,
// and Verify never panics on a report it accepts.
func FuzzParseReport(f *testing.F) {
	for _, path := range []string{"../golden/ci_1.snap.json", "testdata/seed-report.json"} {
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
		r, err := ParseReport(raw, "fuzz.json")
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
