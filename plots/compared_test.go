package plots

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/compare"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
	"github.com/stretchr/testify/require"
)

// compared is a comparison of two arms on four seeds from sources (none:
// rows given in memory as "hand").
func compared(t *testing.T, sources []report.ComparedSource) *report.Compared {
	t.Helper()
	var rows []compare.Row
	for s, x := range []float64{1, 2, 3, 4} {
		rows = append(rows, compare.Row{Arm: "base", Seed: fmt.Sprint(s), Test: x})
		rows = append(rows, compare.Row{Arm: "gate", Seed: fmt.Sprint(s), Test: 0.9 * x})
	}
	c, err := compare.Compare(rows, compare.Options{Sources: sources, Source: "hand", Direction: stats.LowerIsBetter})
	require.NoError(t, err)
	return c
}

// TestComparedReadingSources: a comparison's reading names where its
// numbers came from: the metrics file with its SHA-256, each run
// report's arm with its own, or rows given in memory; and its page
// (WriteComparedHTML) shows the whole SHA-256 on hover and no figures.
func TestComparedReadingSources(t *testing.T) {
	sum := strings.Repeat("ab", 32)
	for _, tc := range []struct {
		name    string
		sources []report.ComparedSource
		want    string
	}{
		{"metrics_file", []report.ComparedSource{{Path: "m.csv", SHA256: sum}},
			"source: m.csv, SHA-256 abababababab… (trained elsewhere; only the statistics are ideabench's)\n"},
		{"run_reports", []report.ComparedSource{{Arm: "base", Path: "a.json", ArmOfReport: "baseline", SHA256: sum}, {Arm: "gate", Path: "b.json", ArmOfReport: "idea", SHA256: sum}},
			"source: base=a.json#baseline, gate=b.json#idea (trained elsewhere; only the statistics are ideabench's)\n" +
				"  report of arm base: a.json, SHA-256 abababababab…\n" +
				"  report of arm gate: b.json, SHA-256 abababababab…\n"},
		{"in_memory", nil, "source: hand, given in memory (no file) (trained elsewhere; only the statistics are ideabench's)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := compared(t, tc.sources)
			var b bytes.Buffer
			require.NoError(t, ComparedReading(c).WriteText(&b))
			require.Contains(t, b.String(), tc.want)

			path := HTMLPath(t.TempDir())
			require.NoError(t, WriteComparedHTML(c, path, Options{}))
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			page := string(raw)
			require.Contains(t, page, `id="verdict">`+c.Comparison.VerdictLine()+"<")
			if tc.sources != nil {
				require.Contains(t, page, `<span title="`+sum+`">`)
			}
			require.NotContains(t, page, "<h2>Figures</h2>")
		})
	}
	t.Run("no_comparison", func(t *testing.T) {
		c := compared(t, nil)
		c.Arms = c.Arms[:1]
		require.ErrorContains(t, WriteComparedHTML(c, HTMLPath(t.TempDir()), Options{}), "plots: no comparison")
		c = compared(t, nil)
		c.Ideas = append(c.Ideas, report.ComparedIdea{Name: "extra"})
		require.ErrorContains(t, WriteComparedHTML(c, HTMLPath(t.TempDir()), Options{}), "plots: ideas: 1 comparisons for 0 arms beyond the first idea arm")
	})
}
