package main

import (
	"bytes"
	"context"
	"html"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/plots"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/suitereport"

	"github.com/stretchr/testify/require"
)

var figureFiles = []string{"paired.png", "paired.svg", "sweep.png", "sweep.svg", "gate.png", "gate.svg", "loss.png", "loss.svg", "budget.png", "budget.svg"}

// plotLines are the paths cmdPlot printed, base names only: the
// figures, then the page (report.html) last.
func plotLines(t *testing.T, stdout string) []string {
	t.Helper()
	var got []string
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	for i, l := range lines {
		p, ok := strings.CutPrefix(l, "plot: ")
		if i == len(lines)-1 {
			p, ok = strings.CutPrefix(l, "page: ")
			require.True(t, ok, "the last line names the page: %s", l)
			require.Equal(t, "report.html", filepath.Base(p))
			break
		}
		require.True(t, ok, l)
		got = append(got, filepath.Base(p))
	}
	return got
}

func TestPlot(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	var stdout, stderr bytes.Buffer
	ctx := context.Background()
	require.NoError(t, run(ctx, []string{"run", "--config", "testdata/tiny.json", "--out", out, "--quiet", "--plots", filepath.Join(dir, "run")}, &stdout, &stderr), stderr.String())
	require.Equal(t, len(figureFiles), strings.Count(stdout.String(), "plot: "), "run --plots lists every file")
	for _, tc := range []struct {
		name string
		args []string
		dir  string // where the files go
	}{
		{"flags-after", []string{out, "--out", filepath.Join(dir, "a")}, filepath.Join(dir, "a")},
		{"flags-before", []string{"--out", filepath.Join(dir, "b"), out}, filepath.Join(dir, "b")},
		{"flag-equals", []string{out, "--out=" + filepath.Join(dir, "c")}, filepath.Join(dir, "c")},
		// No --out: the report's path with .plots, beside it (never the
		// plots/ package of the folder it runs in).
		{"default-out", []string{out}, filepath.Join(dir, "r.plots")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			var stdout, stderr bytes.Buffer
			require.NoError(t, cmdPlot(tc.args, &stdout, &stderr), stderr.String())
			require.Equal(t, figureFiles, plotLines(t, stdout.String()))
			for _, name := range figureFiles {
				got, err := os.ReadFile(filepath.Join(tc.dir, name))
				require.NoError(t, err)
				require.NotEmpty(t, got)
				if strings.HasSuffix(name, ".png") {
					cfg, err := png.DecodeConfig(bytes.NewReader(got))
					require.NoError(t, err)
					require.Equal(t, [2]int{605, 378}, [2]int{cfg.Width, cfg.Height})
				}
				fromRun, err := os.ReadFile(filepath.Join(dir, "run", name))
				require.NoError(t, err)
				require.Equal(t, fromRun, got, "the same report draws the same file")
			}
		})
	}
}

func TestPlotErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.json")
	require.NoError(t, (&report.Report{MetricDirection: "lower is better"}).WriteFile(empty))
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	seed := "../../report/testdata/seed-report.json"
	r, err := report.Read(seed)
	require.NoError(t, err)
	r.Comparison.DeltaMean *= 2
	edited := filepath.Join(dir, "edited.json")
	require.NoError(t, r.WriteFile(edited))
	for _, tc := range []struct {
		name  string
		args  []string
		usage bool // wraps errUsage (exit status 2)
		want  string
	}{
		{"no-report", nil, true, "plot takes a report file"},
		{"two-reports", []string{seed, "extra"}, true, `plot takes one report file (got also ["extra"])`},
		{"unknown-flag", []string{"--bogus", seed}, true, "flag provided but not defined: -bogus"},
		{"unknown-flag-after", []string{seed, "--bogus"}, true, "flag provided but not defined: -bogus"},
		{"out-without-value", []string{seed, "--out"}, true, "flag needs an argument: -out"},
		{"missing-report", []string{filepath.Join(dir, "none.json")}, false, "none.json"},
		// A report that does not verify is not drawn, unless asked; one
		// without per-seed metrics cannot be drawn at all.
		{"edited-report", []string{edited, "--out", filepath.Join(dir, "p")}, false, "edited.json does not verify (1 mismatches, the first comparison.delta_mean"},
		{"empty-report", []string{empty, "--out", filepath.Join(dir, "p")}, false, "empty.json does not verify"},
		{"empty-report-unverified", []string{empty, "--unverified", "--out", filepath.Join(dir, "p")}, false, "plots: paired: baseline.full.per_seed is empty"},
		{"unwritable-out", []string{seed, "--out", filepath.Join(file, "sub")}, false, "plots: creating " + filepath.Join(file, "sub")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := cmdPlot(tc.args, &stdout, &stderr)
			require.ErrorContains(t, err, tc.want)
			if tc.usage {
				require.ErrorIs(t, err, errUsage)
			} else {
				require.NotErrorIs(t, err, errUsage)
			}
			require.Empty(t, stdout.String())
		})
	}
	t.Run("via-run", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		require.ErrorIs(t, run(context.Background(), []string{"plot"}, &stdout, &stderr), errUsage)
	})
}

// TestWritePlotsOldReport: writePlots on a report of the seed schema
// draws the figures it has data for and lists only those.
func TestWritePlotsOldReport(t *testing.T) {
	r, err := report.Read("../../report/testdata/seed-report.json")
	require.NoError(t, err)
	var stdout bytes.Buffer
	dir := t.TempDir()
	require.NoError(t, writePlots(r, dir, plots.Options{}, &stdout))
	require.Equal(t, figureFiles[:4], plotLines(t, stdout.String()))
}

// svgTexts are the texts of an SVG file in the order they are drawn.
var svgText = regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)

func svgTexts(t *testing.T, path string) []string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var out []string
	for _, m := range svgText.FindAllStringSubmatch(string(raw), -1) {
		out = append(out, html.UnescapeString(m[1]))
	}
	return out
}

// TestPlotUnverified: plot --unverified draws a report that does not
// verify, and then its page says so before the verdict and every
// figure's title opens with it; the suite's page and figures alike.
func TestPlotUnverified(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"run", "--config", "testdata/tiny.json", "--out", out, "--quiet"}, &stdout, &stderr), stderr.String())
	r, err := report.Read(out)
	require.NoError(t, err)
	r.Comparison.Verdict = "significant win" // the tampered verdict
	require.NoError(t, r.WriteFile(out))
	pd := filepath.Join(dir, "p")
	stdout.Reset()
	require.NoError(t, cmdPlot([]string{out, "--unverified", "--out", pd}, &stdout, &stderr))
	raw, err := os.ReadFile(filepath.Join(pd, "report.html"))
	require.NoError(t, err)
	page := string(raw)
	banner := strings.Index(page, "UNVERIFIED: this report does not re-derive (1 mismatches, first: comparison.verdict); its numbers may have been edited")
	require.GreaterOrEqual(t, banner, 0, "the page says it did not verify")
	require.Less(t, banner, strings.Index(page, `id="verdict"`), "before the verdict")
	require.Less(t, banner, strings.Index(page, "<h1"), "before anything else")
	for _, name := range figureFiles {
		if !strings.HasSuffix(name, ".svg") {
			continue
		}
		texts := svgTexts(t, filepath.Join(pd, name))
		require.NotEmpty(t, texts, name)
		require.True(t, strings.HasPrefix(texts[0], "UNVERIFIED"), "%s opens with %q", name, texts[0])
	}
	// The same report verified (its verdict put back) draws no banner.
	r.Comparison.Verdict = "no significant win"
	require.NoError(t, r.WriteFile(out))
	require.NoError(t, cmdPlot([]string{out, "--out", pd}, &stdout, &stderr))
	raw, err = os.ReadFile(filepath.Join(pd, "report.html"))
	require.NoError(t, err)
	require.NotContains(t, string(raw), "UNVERIFIED")
	require.NotContains(t, strings.Join(svgTexts(t, filepath.Join(pd, "paired.svg")), "\n"), "UNVERIFIED")

	t.Run("suite", func(t *testing.T) {
		sout := filepath.Join(dir, "s.json")
		require.NoError(t, run(context.Background(), []string{"suite", "--suite", "ci", "--out", sout, "--quiet", "--data-dir", dir}, &stdout, &stderr), stderr.String())
		s, err := suitereport.Read(sout)
		require.NoError(t, err)
		s.Verdict = "better"
		require.NoError(t, s.WriteFile(sout))
		sd := filepath.Join(dir, "sp")
		require.NoError(t, cmdPlot([]string{sout, "--unverified", "--out", sd}, &stdout, &stderr))
		raw, err := os.ReadFile(filepath.Join(sd, "report.html"))
		require.NoError(t, err)
		page := string(raw)
		banner := strings.Index(page, "UNVERIFIED: this report does not re-derive (1 mismatches, first: verdict)")
		require.GreaterOrEqual(t, banner, 0, "the suite page says it did not verify")
		require.Less(t, banner, strings.Index(page, `id="verdict"`))
		texts := svgTexts(t, filepath.Join(sd, "forest.svg"))
		require.True(t, strings.HasPrefix(texts[0], "UNVERIFIED"), "forest.svg opens with %q", texts[0])
	})
}

// TestPlotCompared: plot of a comparison report (ideabench compare)
// verifies it as verify does, its source read again, and writes its page
// (no figures: those need a run's report): the source with its SHA-256,
// the verdict and the sweeps. An edited comparison is refused unless
// --unverified, which marks the page; a source absent here is a note on
// stderr, and the page is drawn.
func TestPlotCompared(t *testing.T) {
	dir := t.TempDir()
	csvText, err := os.ReadFile("testdata/compare.csv")
	require.NoError(t, err)
	src := filepath.Join(dir, "m.csv")
	require.NoError(t, os.WriteFile(src, csvText, 0o644))
	out := filepath.Join(dir, "c.json")
	require.NoError(t, run(context.Background(), []string{"compare", src, "--out", out}, &bytes.Buffer{}, &bytes.Buffer{}))
	c, err := report.ReadCompared(out)
	require.NoError(t, err)
	sum := c.Sources[0].SHA256

	pd := filepath.Join(dir, "p")
	var stdout, stderr bytes.Buffer
	require.NoError(t, cmdPlot([]string{out, "--out", pd}, &stdout, &stderr))
	require.Equal(t, "page: "+filepath.Join(pd, "report.html")+"\n", stdout.String(), "the page only")
	require.Empty(t, stderr.String())
	raw, err := os.ReadFile(filepath.Join(pd, "report.html"))
	require.NoError(t, err)
	page := html.UnescapeString(string(raw))
	require.Contains(t, page, `id="verdict">`+c.Comparison.VerdictLine()+"<")
	require.Contains(t, page, `<span title="`+sum+`">`+src+", SHA-256 "+sum[:12]+"… (trained elsewhere")
	require.Contains(t, page, "<td>gated</td><td>lr=0.001</td>")
	require.NotContains(t, page, "UNVERIFIED")
	require.NotContains(t, page, "Figures", "no heading without figures")

	c.Comparison.IdeaWins--
	edited := filepath.Join(dir, "edited.json")
	require.NoError(t, c.WriteFile(edited))
	err = cmdPlot([]string{edited, "--out", pd}, &bytes.Buffer{}, &bytes.Buffer{})
	require.ErrorContains(t, err, "edited.json does not verify (1 mismatches, the first comparison.idea_wins")
	stderr.Reset()
	require.NoError(t, cmdPlot([]string{edited, "--unverified", "--out", pd}, &bytes.Buffer{}, &stderr))
	require.Contains(t, stderr.String(), "edited.json does not verify (1 mismatches); drawing it unverified")
	raw, err = os.ReadFile(filepath.Join(pd, "report.html"))
	require.NoError(t, err)
	page = string(raw)
	banner := strings.Index(page, "UNVERIFIED: this report does not re-derive (1 mismatches, first: comparison.idea_wins)")
	require.GreaterOrEqual(t, banner, 0)
	require.Less(t, banner, strings.Index(page, "<h1"))

	require.NoError(t, os.Remove(src))
	stdout.Reset()
	stderr.Reset()
	require.NoError(t, cmdPlot([]string{out, "--out", filepath.Join(dir, "q")}, &stdout, &stderr))
	require.Equal(t, "note sources[0]: "+src+" is absent here: the arms' per-seed values are checked against each other only, not against their source\n", stderr.String())
	require.FileExists(t, filepath.Join(dir, "q", "report.html"))
}
