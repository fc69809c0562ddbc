package compare

import (
	"strings"
	"testing"

	"github.com/ideabench/ideabench/internal/jsonstrict/stricttest"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
	"github.com/stretchr/testify/require"
)

// TestParseRowsStrict: per-seed metrics as JSON with trailing data or an
// unknown key are refused where the fault is.
func TestParseRowsStrict(t *testing.T) {
	stricttest.Refuses(t, []byte(`[{"arm": "b", "seed": 0, "test": 1}, {"arm": "b", "seed": 1, "test": 2}]`), func(raw []byte) error {
		_, err := ParseRows(raw, "m.json")
		return err
	})
}

// TestVerifySources: rows given in memory verify with a note (no file to
// read again); sources that do not fit the arms are each named by the
// field at fault, and by Compare as an option error.
func TestVerifySources(t *testing.T) {
	rows := rowsOf(map[string][]float64{"base": {1, 2, 3, 4}, "idea": {0.9, 1.8, 2.7, 3.6}}, "base", "idea")
	c, err := Compare(rows, Options{Source: "hand", Direction: stats.LowerIsBetter})
	require.NoError(t, err)
	require.Equal(t, []report.ComparedSource{{Path: "hand"}}, c.Sources)
	f := VerifyWithSources(c, "c.json")
	require.Empty(t, f.Mismatches())
	require.Len(t, f.Findings, 1)
	require.Equal(t, "sources[0]", f.Findings[0].Field)
	require.Contains(t, f.Findings[0].Note, "rows given in memory, with no file to read again")

	sum := strings.Repeat("0f", 32)
	arm := func(name, path, of, sha string) report.ComparedSource {
		return report.ComparedSource{Arm: name, Path: path, ArmOfReport: of, SHA256: sha}
	}
	for _, tc := range []struct {
		name    string
		sources []report.ComparedSource
		field   string
	}{
		{"none", []report.ComparedSource{}, "sources"},
		{"file_no_path", []report.ComparedSource{{SHA256: sum}}, "sources[0].path"},
		{"file_with_arm_of_report", []report.ComparedSource{{Path: "m.csv", ArmOfReport: "idea", SHA256: sum}}, "sources[0].arm_of_report"},
		{"file_bad_sha", []report.ComparedSource{{Path: "m.csv", SHA256: strings.ToUpper(sum)}}, "sources[0].sha256"},
		{"file_and_more", []report.ComparedSource{{Path: "m.csv", SHA256: sum}, arm("idea", "b.json", "idea", sum)}, "sources"},
		{"reports_one_short", []report.ComparedSource{arm("base", "a.json", "baseline", sum)}, "sources"},
		{"report_other_arm", []report.ComparedSource{arm("base", "a.json", "baseline", sum), arm("other", "b.json", "idea", sum)}, "sources[1].arm"},
		{"report_arm_twice", []report.ComparedSource{arm("base", "a.json", "baseline", sum), arm("base", "b.json", "idea", sum)}, "sources[1].arm"},
		{"report_no_path", []report.ComparedSource{arm("base", "a.json", "baseline", sum), arm("idea", "", "idea", sum)}, "sources[1].path"},
		{"report_no_arm_of_report", []report.ComparedSource{arm("base", "a.json", "", sum), arm("idea", "b.json", "idea", sum)}, "sources[0].arm_of_report"},
		// A run report always has its SHA-256: it is never given in memory.
		{"report_no_sha", []report.ComparedSource{arm("base", "a.json", "baseline", sum), arm("idea", "b.json", "idea", "")}, "sources[1].sha256"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compare(rows, Options{Sources: tc.sources, Direction: stats.LowerIsBetter})
			if len(tc.sources) > 0 { // none is rows given in memory, labelled ""
				require.ErrorIs(t, err, ErrOption)
				require.ErrorContains(t, err, tc.field+": ")
			}
			bad := *c
			bad.Sources = tc.sources
			var fields []string
			for _, m := range VerifyWithSources(&bad, "c.json").Mismatches() {
				fields = append(fields, m.Field)
			}
			require.Contains(t, fields, tc.field)
		})
	}
}
