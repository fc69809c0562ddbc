package main

import (
	"bytes"
	"context"
	"encoding/json"
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
			require.Contains(t, stdout.String(), "mse "+strconv.FormatFloat(trial.Test, 'g', -1, 64)+" over ")
			require.Contains(t, meta, metaNorm)
			if tc.name == "csv" {
				require.Equal(t, `["HUFL","OT"]`, meta[metaChannels])
			}
		})
	}
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
