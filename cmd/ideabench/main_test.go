package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/harness"
	"github.com/stretchr/testify/require"
)

func TestRunVerify(t *testing.T) {
	out := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"run", "--config", "testdata/tiny.json", "--out", out, "--workers", "2"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	for _, want := range []string{"baseline  0.003", "idea      0.01", "comparison (idea - baseline", "reference forecasters (test)", "verdict: ", "report: " + out} {
		require.Contains(t, stdout.String(), want)
	}
	require.Contains(t, stderr.String(), "12/12 trials")

	stdout.Reset()
	require.NoError(t, run(context.Background(), []string{"verify", out}, &stdout, &stderr))
	require.Contains(t, stdout.String(), "0 mismatches, 0 explained notes")

	// A tampered report fails verification.
	r, err := harness.ReadReport(out)
	require.NoError(t, err)
	r.Comparison.IdeaWins++
	require.NoError(t, r.WriteFile(out))
	stdout.Reset()
	err = run(context.Background(), []string{"verify", out}, &stdout, &stderr)
	require.ErrorContains(t, err, "1 mismatches")
	require.Contains(t, stdout.String(), "MISMATCH comparison.idea_wins")
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	trunc := filepath.Join(dir, "trunc.json")
	require.NoError(t, os.WriteFile(trunc, []byte(`{"bench_version": 1, "comparison": {`), 0o644))
	for _, tc := range []struct {
		name  string
		args  []string
		usage bool     // exit status 2
		want  []string // substrings of the error
	}{
		{"no_command", nil, true, []string{"no command"}},
		{"unknown_command", []string{"fly"}, true, []string{`unknown command "fly"`}},
		{"bad_profile", []string{"run", "--profile", "huge"}, true, []string{`profile "huge" is unknown`}},
		{"bad_config", []string{"run", "--config", "testdata/bad.json"}, true, []string{
			"seeds[1] = 0: repeats seeds[0]", "baseline[0].lr = -1", "baseline[0].epochs = 0", "idea[0].rho = 1.5", "idea[0].beta = -1"}},
		{"unknown_field", []string{"run", "--config", "testdata/unknown.json"}, true, []string{`unknown field "learning_rate"`}},
		{"missing_config", []string{"run", "--config", "testdata/nope.json"}, true, []string{"nope.json"}},
		{"unwritable_out", []string{"run", "--config", "testdata/tiny.json", "--out", "/nonexistent-dir/r.json"}, false, []string{"--out /nonexistent-dir/r.json: cannot write there"}},
		{"verify_truncated", []string{"verify", trunc}, false, []string{"trunc.json:1:37: the JSON ends inside a value", "looks truncated"}},
		{"verify_missing", []string{"verify", filepath.Join(dir, "none.json")}, false, []string{"none.json"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), tc.args, &stdout, &stderr)
			require.Error(t, err)
			require.Equal(t, tc.usage, errors.Is(err, errUsage), err.Error())
			for _, w := range tc.want {
				require.True(t, strings.Contains(err.Error(), w), "error %q lacks %q", err, w)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	var stdout bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"version"}, &stdout, &stdout))
	require.True(t, strings.HasPrefix(stdout.String(), "ideabench "))
}
