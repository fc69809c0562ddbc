package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/transformer"
	"github.com/stretchr/testify/require"
)

// TestTrainDataEval: a checkpoint from train scores the windows that data
// exports with exactly the test metric of its trial, on both tracks.
func TestTrainDataEval(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto []string
	}{
		{"sequence", []string{"--config", "testdata/tiny.json"}},
		{"csv", []string{"--config", "testdata/tiny.json", "--track", "csv", "--data", "../../track/testdata/tiny.csv", "--target", "OT", "--features", "HUFL,OT", "--context", "12", "--horizon", "3"}},
		{"mqar", []string{"--track", "mqar", "--profile", "ci"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			ckpt, win := filepath.Join(dir, "m.safetensors"), filepath.Join(dir, "w.csv")
			var stdout, stderr bytes.Buffer
			ctx := context.Background()
			require.NoError(t, run(ctx, append(append([]string{"train"}, tc.proto...), "--arm", "idea", "--cfg", "1", "--seed", "2", "--out", ckpt), &stdout, &stderr), stderr.String())
			require.NoError(t, run(ctx, append(append([]string{"data"}, tc.proto...), "--split", "test", "--out", win), &stdout, &stderr), stderr.String())
			stdout.Reset()
			require.NoError(t, run(ctx, []string{"eval", "--checkpoint", ckpt, "--data", win}, &stdout, &stderr), stderr.String())
			_, meta, err := transformer.LoadCheckpoint[float32](ckpt, 1)
			require.NoError(t, err)
			var trial struct{ Test float64 }
			require.NoError(t, json.Unmarshal([]byte(meta[metaTrial]), &trial))
			if tc.name == "mqar" {
				// A token track's test metric is the cross-entropy.
				require.Contains(t, stdout.String(), "cross-entropy "+strconv.FormatFloat(trial.Test, 'g', -1, 64)+", accuracy ")
				return
			}
			require.Contains(t, stdout.String(), "mse "+strconv.FormatFloat(trial.Test, 'g', -1, 64)+" over ")
			require.Contains(t, meta, metaNorm)
			if tc.name == "csv" {
				require.Equal(t, `["HUFL","OT"]`, meta[metaChannels])
			}
		})
	}
	t.Run("integrity", func(t *testing.T) {
		dir := t.TempDir()
		ckpt, win, other := filepath.Join(dir, "m.safetensors"), filepath.Join(dir, "w.csv"), filepath.Join(dir, "other.csv")
		var stdout, stderr bytes.Buffer
		ctx := context.Background()
		require.NoError(t, run(ctx, []string{"train", "--config", "testdata/tiny.json", "--out", ckpt}, &stdout, &stderr))
		require.NoError(t, run(ctx, []string{"data", "--config", "testdata/tiny.json", "--out", win}, &stdout, &stderr))
		require.NoError(t, run(ctx, []string{"data", "--config", "testdata/tiny-other-data.json", "--out", other}, &stdout, &stderr))
		raw, err := os.ReadFile(win)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(raw), "# ideabench data="), "data stamps its windows")

		// Windows of another protocol (another data seed): refused, unless asked.
		err = run(ctx, []string{"eval", "--checkpoint", ckpt, "--data", other}, &stdout, &stderr)
		require.ErrorContains(t, err, "holds windows of another protocol")
		require.ErrorContains(t, err, "--any-data")
		require.NoError(t, run(ctx, []string{"eval", "--checkpoint", ckpt, "--data", other, "--any-data"}, &stdout, &stderr))

		// Windows without a stamp are scored, with a note.
		bare := filepath.Join(dir, "bare.csv")
		_, rest, _ := strings.Cut(string(raw), "\n")
		require.NoError(t, os.WriteFile(bare, []byte(rest), 0o644))
		stderr.Reset()
		require.NoError(t, run(ctx, []string{"eval", "--checkpoint", ckpt, "--data", bare}, &stdout, &stderr))
		require.Contains(t, stderr.String(), "carries no ideabench data stamp")

		// One flipped bit in the tensor data (the file's last byte).
		b, err := os.ReadFile(ckpt)
		require.NoError(t, err)
		b[len(b)-1] ^= 1
		flipped := filepath.Join(dir, "flipped.safetensors")
		require.NoError(t, os.WriteFile(flipped, b, 0o644))
		err = run(ctx, []string{"eval", "--checkpoint", flipped, "--data", win}, &stdout, &stderr)
		require.ErrorContains(t, err, "do not match the SHA-256 in its metadata")
	})
	t.Run("errors", func(t *testing.T) {
		var stdout, stderr bytes.Buffer
		for args, want := range map[string]string{
			"train --config testdata/tiny.json --arm both":    "--arm",
			"train --config testdata/tiny.json --cfg 9":       "--cfg = 9",
			"data --config testdata/tiny.json --split all":    "--split",
			"eval --checkpoint x":                             "eval needs",
			"eval --checkpoint none.safetensors --data w.csv": "none.safetensors",
			"run --target OT":                                 "add --track csv",
		} {
			err := run(context.Background(), strings.Fields(args), &stdout, &stderr)
			require.ErrorContains(t, err, want, args)
		}
	})
}

// TestTrainRefusesPerChannelStart: a model that may forecast with the
// per-channel maps beside it is not saved as a lone checkpoint; the
// error names the config that lifts the refusal.
func TestTrainRefusesPerChannelStart(t *testing.T) {
	var out, errOut bytes.Buffer
	err := run(context.Background(), []string{"train", "--profile", "ci", "--track", "csv", "--data", "../../track/testdata/tiny.csv",
		"--channels", "independent", "--context", "24", "--horizon", "6", "--patch", "4", "--out", filepath.Join(t.TempDir(), "m.safetensors")}, &out, &errOut)
	require.ErrorIs(t, err, errUsage)
	require.ErrorContains(t, err, `"skip_start": ""`)
}
