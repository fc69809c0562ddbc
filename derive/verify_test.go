package derive

import (
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/report"

	"github.com/stretchr/testify/require"
)

func TestParseReportErrors(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       string
	}{
		{"syntax", "{\n\"n_seeds\": 8\n\"track\": \"sequence\"}", `r.json:3:1: invalid character '"' after object key:value pair`},
		{"type", `{"comparison": {"n_pairs": 1.5}}`, `r.json:1:28: comparison.n_pairs = 1.5: not a whole number`},
		{"nested_type", `{"baseline": {"sweep": [{}, {"cfg": {"lr": "x"}}]}}`, `r.json:1:44: baseline.sweep[1].cfg.lr = "x": not a number`},
		{"not_object", `"report"`, `r.json:1:1: the top level is a string, not a JSON object`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := report.Parse([]byte(tc.json), "r.json")
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestVerifyMalformed: a report that parses but does not hang together
// gives mismatches, never a panic, and names the field that is wrong.
func TestVerifyMalformed(t *testing.T) {
	one, zero, huge := 1.0, 0, 1<<40
	// rows is a math check of one row, for an edit to break.
	const rows = `{"mechanism_signature": {"math_check": {"rows": [{"rho": 0.5}]}}}`
	for _, tc := range []struct {
		name  string
		json  string
		edit  func(r *report.Report)
		field string // a field a mismatch names
		want  string // in that mismatch's re-derived side
	}{
		{"empty", `{"bench_version": 1}`, nil, "track", "present"},
		{"nil", "", nil, "metric_direction", "lower is better"},
		{"short_per_seed", `{"n_seeds": 3, "baseline": {"full": {"per_seed": [1, 2, 3]}}, "idea": {"per_seed": [1]}}`, nil, "n_seeds", "0"},
		{"sweep_without_values", `{"baseline": {"sweep": [{}, {"per_seed": []}]}, "mechanism_signature": {"idea_sweep": [{}]}}`, nil, "baseline.sweep[1].mean", "present"},
		{"bad_alpha", `{"comparison": {"alpha": 7}, "metric_direction": "lower is better", "baseline": {"full": {"per_seed": [1, 2]}}, "idea": {"per_seed": [2, 1]}}`, nil, "comparison", "Alpha = 7"},
		{"rho_outside", `{"mechanism_signature": {"math_check": {"rows": [{"rho": 1}, {"rho": -2}]}}}`, nil, "mechanism_signature.math_check.rows[1].rho", "must be in [0,1)"},
		{"rho_nan", rows, func(r *report.Report) { r.MechanismSignature.MathCheck.Rows[0].Rho = math.NaN() }, "mechanism_signature.math_check.rows[0].rho", "rho = NaN"},
		{"steps_zero", rows, func(r *report.Report) {
			r.MechanismSignature.MathCheck.Rows = []idea.GateMathRow{{Rho: 0.5, Beta: &one, Drive: &one, Steps: &zero}}
		}, "mechanism_signature.math_check.rows (count)", "0"},
		// 2^40 steps would need 16 TiB to simulate.
		{"steps_huge", rows, func(r *report.Report) {
			r.MechanismSignature.MathCheck.Rows = []idea.GateMathRow{{Rho: 0.5, Beta: &one, Drive: &one, Steps: &huge}}
		}, "mechanism_signature.math_check.rows (count)", "0"},
		{"layers_only", `{"mechanism_signature": {"mechanism_signature": {"layers": [{}, {}]}}}`, nil, "mechanism_signature.mechanism_signature.predicted_steady_gain", "present"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r *report.Report
			if tc.json != "" {
				var err error
				r, err = report.Parse([]byte(tc.json), "r.json")
				require.NoError(t, err)
			}
			if tc.edit != nil {
				tc.edit(r)
			}
			var fs Findings
			require.NotPanics(t, func() { fs = Verify(r, VerifyOptions{}) })
			require.NotEmpty(t, fs.Mismatches())
			var named []string
			for _, f := range fs.Mismatches() {
				require.NotEmpty(t, f.String())
				named = append(named, f.Field)
				if f.Field == tc.field {
					require.Contains(t, f.Want, tc.want, f.String())
				}
			}
			require.Contains(t, named, tc.field)
		})
	}
}

// TestSeedReportFixture: the copy is the shared seed report, byte for
// byte, where ../shared is present.
func TestSeedReportFixture(t *testing.T) {
	shared, err := os.ReadFile("../../shared/seed/seed-report.json")
	if err != nil {
		t.Skip("../shared is not present:", err)
	}
	copied, err := os.ReadFile(testkit.SeedReport)
	require.NoError(t, err)
	require.Equal(t, string(shared), string(copied))
}

// TestVerifySeedReport: the seed report re-derives except two explained
// findings: its Monte Carlo p-value (0.6281, exact 0.625 = 160/256) and
// its mde, computed with the table value t = 2.365 instead of the exact
// quantile 2.36462.
func TestVerifySeedReport(t *testing.T) {
	r, err := report.Read(testkit.SeedReport)
	require.NoError(t, err)
	fs := Verify(r, VerifyOptions{Rerun: true})
	require.Empty(t, fs.Mismatches())
	var fields []string
	for _, f := range fs.Findings {
		fields = append(fields, f.Field)
	}
	require.Equal(t, []string{"comparison.p_value", "comparison.mde"}, fields)
	require.Equal(t, "0.625", fs.Findings[0].Want)
	require.Greater(t, fs.Checked, 50)
}

// TestVerifyMissing: a field the report lacks is reported as missing, once,
// not as a mismatch of its zero value; a file with none of the report's
// fields is not a report.
func TestVerifyMissing(t *testing.T) {
	raw, err := os.ReadFile(testkit.SeedReport)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	delete(doc["comparison"].(map[string]any), "delta_mean")
	sweep := doc["baseline"].(map[string]any)["sweep"].([]any)
	delete(sweep[1].(map[string]any), "mean")
	edited, err := json.Marshal(doc)
	require.NoError(t, err)
	r, err := report.Parse(edited, "edited")
	require.NoError(t, err)
	var missing []string
	for _, f := range Verify(r, VerifyOptions{}).Mismatches() {
		if f.Got == "missing" {
			missing = append(missing, f.Field)
		} else {
			require.NotContains(t, []string{"comparison.delta_mean", "baseline.sweep[1].mean"}, f.Field, "a missing field is not also a mismatch")
		}
	}
	require.Equal(t, []string{"baseline.sweep[1].mean", "comparison.delta_mean"}, missing)

	for _, bad := range []string{`{}`, `{"name": "x", "values": [1, 2]}`} {
		_, err := report.Parse([]byte(bad), "other.json")
		require.ErrorContains(t, err, "other.json is not an ideabench report")
	}
}

// TestDiffTolerances: the one tolerance policy of every verify, as Diff
// applies it leaf by leaf.
func TestDiffTolerances(t *testing.T) {
	for _, tc := range []struct {
		name      string
		path      []string // object keys from the root to the leaf
		got, want any
		agree     bool
	}{
		{"exact", []string{"development", "mean"}, 0.1, 0.1, true},
		{"last_bits", []string{"development", "mean"}, 0.1, 0.1 * (1 + 1e-14), true},
		{"moved", []string{"development", "mean"}, 0.1, 0.1 * (1 + 1e-9), false},
		{"whole", []string{"n_seeds"}, 3, 4, false},
		// A hierarchical model is a Markov chain: its probabilities agree
		// within 0.02, its means within 5%, its sample counts exactly.
		{"hier_p", []string{"development", "hierarchical", "p_better"}, 0.80, 0.81, true},
		{"hier_p_whole", []string{"development", "hierarchical", "p_better"}, 1, 0.99, true},
		{"hier_p_far", []string{"development", "hierarchical", "p_better"}, 0.80, 0.85, false},
		{"hier_delta0", []string{"development", "hierarchical", "delta0"}, 0.0100, 0.0102, true},
		{"hier_delta0_far", []string{"development", "hierarchical", "delta0"}, 0.0100, 0.0120, false},
		{"hier_samples", []string{"development", "hierarchical", "samples"}, 20000, 20001, false},
		{"not_below_hierarchical", []string{"development", "hierarchical_p"}, 0.80, 0.81, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nest := func(leaf any) any {
				v := leaf
				for i := len(tc.path) - 1; i >= 0; i-- {
					v = map[string]any{tc.path[i]: v}
				}
				return v
			}
			d := Diff(nest(tc.got), nest(tc.want))
			require.Equal(t, 1, d.Checked)
			if tc.agree {
				require.Empty(t, d.Findings)
			} else {
				require.Len(t, d.Findings, 1)
				require.Equal(t, strings.Join(tc.path, "."), d.Findings[0].Field)
			}
		})
	}
}

// TestVerifySetupMissing: a report of this harness whose setup block
// was deleted is not read as the seed report (which has none): verify
// names setup first, with the blocks that give it away, and the seed
// report itself still has no such finding.
func TestVerifySetupMissing(t *testing.T) {
	r := derivedByHand(t)
	r.Setup = nil
	fs := Verify(r, VerifyOptions{}).Mismatches()
	require.NotEmpty(t, fs)
	require.Equal(t, "setup", fs[0].Field)
	require.Contains(t, fs[0].Want, "the report has this harness's own blocks (budget, informativeness")
	seed, err := report.Read(testkit.SeedReport)
	require.NoError(t, err)
	for _, f := range Verify(seed, VerifyOptions{}).Findings {
		require.NotEqual(t, "setup", f.Field)
	}
}
