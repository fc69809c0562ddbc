package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ideabench/ideabench/internal/testkit"
)

// TestBeyondMemory: a run or a suite whose token track no machine holds
// (the t = 2^28, whose sequences took 6.4 GB before anything
// weighed them) exits 2 at once, saying what it needs, what is
// available and which field to lower, and leaves no folder behind.
func TestBeyondMemory(t *testing.T) {
	if availableBytes() == 0 {
		t.Skip("the memory available is unknown here (no /proc/meminfo), so nothing is checked")
	}
	dir := t.TempDir()
	file := func(name, body string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		return path
	}
	huge := `{"track": "mqar", "mqar": {"t": 268435456, "sizes": {"train": 1, "val": 1, "test": 1}}}`
	config := file("huge.json", huge)
	suiteFile := file("suite.json", `{"name": "s", "profile": "ci", "tracks": [{"name": "small", "track": "mqar"}, {"name": "huge", "track": "mqar", "protocol": `+huge+`}]}`)
	for _, tc := range []struct {
		name string
		args []string
		made string // the folder the command would have written into
	}{
		{"run", []string{"run", "--config", config, "--out", filepath.Join(dir, "r.json")}, filepath.Join(dir, "r.trials")},
		{"suite", []string{"suite", "--suite", suiteFile, "--out", filepath.Join(dir, "s.json")}, filepath.Join(dir, "s")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			cmd, stderr := child(t, tc.args...)
			err := cmd.Wait()
			var ee *exec.ExitError
			require.True(t, errors.As(err, &ee), "%v: %s", err, stderr)
			require.Equal(t, 2, ee.ExitCode(), stderr.String())
			require.Less(t, time.Since(start), 30*time.Second, "refused before anything is drawn")
			for _, want := range []string{"beyond the limits: the protocol needs about", "GiB is available", "the look-back (mqar.t)"} {
				require.Contains(t, stderr.String(), want)
			}
			require.NoDirExists(t, tc.made)
		})
	}
}

// TestOversizedReport: verify and plot refuse a report file beyond the
// bound of a run's report before reading it (the 300 MB report
// took verify 16 s and 2.3 GB), naming the file and the bound.
func TestOversizedReport(t *testing.T) {
	big := testkit.SparseFile(t, 300<<20)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"verify", []string{"verify", big}},
		{"plot", []string{"plot", big, "--out", filepath.Join(t.TempDir(), "plots")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tc.args, &stdout, &stderr)
			require.ErrorContains(t, err, big+": more than 32 MiB, larger than any file of this kind; check the path")
			require.Less(t, time.Since(start), 5*time.Second)
		})
	}
}
