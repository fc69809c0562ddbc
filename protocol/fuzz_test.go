package protocol

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ideabench/ideabench/transformer"
)

// The seed corpus is testdata/fuzz/FuzzParseProtocol (valid, truncated, mistyped and
// hostile inputs); `go test` runs it with the f.Add seeds below, and
//
//	go test -run '^$' -fuzz '^FuzzParseProtocol$' -fuzztime 60s ./protocol/
//
// searches further.

// FuzzParseProtocol: Parse never panics, every error names the
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
		p, err := Parse(raw, "fuzz.json", CIProfile())
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
		a := p.Arch
		for _, c := range append(append([]Cfg{}, p.Baseline...), p.Idea...) {
			// The fields trial.ModelConfig sets from the arch.
			mc := transformer.Config{D: a.D, Heads: a.Heads, Layers: a.Layers, T: tt, H: h, CIn: 1, Idea: c.IdeaConfig(),
				Patch: a.Patch, Norm: a.Norm, Skip: a.Skip, Loss: a.Loss, Positions: a.Positions}
			require.NoError(t, mc.Validate())
		}
		again, err := json.Marshal(p)
		require.NoError(t, err)
		q, err := Parse(again, "again.json", Protocol{})
		require.NoError(t, err)
		require.Equal(t, p, q)
	})
}
