package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/report"
	"github.com/stretchr/testify/require"
)

// TestUnequalBudget: an A/A idea (the baseline model on its own seed
// streams) given 6 epochs against the ci baseline's 3 once came out a
// significant win on 8 of 8 seeds with no warning. Now the run is refused
// before anything trains (a config error, exit status 2), and with
// unequal_budget it runs with the mark on its verdict in the report and
// the summary.
func TestUnequalBudget(t *testing.T) {
	dir := t.TempDir()
	var grid []string
	for _, lr := range []string{"0.005", "0.015", "0.045"} {
		grid = append(grid, `{"lr": `+lr+`, "epochs": 6, "idea": "aa", "params": {"stream": 1}, "weight_decay": 0.05, "schedule": "cosine", "warmup": 0.05, "clip": 1, "patience": 3}`)
	}
	body := `{"idea": [` + strings.Join(grid, ", ") + `], "extend_grid": null`
	refused := filepath.Join(dir, "aa6.json")
	require.NoError(t, os.WriteFile(refused, []byte(body+"}"), 0o644))
	out, results := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.trials")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"run", "--profile", "ci", "--config", refused, "--out", out, "--results", results, "--quiet"}, &stdout, &stderr)
	require.ErrorIs(t, err, errUsage)
	require.ErrorContains(t, err, "idea[0].epochs = 6: the baseline's cfg 0 has 3")
	require.ErrorContains(t, err, `"unequal_budget": true`)
	got, _ := filepath.Glob(filepath.Join(results, "trials", "*.json"))
	require.Empty(t, got, "refused before training")

	if testing.Short() {
		return
	}
	allowed := filepath.Join(dir, "aa6-allowed.json")
	require.NoError(t, os.WriteFile(allowed, []byte(body+`, "unequal_budget": true}`), 0o644))
	stdout.Reset()
	require.NoError(t, run(context.Background(), []string{"run", "--profile", "ci", "--config", allowed, "--out", out, "--quiet"}, &stdout, &stderr), stderr.String())
	r, err := report.Read(out)
	require.NoError(t, err)
	c := r.Comparison
	require.False(t, r.Budget.Equal)
	require.Len(t, c.Marks, 1)
	require.True(t, strings.HasPrefix(c.Marks[0], "unequal budget: idea[0].epochs = 6"))
	require.Contains(t, stdout.String(), "verdict: "+c.VerdictLine())
	require.Equal(t, 2*r.Budget.Arms[0].Steps, r.Budget.Arms[1].Steps, "twice the epochs, twice the steps")
	_, err = os.Stat(out)
	require.False(t, errors.Is(err, os.ErrNotExist))
}
