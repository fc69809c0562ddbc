package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ideabench/ideabench/protocol"
	"github.com/stretchr/testify/require"
)

// TestOutputsNeverOverwriteInputs: every command's --out (and run's
// --results and --plots, suite's folder) that would overwrite an input is
// refused before any work, as a usage error naming both paths, and the
// input is left as it was. Paths are compared resolved: by another
// spelling, through a link to a folder, by a hard link, and before the
// output exists.
func TestOutputsNeverOverwriteInputs(t *testing.T) {
	dir := t.TempDir()
	file := func(rel, body string) string {
		path := filepath.Join(dir, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		return path
	}
	metrics := file("m.csv", "arm,seed,test\nb,0,1\nb,1,2\ni,0,1\ni,1,2\n")
	hard := filepath.Join(dir, "hard.csv")
	require.NoError(t, os.Link(metrics, hard))
	require.NoError(t, os.Symlink(dir, filepath.Join(dir, "via")))
	tiny, err := os.ReadFile("testdata/tiny.json")
	require.NoError(t, err)
	config := file("c.json", string(tiny))
	csvRaw, err := os.ReadFile(filepath.Join("..", "..", "track", "testdata", "tiny.csv"))
	require.NoError(t, err)
	data := file("data.csv", string(csvRaw))
	shards := filepath.Join(dir, "shards")
	manifest := file("shards/shard-0-of-2.json", "{}")
	record := file("shards/trials/0123.json", "{}")
	suiteFile := file("s.json", `{"name": "s", "profile": "ci", "tracks": [{"name": "panel", "track": "panel"}]}`)
	inFolder := file("x/s.json", `{"name": "s", "profile": "ci", "tracks": [{"name": "panel", "track": "panel"}]}`)
	report := file("plots/report.html", "{}") // a report named as plot's page

	csvArgs := []string{"--track", "csv", "--data", data, "--target", "OT", "--context", "24", "--horizon", "6", "--patch", "4", "--seeds", "2"}
	for _, tc := range []struct {
		name  string
		args  []string
		input string   // left as it was
		want  []string // in the error
	}{
		{"compare_onto_input", []string{"compare", metrics, "--out", metrics}, metrics, []string{"--out " + metrics + " is the metrics file " + metrics}},
		{"compare_other_spelling", []string{"compare", metrics, "--out", filepath.Join(dir, "x", "..", "m.csv")}, metrics, []string{"is the metrics file"}},
		{"compare_hard_link", []string{"compare", metrics, "--out", hard}, metrics, []string{"--out " + hard + " is the metrics file " + metrics}},
		{"compare_through_link", []string{"compare", metrics, "--out", filepath.Join(dir, "via", "m.csv")}, metrics, []string{"is the metrics file"}},
		{"merge_onto_manifest", []string{"merge", "--out", manifest, shards}, manifest, []string{"--out " + manifest + " lies in the results directory " + shards}},
		{"merge_onto_record", []string{"merge", "--out", record, shards}, record, []string{"lies in the results directory"}},
		{"merge_new_file_inside", []string{"merge", "--out", filepath.Join(shards, "new", "r.json"), shards}, manifest, []string{"lies in the results directory " + shards}},
		{"run_onto_record", []string{"run", "--config", config, "--out", record, "--results", shards}, record, []string{"--out " + record + " lies in --results " + shards}},
		{"run_out_is_results", []string{"run", "--config", config, "--out", filepath.Join(dir, "X"), "--results", filepath.Join(dir, "X")}, config, []string{"--out " + filepath.Join(dir, "X") + " lies in --results " + filepath.Join(dir, "X")}},
		{"run_onto_config", []string{"run", "--config", config, "--out", config}, config, []string{"--out " + config + " is --config " + config}},
		{"run_onto_csv", append([]string{"run", "--out", data}, csvArgs...), data, []string{"--out " + data + " is the csv file " + data}},
		{"run_results_is_config", []string{"run", "--config", config, "--out", filepath.Join(dir, "r.json"), "--results", config}, config, []string{"--results " + config + " is --config " + config}},
		{"run_plots_onto_out", []string{"run", "--config", config, "--out", report, "--plots", filepath.Join(dir, "plots")}, report, []string{"--plots " + filepath.Join(dir, "plots") + " would replace --out " + report}},
		{"plot_onto_report", []string{"plot", report, "--out", report}, report, []string{"--out " + report + " is the report " + report}},
		{"plot_page_onto_report", []string{"plot", report, "--out", filepath.Join(dir, "plots")}, report, []string{"would replace the report " + report}},
		{"data_onto_config", []string{"data", "--config", config, "--out", config}, config, []string{"--out " + config + " is --config " + config}},
		{"data_onto_csv", append([]string{"data", "--out", data}, csvArgs...), data, []string{"is the csv file"}},
		{"train_onto_config", []string{"train", "--config", config, "--out", config}, config, []string{"--out " + config + " is --config " + config}},
		{"control_onto_config", []string{"control", "--config", config, "--out", config, "--blocks", "1"}, config, []string{"--out " + config + " is --config " + config}},
		{"control_onto_record", []string{"control", "--config", config, "--out", record, "--results", shards, "--blocks", "1"}, record, []string{"lies in --results " + shards}},
		{"suite_onto_suite_file", []string{"suite", "--suite", suiteFile, "--out", suiteFile}, suiteFile, []string{"--out " + suiteFile + " is --suite " + suiteFile}},
		{"suite_folder_holds_suite_file", []string{"suite", "--suite", inFolder, "--out", filepath.Join(dir, "x.json")}, inFolder, []string{"the suite's folder " + filepath.Join(dir, "x") + " holds --suite " + inFolder}},
		{"control_suite_onto_suite_file", []string{"control", "--suite", suiteFile, "--out", suiteFile, "--blocks", "1"}, suiteFile, []string{"--out " + suiteFile + " is --suite " + suiteFile}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := os.ReadFile(tc.input)
			require.NoError(t, err)
			var stdout, stderr bytes.Buffer
			err = run(context.Background(), tc.args, &stdout, &stderr)
			require.ErrorIs(t, err, errUsage)
			for _, w := range tc.want {
				require.ErrorContains(t, err, w)
			}
			after, err := os.ReadFile(tc.input)
			require.NoError(t, err)
			require.Equal(t, before, after, "the input is left as it was")
			require.NoDirExists(t, filepath.Join(dir, "X"))
		})
	}
}

// TestRefusedRunMakesNoDirectory: a command refused before its first
// trial (by validation, a collision, the machine's limits, or a data
// file it cannot read) leaves no directory it made: neither the results
// directory (ideabench-report.trials/ by default) nor the folder of its
// --out.
func TestRefusedRunMakesNoDirectory(t *testing.T) {
	dir := t.TempDir()
	wide := filepath.Join(dir, "wide.json")
	require.NoError(t, os.WriteFile(wide, []byte(`{"arch": {"d": 16384, "heads": 4, "layers": 4, "batch": 32}}`), 0o644))
	bad := filepath.Join(dir, "bad.csv")
	require.NoError(t, os.WriteFile(bad, []byte("date,OT\n2016-07-01 00:00:00,x\n"), 0o644))
	for _, tc := range []struct {
		name  string
		args  []string
		usage bool
	}{
		{"validation", []string{"run", "--config", "testdata/bad.json"}, true},
		{"collision", []string{"run", "--config", "testdata/tiny.json", "--results", "testdata/tiny.json"}, true},
		{"memory", []string{"run", "--config", wide}, true},
		{"time", []string{"run", "--config", "testdata/tiny.json", "--max-hours", "1e-12"}, true},
		{"bad_data", []string{"run", "--track", "csv", "--data", bad, "--target", "OT", "--context", "4", "--horizon", "2", "--patch", "2"}, false},
		{"control_time", []string{"control", "--profile", "ci", "--blocks", "10000000"}, true},
		{"suite_time", []string{"suite", "--suite", "ci", "--max-hours", "1e-12"}, true},
		{"data_bad_split", []string{"data", "--config", "testdata/tiny.json", "--split", "all"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name, "new", "r.json")
			err := run(context.Background(), append(tc.args, "--out", out), &bytes.Buffer{}, &bytes.Buffer{})
			require.Error(t, err)
			require.Equal(t, tc.usage, errors.Is(err, errUsage) || errors.Is(err, protocol.ErrConfig), err.Error())
			require.NoDirExists(t, filepath.Join(dir, tc.name), "nothing made under %s", filepath.Join(dir, tc.name))
		})
	}
}
