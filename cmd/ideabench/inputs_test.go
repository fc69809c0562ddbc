package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ideabench/ideabench/report"

	"github.com/stretchr/testify/require"
)

// TestBadInputs: inputs that once crashed, hung or were silently ignored
// get a clear error before anything trains (no trial record is written).
func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	require.NoError(t, os.WriteFile(target, []byte("{}"), 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(target, link))
	config := func(name, body string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		return path
	}
	tiny := "testdata/tiny.json"
	wide := config("wide.json", `{"arch": {"d": 16384, "heads": 4, "layers": 4, "batch": 32}}`)
	bigBatch := config("batch.json", `{"arch": {"d": 32, "heads": 4, "layers": 2, "batch": 10000000}}`)
	huge := config("huge.json", `{"arch": {"d": 100000, "heads": 4, "layers": 1000000, "batch": 100000000}}`)
	long := config("long.json", `{"baseline": [{"lr": 0.001, "epochs": 1000000000}], "idea": [{"lr": 0.001, "epochs": 1000000000, "rho": 0.9, "beta": 0.5}]}`)
	windows := config("windows.json", `{"track": "sequence", "sequence": {"data_seed": 1, "train_windows": 2000000000, "val_windows": 64, "test_windows": 64, "t": 16, "h": 4, "components": 3, "min_period": 6, "max_period": 48, "ar_coef": 0.8, "noise_std": 0.3}}`)
	for _, tc := range []struct {
		name  string
		args  []string
		usage bool // exit status 2
		want  []string
	}{
		{"out_symlink", []string{"run", "--config", tiny, "--out", link}, true, []string{"--out: " + link + " is a symbolic link"}},
		{"out_device", []string{"run", "--config", tiny, "--out", os.DevNull}, true, []string{"is not a regular file"}},
		{"out_directory", []string{"run", "--config", tiny, "--out", dir}, true, []string{"is a directory; name a file in it"}},
		{"out_empty", []string{"run", "--config", tiny, "--out", ""}, true, []string{"the path is empty"}},
		{"data_out_device", []string{"data", "--config", tiny, "--out", "/dev/stdout"}, true, []string{"/dev/stdout is"}},
		{"control_out_dir", []string{"control", "--config", tiny, "--blocks", "1", "--out", dir}, true, []string{"is a directory"}},
		{"idea_nan", []string{"control", "--config", tiny, "--idea", "conv:width=NaN"}, true, []string{`parameter width: "NaN" is not a decimal number`}},
		{"gate_nan", []string{"control", "--config", tiny, "--idea", "gate:rho=NaN"}, true, []string{`"NaN" is not a decimal number`}},
		{"idea_inf", []string{"control", "--config", tiny, "--idea", "gate:beta=Inf"}, true, []string{`"Inf" is not a decimal number`}},
		{"idea_repeat", []string{"control", "--config", tiny, "--idea", "conv:width=3,width=4"}, true, []string{"parameter width is given twice"}},
		{"blocks_huge", []string{"control", "--config", tiny, "--blocks", "100000000000"}, true, []string{"--blocks = 100000000000: must be in [1, "}},
		{"blocks_time", []string{"control", "--profile", "ci", "--blocks", "10000000"}, true, []string{"control of 10000000 blocks", "over the limit of 7 days"}},
		{"arch_bounds", []string{"run", "--config", huge}, true, []string{"arch.d = 100000: at most 65536", "arch.layers = 1000000: at most", "arch.batch = 100000000: at most"}},
		{"arch_memory", []string{"run", "--config", wide}, true, []string{"the protocol needs about", "GiB of memory", "is available"}},
		{"batch_memory", []string{"run", "--config", bigBatch}, true, []string{"GiB per trial"}},
		{"train_memory", []string{"train", "--config", wide, "--out", filepath.Join(dir, "m.safetensors")}, true, []string{"the protocol needs about"}},
		{"epochs_time", []string{"run", "--config", long}, true, []string{"may do", "FLOPs (every epoch", "over the limit of 7 days", "--max-hours"}},
		{"windows_memory", []string{"run", "--config", windows}, true, []string{"the sequence track's windows need about"}},
		{"max_hours_bad", []string{"run", "--config", tiny, "--max-hours", "-1"}, true, []string{"--max-hours = -1"}},
		{"shard_plots", []string{"run", "--config", tiny, "--shard", "0/2", "--plots", filepath.Join(dir, "p")}, true, []string{"--plots: a shard writes no report"}},
		{"shard_out", []string{"run", "--config", tiny, "--shard", "0/2", "--out", filepath.Join(dir, "r.json"), "--results", filepath.Join(dir, "r")}, true, []string{"--out: a shard writes no report"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			results := filepath.Join(dir, tc.name+".trials")
			args := tc.args
			if args[0] == "run" || args[0] == "control" {
				if !strings.Contains(strings.Join(args, " "), "--results") {
					args = append(args, "--results", results)
				}
			}
			var stdout, stderr bytes.Buffer
			start := time.Now()
			// A refusal that fails would start training: stop it.
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			err := run(ctx, args, &stdout, &stderr)
			require.Error(t, err)
			require.Equal(t, tc.usage, errors.Is(err, errUsage), err.Error())
			for _, w := range tc.want {
				require.Contains(t, err.Error(), w)
			}
			require.Less(t, time.Since(start), 10*time.Second, "refused before training")
			got, _ := filepath.Glob(filepath.Join(results, "trials", "*.json"))
			require.Empty(t, got, "no trial trained")
		})
	}
}

// TestOutputs: data --out - writes the windows to standard output, and
// the report records the workers that could run at once, not the flag.
func TestOutputs(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"data", "--config", "testdata/tiny.json", "--out", "-"}, &stdout, &stderr))
	require.True(t, strings.HasPrefix(stdout.String(), "#"), "the stamped windows CSV on stdout")
	require.Contains(t, stderr.String(), "test windows")

	out := filepath.Join(t.TempDir(), "r.json")
	stdout.Reset()
	require.NoError(t, run(context.Background(), []string{"run", "--config", "testdata/tiny.json", "--out", out, "--workers", "100000", "--quiet"}, &stdout, &stderr))
	r, err := report.Read(out)
	require.NoError(t, err)
	require.Equal(t, 12, r.Run.Workers, "12 trials: at most 12 ran at once")
}

// TestSignalStopsTrial: the first SIGTERM stops a trial mid-training
// within seconds (a cfg of 10^8 epochs never finishes), keeping the
// trials that finished, and exits 130.
func TestSignalStopsTrial(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{
  "track": "sequence", "seeds": [0, 1, 2],
  "baseline": [{"lr": 0.003, "epochs": 1}, {"lr": 0.003, "epochs": 100000000}],
  "idea": [{"lr": 0.003, "epochs": 1, "rho": 0.9, "beta": 0.5}, {"lr": 0.003, "epochs": 100000000, "rho": 0.9, "beta": 0.5}],
  "arch": {"d": 16, "heads": 2, "layers": 2, "batch": 16, "patch": 4},
  "sequence": {"data_seed": 1, "train_windows": 64, "val_windows": 32, "test_windows": 32, "t": 16, "h": 4,
               "components": 3, "min_period": 6, "max_period": 48, "ar_coef": 0.8, "noise_std": 0.3}}`), 0o644))
	results := filepath.Join(dir, "trials")
	cmd, stderr := child(t, "run", "--config", cfg, "--out", filepath.Join(dir, "r.json"), "--results", results, "--workers", "1", "--quiet")
	waitTrials(t, cmd, results, 3) // the epoch-1 baseline cfg; then the endless one
	time.Sleep(200 * time.Millisecond)
	interrupt(t, cmd, syscall.SIGTERM, stderr)
	require.Contains(t, stderr.String(), "run interrupted")
	got, _ := filepath.Glob(filepath.Join(results, "trials", "*.json"))
	require.Len(t, got, 3, "the finished trials are kept, the stopped one is not")
}

// interrupt sends sig to the child cmd and requires it to end within
// seconds with exit status 130.
func interrupt(t *testing.T, cmd *exec.Cmd, sig os.Signal, stderr *bytes.Buffer) {
	t.Helper()
	start := time.Now()
	require.NoError(t, cmd.Process.Signal(sig))
	err := cmd.Wait()
	require.Less(t, time.Since(start), 5*time.Second, "stopped within seconds")
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	require.Equal(t, 130, ee.ExitCode(), stderr.String())
}

// TestSignalStopsLoading: the first SIGINT stops the loading of a csv
// file (here a pipe that delivers rows slowly and never ends), and the
// run exits 130 saying it was interrupted.
func TestSignalStopsLoading(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "rows.csv")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	wrote := make(chan struct{})
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		if _, err := f.WriteString("date,OT\n"); err != nil {
			return
		}
		t0 := time.Date(2016, 7, 1, 0, 0, 0, 0, time.UTC)
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(f, "%s,%d\n", t0.Add(time.Duration(i)*time.Hour).Format("2006-01-02 15:04:05"), i%7); err != nil {
				return // the reader is gone
			}
			if i == 100 {
				close(wrote)
			}
			time.Sleep(time.Millisecond)
		}
	}()
	cmd, stderr := child(t, "run", "--track", "csv", "--data", fifo, "--target", "OT", "--profile", "ci",
		"--out", filepath.Join(dir, "r.json"), "--quiet")
	select {
	case <-wrote:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the run read no rows in 30 s")
	}
	interrupt(t, cmd, os.Interrupt, stderr)
	require.Contains(t, stderr.String(), "interrupted before any trial")
	require.Contains(t, stderr.String(), "rows.csv: reading stopped at line")
}

// TestBaselineDivergesEverywhere: a baseline whose lr (1e3) diverges on
// every seed ends the run with an error that says so, naming its cfgs and
// the fix, not "no paired seeds; run at least 2 seeds per arm" on a run
// of 8 seeds; its trials are kept, so a rerun with a lower lr reuses the
// idea's.
func TestBaselineDivergesEverywhere(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"baseline": [{"lr": 1000, "epochs": 3, "weight_decay": 0.05, "schedule": "cosine", "warmup": 0.05, "clip": 1, "patience": 3}, {"lr": 2000, "epochs": 3, "weight_decay": 0.05, "schedule": "cosine", "warmup": 0.05, "clip": 1, "patience": 3}, {"lr": 3000, "epochs": 3, "weight_decay": 0.05, "schedule": "cosine", "warmup": 0.05, "clip": 1, "patience": 3}]}`), 0o644))
	err := run(context.Background(), []string{"run", "--profile", "ci", "--config", cfg, "--out", filepath.Join(dir, "r.json"), "--quiet"}, &bytes.Buffer{}, &bytes.Buffer{})
	require.ErrorContains(t, err, "the baseline arm diverged (loss NaN or Inf) on every one of its 8 seeds in every cfg: cfg 0 (lr 1000), cfg 1 (lr 2000), cfg 2 (lr 3000); there is no baseline to compare the idea with: lower the baseline's learning rates (try 100, a tenth of its lowest, or less)")
	require.NotContains(t, err.Error(), "no paired seeds")
	require.False(t, errors.Is(err, errUsage), "a failure of the run (exit 1), found by training")
	got, _ := filepath.Glob(filepath.Join(dir, "r.trials", "trials", "*.json"))
	require.Len(t, got, 48, "8 seeds of 3 baseline and 3 idea cfgs, kept")
}
