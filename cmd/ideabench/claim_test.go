package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/ideabench/ideabench/internal/lease"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"
	"github.com/stretchr/testify/require"
)

// TestOutClaimed: two runs writing one --out never replace each other's
// report. While a run of another protocol holds the path, run and suite
// are refused before their first trial (exit status 2, naming the
// holder and the fix); a run of the same protocol shares it; once
// released the path is free. Then two runs of different ideas started
// together: each either writes its own report or is refused, and the
// report left is that of a run that was not refused.
func TestOutClaimed(t *testing.T) {
	for _, c := range []struct {
		name string
		args func(out string) []string
	}{
		{"run", func(out string) []string {
			return []string{"run", "--config", "testdata/tiny.json", "--out", out, "--quiet"}
		}},
		{"suite", func(out string) []string { return []string{"suite", "--suite", "ci", "--out", out, "--quiet"} }},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "report.json")
			release, err := lease.ClaimOutput(out, "another protocol", trial.LeaseTTL)
			require.NoError(t, err)
			err = run(context.Background(), c.args(out), &bytes.Buffer{}, &bytes.Buffer{})
			require.ErrorIs(t, err, errUsage)
			require.ErrorContains(t, err, out+" is being written by another ideabench (pid ")
			require.NoFileExists(t, out)
			entries, _ := os.ReadDir(filepath.Dir(out))
			require.Len(t, entries, 1, "refused before any trial: only the other's lease is there")
			release()
			require.NoError(t, run(context.Background(), c.args(out), &bytes.Buffer{}, &bytes.Buffer{}))
			require.FileExists(t, out)
			m, _ := filepath.Glob(out + ".lease-*")
			require.Empty(t, m, "the run's claim is gone with it")
		})
	}
	t.Run("same protocol", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "report.json")
		fs := newFlags("run")
		pf := protocolFlags(fs, &bytes.Buffer{})
		require.NoError(t, fs.Parse([]string{"--config", "testdata/tiny.json"}))
		p, err := pf.protocol()
		require.NoError(t, err)
		release, err := lease.ClaimOutput(out, p.ID(), trial.LeaseTTL)
		require.NoError(t, err)
		defer release()
		require.NoError(t, run(context.Background(), []string{"run", "--config", "testdata/tiny.json", "--out", out, "--quiet"}, &bytes.Buffer{}, &bytes.Buffer{}))
	})
	t.Run("together", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "report.json")
		ideas := []string{"ema:lambda=0.5", "conv"}
		errs := make([]error, len(ideas))
		var wg sync.WaitGroup
		for i, idea := range ideas {
			wg.Go(func() {
				errs[i] = run(context.Background(), []string{"run", "--config", "testdata/tiny.json", "--idea", idea, "--out", out, "--quiet"}, &bytes.Buffer{}, &bytes.Buffer{})
			})
		}
		wg.Wait()
		var wrote []string
		for i, err := range errs {
			if err != nil {
				require.ErrorIs(t, err, errUsage, "%s", ideas[i])
				require.ErrorContains(t, err, "is being written by another ideabench")
				continue
			}
			wrote = append(wrote, ideas[i])
		}
		if len(wrote) == 0 {
			require.NoFileExists(t, out)
			return
		}
		r, err := report.Read(out)
		require.NoError(t, err)
		got := r.Setup.Protocol.Idea[0].Idea
		require.Contains(t, fmt.Sprint(wrote), got, "the report is a run's that was not refused")
	})
}
