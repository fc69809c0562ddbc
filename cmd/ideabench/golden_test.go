package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/suitereport"
	"github.com/stretchr/testify/require"
)

// update rewrites the golden files of the printed output (cmd/gofmt's
// -update): go test -run Golden -update ./cmd/ideabench.
var update = flag.Bool("update", false, "rewrite testdata/*.golden with what the commands print")

// checkGolden compares got with testdata/NAME.golden, or rewrites it
// under -update. On a mismatch it writes got beside it as
// NAME.golden.got, to diff against the golden file.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		require.NoError(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file; write it with go test -run Golden -update ./cmd/ideabench")
	gotPath := path + ".got"
	if bytes.Equal(got, want) {
		os.Remove(gotPath)
		return
	}
	require.NoError(t, os.WriteFile(gotPath, got, 0o644))
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	line := 0
	for line < len(gl) && line < len(wl) && gl[line] == wl[line] {
		line++
	}
	first := func(ls []string) string {
		if line < len(ls) {
			return ls[line]
		}
		return "(end of output)"
	}
	t.Errorf("%s: line %d differs:\n got: %s\nwant: %s\nthe whole output is in %s (diff %s %s); if the change is meant: go test -run Golden -update ./cmd/ideabench",
		path, line+1, first(gl), first(wl), gotPath, path, gotPath)
}

// wallTime matches the volatile wall-clock times of run's and suite's
// last lines.
var wallTime = regexp.MustCompile(`\((\d+\.\d+)s`)

// TestGolden runs the commands on the files under testdata (and the
// ci-profile reports under golden/) and compares what they print with
// testdata/*.golden, as benchstat's tests do: run's summary of the tiny
// protocol, verify of its report as written and as edited, verify of the
// seed report (its explained notes), the summary of a ci-profile report,
// the suite summary of the ci suite, compare and verify of its report.
// The temporary directory reads $DIR and a wall time 0.0s.
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	command := func(t *testing.T, args ...string) []byte {
		t.Helper()
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), args, &stdout, &stderr)
		if err != nil {
			// As main prints it, after what the command printed.
			stdout.WriteString("ideabench: " + err.Error() + "\n")
		}
		out := strings.ReplaceAll(stdout.String(), dir, "$DIR")
		return []byte(wallTime.ReplaceAllString(out, "(0.0s"))
	}
	tiny := filepath.Join(dir, "tiny.json")
	t.Run("run", func(t *testing.T) {
		checkGolden(t, "run", command(t, "run", "--config", "testdata/tiny.json", "--out", tiny, "--workers", "2", "--quiet"))
	})
	t.Run("verify", func(t *testing.T) {
		checkGolden(t, "verify", command(t, "verify", tiny))
	})
	t.Run("verify-edited", func(t *testing.T) {
		r, err := report.Read(tiny)
		require.NoError(t, err)
		r.Comparison.IdeaWins++
		r.Comparison.Verdict = "significant win"
		edited := filepath.Join(dir, "edited.json")
		require.NoError(t, r.WriteFile(edited))
		checkGolden(t, "verify-edited", command(t, "verify", edited))
	})
	t.Run("verify-seed-report", func(t *testing.T) {
		checkGolden(t, "verify-seed-report", command(t, "verify", "../../report/testdata/seed-report.json"))
	})
	t.Run("summary-ci", func(t *testing.T) {
		r, err := report.Read("../../golden/ci_1.snap.json")
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, printSummary(&out, r))
		checkGolden(t, "summary-ci", out.Bytes())
	})
	t.Run("suite-ci", func(t *testing.T) {
		r, err := suitereport.Read("../../golden/suite_ci_1.snap.json")
		require.NoError(t, err)
		var out bytes.Buffer
		require.NoError(t, printSuite(&out, r))
		checkGolden(t, "suite-ci", out.Bytes())
	})
	compared := filepath.Join(dir, "compare.json")
	t.Run("compare", func(t *testing.T) {
		checkGolden(t, "compare", command(t, "compare", "testdata/compare.csv", "--out", compared))
	})
	t.Run("verify-compare", func(t *testing.T) {
		checkGolden(t, "verify-compare", command(t, "verify", compared))
	})
}
