package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/suitereport"
	"github.com/stretchr/testify/require"
)

func TestSuiteVerify(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"suite", "--suite", "ci", "--out", out, "--workers", "2", "--data-dir", dir}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	for _, want := range []string{"suite ci\n", "verdict: ", "track     baseline", "panel", "sequence", "development (", "probability of improvement", "suite report: " + out} {
		require.Contains(t, stdout.String(), want)
	}
	require.Contains(t, stderr.String(), "track 2/2: sequence")
	for _, f := range []string{"s/panel.json", "s/sequence.json", "s/panel.trials/trials"} {
		_, err := os.Stat(filepath.Join(dir, f))
		require.NoError(t, err, f)
	}

	stdout.Reset()
	require.NoError(t, run(context.Background(), []string{"verify", out}, &stdout, &stderr))
	require.Contains(t, stdout.String(), "over 2 track reports, 0 mismatches")

	// An edited aggregate is named.
	r, err := suitereport.Read(out)
	require.NoError(t, err)
	r.Verdict = "better"
	require.NoError(t, r.WriteFile(out))
	stdout.Reset()
	err = run(context.Background(), []string{"verify", out}, &stdout, &stderr)
	require.ErrorContains(t, err, "1 mismatches")
	require.Contains(t, stdout.String(), "MISMATCH verdict: report has")

	// control --suite refuses protocol flags.
	err = run(context.Background(), []string{"control", "--suite", "ci", "--track", "panel", "--out", filepath.Join(dir, "c.json")}, &stdout, &stderr)
	require.ErrorIs(t, err, errUsage)
	require.ErrorContains(t, err, "--track does not apply")

	// Bad suites are usage errors naming the fix.
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"name": "x", "tracks": [{"name": "a"}]}`), 0o644))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--suite", "huge"}, "no built-in suite"},
		{[]string{"--suite", bad}, "neither track nor dataset"},
		{[]string{"--suite", "ci", "--ideas", "conv;nope"}, `ideas[1] = "nope"`},
		{[]string{"--suite", "ci", "--out", filepath.Join(dir, "noext")}, "must end in .json"},
	} {
		err := run(context.Background(), append([]string{"suite", "--out", out}, tc.args...), &stdout, &stderr)
		require.ErrorIs(t, err, errUsage)
		require.True(t, strings.Contains(err.Error(), tc.want), err.Error())
	}
}
