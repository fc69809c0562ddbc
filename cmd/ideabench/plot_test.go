package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestPlot(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	var stdout, stderr bytes.Buffer
	ctx := context.Background()
	require.NoError(t, run(ctx, []string{"run", "--config", "testdata/tiny.json", "--out", out, "--quiet", "--plots", filepath.Join(dir, "a")}, &stdout, &stderr), stderr.String())
	require.Equal(t, 8, strings.Count(stdout.String(), "plot: "))
	stdout.Reset()
	require.NoError(t, run(ctx, []string{"plot", out, "--out", filepath.Join(dir, "b")}, &stdout, &stderr))
	for _, name := range []string{"paired", "sweep", "gate", "loss"} {
		for _, ext := range []string{".png", ".svg"} {
			a, err := os.ReadFile(filepath.Join(dir, "a", name+ext))
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(dir, "b", name+ext))
			require.NoError(t, err)
			require.NotEmpty(t, a)
			require.Equal(t, a, b, "the same report draws the same file")
		}
	}
	for _, args := range [][]string{{"plot"}, {"plot", out, "extra"}, {"plot", "--bogus", out}} {
		err := run(ctx, args, &stdout, &stderr)
		require.ErrorIs(t, err, errUsage, args)
	}
	require.ErrorContains(t, run(ctx, []string{"plot", filepath.Join(dir, "none.json")}, &stdout, &stderr), "none.json")
}
