package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/internal/jsonstrict/stricttest"
	"github.com/ideabench/ideabench/report"
	"github.com/stretchr/testify/require"
)

// TestCompareCommand: per-seed metrics as CSV and as JSON give the same
// comparison; verify accepts its report and names an edit; malformed
// files are refused with the line and the fix.
func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "m.csv")
	csvText := "arm,cfg,seed,val,test\n"
	jsonText := "["
	for i, r := range []struct {
		arm, cfg  string
		seed      int
		val, test string
	}{
		{"base", "a", 0, "1.0", "1.1"}, {"base", "a", 1, "2.0", "2.1"}, {"base", "a", 2, "3.0", "3.1"},
		{"base", "b", 0, "1.2", "1.3"}, {"base", "b", 1, "2.2", "2.3"}, {"base", "b", 2, "3.2", "3.3"},
		{"new", "a", 0, "0.9", "1.0"}, {"new", "a", 1, "1.9", "2.0"}, {"new", "a", 2, "2.9", "3.0"},
		{"new", "b", 0, "1.5", "1.5"}, {"new", "b", 1, "2.5", "2.5"}, {"new", "b", 2, "3.5", "3.5"},
	} {
		csvText += r.arm + "," + r.cfg + "," + string(rune('0'+r.seed)) + "," + r.val + "," + r.test + "\n"
		if i > 0 {
			jsonText += ","
		}
		jsonText += `{"arm":"` + r.arm + `","cfg":"` + r.cfg + `","seed":` + string(rune('0'+r.seed)) + `,"val":` + r.val + `,"test":` + r.test + `}`
	}
	jsonText += "]"
	jsonPath := filepath.Join(dir, "m.json")
	require.NoError(t, os.WriteFile(csvPath, []byte(csvText), 0o644))
	require.NoError(t, os.WriteFile(jsonPath, []byte(jsonText), 0o644))

	var outs []string
	for _, in := range []string{csvPath, jsonPath} {
		out := in + ".report.json"
		var stdout, stderr bytes.Buffer
		require.NoError(t, run(context.Background(), []string{"compare", in, "--out", out}, &stdout, &stderr))
		require.Contains(t, stdout.String(), "new - baseline: no significant win: delta -0.1, wins 3/3")
		stdout.Reset()
		require.NoError(t, run(context.Background(), []string{"verify", out}, &stdout, &stderr))
		require.Contains(t, stdout.String(), "0 mismatches")
		raw, err := os.ReadFile(out)
		require.NoError(t, err)
		outs = append(outs, strings.ReplaceAll(string(raw), in, "SOURCE"))
	}
	require.Equal(t, outs[0], outs[1], "CSV and JSON give one report")

	raw, _ := os.ReadFile(csvPath + ".report.json")
	edited := filepath.Join(dir, "edited.json")
	require.NoError(t, os.WriteFile(edited, bytes.Replace(raw, []byte(`"idea_wins": 3`), []byte(`"idea_wins": 2`), 1), 0o644))
	var stdout bytes.Buffer
	err := run(context.Background(), []string{"verify", edited}, &stdout, &bytes.Buffer{})
	require.ErrorContains(t, err, "does not verify")
	require.Contains(t, stdout.String(), "comparison.idea_wins")

	for _, tc := range []struct{ name, text, want string }{
		{"column", "arm,seed,test,loss\n", `column "loss": unknown`},
		{"no_test", "arm,seed\n", `no "test" column`},
		{"number", "arm,seed,test\nb,0,1\nb,1,abc\n", `line 3: test = "abc": not a finite decimal number`},
		{"json_key", `[{"arm":"b","seed":0,"test":1,"loss":2}]`, `unknown field "loss"`},
		// A long cell is quoted by its first bytes.
		{"long_cell", "arm,seed,test\nb,0," + strings.Repeat("x", 5000) + "\n", `line 2: test = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"… (5000 bytes): not a finite`},
		{"long_column", "arm,seed,test," + strings.Repeat("y", 5000) + "\n", `column "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"… (5000 bytes): unknown`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(dir, tc.name)
			require.NoError(t, os.WriteFile(p, []byte(tc.text), 0o644))
			err := run(context.Background(), []string{"compare", p, "--out", p + ".out.json"}, &bytes.Buffer{}, &bytes.Buffer{})
			require.ErrorContains(t, err, tc.want)
		})
	}
	// A device that never ends is refused at the bound.
	if _, err := os.Stat("/dev/zero"); err == nil {
		err := run(context.Background(), []string{"compare", "/dev/zero", "--out", filepath.Join(dir, "zero.json")}, &bytes.Buffer{}, &bytes.Buffer{})
		require.ErrorContains(t, err, "/dev/zero: more than 64 MiB")
	}
}

// TestCompareFlagBounds: --alpha and --min-effect-pct are checked as
// given (--alpha 0 once became the default 0.05), each a usage error
// naming the flag, before the file is read.
func TestCompareFlagBounds(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "m.csv")
	require.NoError(t, os.WriteFile(in, []byte("arm,seed,test\nb,0,1\nb,1,2\ni,0,1\ni,1,2\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string // "" succeeds
	}{
		{"alpha_zero", []string{"--alpha", "0"}, "--alpha = 0: must be in (0,1)"},
		{"alpha_two", []string{"--alpha", "2"}, "--alpha = 2: must be in (0,1)"},
		{"alpha_one", []string{"--alpha", "1"}, "--alpha = 1: must be in (0,1)"},
		{"alpha_negative", []string{"--alpha", "-0.05"}, "--alpha = -0.05"},
		{"alpha_nan", []string{"--alpha", "NaN"}, "--alpha = NaN"},
		{"alpha_ok", []string{"--alpha", "0.1"}, ""},
		{"min_effect_negative", []string{"--min-effect-pct", "-1"}, "--min-effect-pct = -1: must be in [0,100)"},
		{"min_effect_100", []string{"--min-effect-pct", "100"}, "--min-effect-pct = 100: must be in [0,100)"},
		{"min_effect_none", []string{"--min-effect-pct", "0"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.name+".json")
			err := run(context.Background(), append([]string{"compare", in, "--out", out}, tc.args...), &bytes.Buffer{}, &bytes.Buffer{})
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, errUsage)
			require.ErrorContains(t, err, tc.want)
			require.NoFileExists(t, out)
		})
	}
}

// TestReadCompareRowsStrict: per-seed metrics as JSON with trailing data
// or an unknown key are refused where the fault is.
func TestReadCompareRowsStrict(t *testing.T) {
	stricttest.Refuses(t, []byte(`[{"arm": "b", "seed": 0, "test": 1}, {"arm": "b", "seed": 1, "test": 2}]`), func(raw []byte) error {
		_, err := readCompareRows(raw, "m.json")
		return err
	})
}

// TestCompareMarks: compare's verdict line carries the comparison's
// marks (report.Comparison.VerdictLine), as every verdict does.
func TestCompareMarks(t *testing.T) {
	out := filepath.Join(t.TempDir(), "c.json")
	require.NoError(t, run(context.Background(), []string{"compare", "testdata/compare.csv", "--out", out}, &bytes.Buffer{}, &bytes.Buffer{}))
	c, err := report.ReadCompared(out)
	require.NoError(t, err)
	c.Comparison.Marks = []string{"idea inert: within 0.01% of the baseline"}
	var b bytes.Buffer
	require.NoError(t, printCompared(&b, c))
	require.Contains(t, b.String(), "verdict: significant win [idea inert: within 0.01% of the baseline]\n")
	require.Contains(t, b.String(), "gated - baseline: significant win [IDEA INERT]: ")
}

// TestCompareReports: arms taken from run reports (NAME=REPORT.json and
// NAME=REPORT.json#ARM) give the report's own comparison when they are
// its baseline and its idea; a report that does not verify, another
// track, another arm name or a missing report are refused, naming the
// arm and the fix.
func TestCompareReports(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "ci.json")
	require.NoError(t, os.WriteFile(src, []byte(reference(t)), 0o644))
	r, err := report.Read(src)
	require.NoError(t, err)
	out := filepath.Join(dir, "c.json")
	var stdout bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"compare", "base=" + src, "gate=" + src + "#idea", "--out", out}, &stdout, &bytes.Buffer{}))
	c, err := report.ReadCompared(out)
	require.NoError(t, err)
	got, want := c.Comparison, r.Comparison
	require.Equal(t, want.DeltaMean, got.DeltaMean)
	require.Equal(t, want.PValue, got.PValue)
	require.Equal(t, want.Verdict, got.Verdict)
	require.Equal(t, want.IdeaWins, got.IdeaWins)
	stdout.Reset()
	require.NoError(t, run(context.Background(), []string{"verify", out}, &stdout, &bytes.Buffer{}))
	require.Contains(t, stdout.String(), "0 mismatches")

	raw, err := os.ReadFile(src)
	require.NoError(t, err)
	edited := filepath.Join(dir, "edited.json")
	require.Contains(t, string(raw), `"idea_wins":`)
	require.NoError(t, os.WriteFile(edited, bytes.Replace(raw, []byte(`"idea_wins":`), []byte(`"idea_wins":1`), 1), 0o644))
	// The same report on another track (verify sees the track as an
	// input, so the edit is caught there first unless the digest is
	// made again: the track check needs a report of its own).
	seq := filepath.Join(dir, "seq.json")
	var seqOut bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"run", "--profile", "ci", "--track", "sequence", "--out", seq, "--quiet"}, &seqOut, &bytes.Buffer{}))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"not verified", []string{"a=" + src, "b=" + edited}, "arm b: " + edited + " does not verify"},
		{"track", []string{"a=" + src, "b=" + seq}, `ran on track "sequence", arm a on "panel"`},
		{"arm", []string{"a=" + src, "b=" + src + "#conv"}, `has no arm "conv"`},
		{"missing", []string{"a=" + src, "b=" + filepath.Join(dir, "none.json")}, "arm b: report:"},
		{"form", []string{"a=" + src, "=x.json"}, "an arm from a report is NAME=REPORT.json"},
		{"file then arm", []string{src, "b=" + src}, "compare takes one file of per-seed metrics"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(context.Background(), append([]string{"compare", "--out", filepath.Join(dir, tc.name+".json")}, tc.args...), &bytes.Buffer{}, &bytes.Buffer{})
			require.ErrorContains(t, err, tc.want)
		})
	}
}
