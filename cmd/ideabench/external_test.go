package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/ideabench/ideabench/report"
	"github.com/stretchr/testify/require"
)

// externalConfig writes a config whose idea arm is testdata/trainer.sh (a
// shell trainer forecasting persistence after a pause of pause seconds).
func externalConfig(t *testing.T, pause string) string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	path := filepath.Join(t.TempDir(), "external.json")
	cfg := `{"trainers": {"idea": {"command": ["sh", "testdata/trainer.sh", "` + pause + `"], "files": ["testdata/trainer.sh"]}}}`
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o644))
	return path
}

// TestKillResumeExternal: SIGKILL in the middle of a run whose idea arm is
// an external trainer loses no finished trial; the rerun trains only the
// rest and writes the report of an uninterrupted run. The shell trainer's
// persistence forecasts score exactly as the reference persistence: the
// harness scores a trainer's forecasts as it scores its own.
func TestKillResumeExternal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the ci protocol twice")
	}
	cfg := externalConfig(t, "0.05")
	dir := t.TempDir()
	refOut := filepath.Join(dir, "ref.json")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"run", "--profile", "ci", "--config", cfg, "--out", refOut, "--quiet"}, &stdout, &stderr), stderr.String())
	want := withoutRun(t, refOut)
	r, err := report.Read(refOut)
	require.NoError(t, err)
	for _, row := range r.MechanismSignature.IdeaSweep {
		require.Equal(t, r.ReferenceForecasters.Persistence, row.Result.Mean)
	}
	require.True(t, r.External.Rerun.Identical)

	out, results := filepath.Join(dir, "r.json"), filepath.Join(dir, "trials")
	args := []string{"run", "--profile", "ci", "--config", cfg, "--out", out, "--results", results, "--workers", "1", "--quiet"}
	cmd, _ := child(t, args...)
	waitTrials(t, cmd, results, 30) // the baseline's 24 and some of the idea's
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, cmd.Wait())
	_, err = os.Stat(out)
	require.True(t, errors.Is(err, os.ErrNotExist), "no report from a killed run")
	done, _ := filepath.Glob(filepath.Join(results, "trials", "*.json"))
	require.Less(t, len(done), ciTrials, "killed before the end")

	stdout.Reset()
	stderr.Reset()
	require.NoError(t, run(context.Background(), args, &stdout, &stderr), stderr.String())
	require.Equal(t, want, withoutRun(t, out))
	reused, trained := trialCounts(t, out)
	require.Equal(t, len(done), reused)
	require.Equal(t, ciTrials-len(done), trained)
	var rep struct {
		External json.RawMessage `json:"external"`
	}
	raw, _ := os.ReadFile(out)
	require.NoError(t, json.Unmarshal(raw, &rep))
	require.Contains(t, string(rep.External), `"reproduced": true`)
}
