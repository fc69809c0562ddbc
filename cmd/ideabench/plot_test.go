package main

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/report"

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
		// No --out: ./plots.
		{"default-out", []string{out}, "plots"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.dir == "plots" {
				t.Chdir(t.TempDir())
			}
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
	r, err := report.ReadReport(seed)
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
	r, err := report.ReadReport("../../report/testdata/seed-report.json")
	require.NoError(t, err)
	var stdout bytes.Buffer
	dir := t.TempDir()
	require.NoError(t, writePlots(r, dir, &stdout))
	require.Equal(t, figureFiles[:4], plotLines(t, stdout.String()))
}
