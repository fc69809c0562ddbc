package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/compare"
	"github.com/ideabench/ideabench/internal/testkit"
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

	var outs []*report.Compared
	for _, in := range []string{csvPath, jsonPath} {
		out := in + ".report.json"
		var stdout, stderr bytes.Buffer
		require.NoError(t, run(context.Background(), []string{"compare", in, "--out", out}, &stdout, &stderr))
		require.Contains(t, stdout.String(), "new - baseline: no significant win: delta -0.1, wins 3/3")
		stdout.Reset()
		require.NoError(t, run(context.Background(), []string{"verify", out}, &stdout, &stderr))
		require.Contains(t, stdout.String(), "0 mismatches")
		c, err := report.ReadCompared(out)
		require.NoError(t, err)
		require.Equal(t, []report.ComparedSource{{Path: in, SHA256: sha256Hex(t, in)}}, c.Sources)
		require.Equal(t, in, c.Source)
		// The files differ, and so do their sources; nothing else.
		c.Source, c.Sources = "", nil
		delete(c.Digests, "sources")
		outs = append(outs, c)
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

// sha256Hex is the SHA-256 of the file at path, as compare records it.
func sha256Hex(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// comparedFixtures makes, in a new directory, the two kinds of
// comparison report and their sources: from.csv.json compared from a
// copy of testdata/compare.csv, from.reports.json from two run reports
// of testdata/tiny.json (a.json's baseline against b.json's idea). The
// sources are named by absolute paths, so verify finds them from any
// directory; it returns the directory and the two reports.
func comparedFixtures(t *testing.T) (dir string, reports []string) {
	t.Helper()
	dir = t.TempDir()
	csvText, err := os.ReadFile("testdata/compare.csv")
	require.NoError(t, err)
	csvPath := filepath.Join(dir, "m.csv")
	require.NoError(t, os.WriteFile(csvPath, csvText, 0o644))
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	var stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"run", "--config", "testdata/tiny.json", "--out", a, "--workers", "2", "--quiet"}, &bytes.Buffer{}, &stderr), stderr.String())
	raw, err := os.ReadFile(a)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(b, raw, 0o644))
	for _, tc := range []struct {
		out  string
		args []string
	}{
		{"from.csv.json", []string{csvPath}},
		{"from.reports.json", []string{"base=" + a, "gate=" + b + "#idea"}},
	} {
		out := filepath.Join(dir, tc.out)
		require.NoError(t, run(context.Background(), append([]string{"compare", "--out", out}, tc.args...), &bytes.Buffer{}, &stderr), stderr.String())
		reports = append(reports, out)
	}
	return dir, reports
}

// armInput matches the leaves of a comparison report's arms that are
// measured inputs (names and per-seed values), which digests.arms covers.
var armInput = regexp.MustCompile(`^arms\[\d+\]\.(name|cfgs\[\d+\]\.(name|val\.per_seed\[\d+\]|test\.per_seed\[\d+\]))$`)

// inputDigest is the digest of report.Compared.Digests that covers the
// input leaf at path, or "" for a derived leaf (derived again by verify
// and named itself).
func inputDigest(path string) string {
	switch {
	case strings.HasPrefix(path, "sources["):
		return "digests.sources"
	case armInput.MatchString(path):
		return "digests.arms"
	case strings.HasPrefix(path, "seeds["):
		return "digests.seeds"
	case path == "metric_direction" || path == "alpha" || path == "min_effect_pct":
		return "digests.settings"
	}
	return ""
}

// sweepCompared changes every leaf of the comparison report at path in
// turn (every number, string and bool, every array element: testkit.
// Tamper) and requires verify (checkCompared) to reject each change,
// naming the leaf, an ancestor or descendant of it, or the digest of the
// input holding it (inputDigest); a change the reader refuses must name
// the leaf. No leaf is exempt. It returns the number of leaves.
func sweepCompared(t *testing.T, path string) int {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	_, f, err := checkCompared(path)
	require.NoError(t, err)
	require.Empty(t, f.Mismatches(), "the untouched report must verify")
	var doc any
	require.NoError(t, json.Unmarshal(raw, &doc))
	ls := testkit.Leaves(doc)
	edited := filepath.Join(filepath.Dir(path), "edited-"+filepath.Base(path))
	silent := 0
	for _, l := range ls {
		bad, err := testkit.Tamper(raw, l.Keys)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(edited, bad, 0o644))
		_, f, err := checkCompared(edited)
		if err != nil {
			if !strings.Contains(err.Error(), l.Path) {
				t.Errorf("%s: refused without naming it: %v", l.Path, err)
				silent++
			}
			continue
		}
		named := false
		for _, m := range f.Mismatches() {
			if testkit.Names(m.Field, l.Path) || (inputDigest(l.Path) != "" && m.Field == inputDigest(l.Path)) {
				named = true
				break
			}
		}
		if !named {
			t.Errorf("%s: edited, and verify names it nowhere (mismatches: %v)", l.Path, f.Mismatches())
			silent++
		}
	}
	require.Zero(t, silent, "silent leaves")
	return len(ls)
}

// TestCompareSweepLeaves: every leaf of a comparison report, one made
// from a metrics file and one from two run reports, changed alone, is a
// mismatch verify names: with the sources there (their rows read again
// name an edited input where it stands) and with them gone (the digests
// name it). Every kind of leaf is among them: the sources' paths, arms
// and SHA-256, the settings, the seeds, the arms' names and per-seed
// values, and every derived number.
func TestCompareSweepLeaves(t *testing.T) {
	dir, reports := comparedFixtures(t)
	for _, path := range reports {
		t.Run(filepath.Base(path), func(t *testing.T) {
			n := sweepCompared(t, path)
			require.Greater(t, n, 100)
			c, err := report.ReadCompared(path)
			require.NoError(t, err)
			t.Logf("%s: %d leaves, each named (sources there)", path, n)
			// The same sweep with every source gone: each is a note,
			// and the edits are still named.
			gone := filepath.Join(dir, "gone")
			require.NoError(t, os.MkdirAll(gone, 0o755))
			for _, s := range c.Sources {
				if _, err := os.Stat(s.Path); err == nil {
					require.NoError(t, os.Rename(s.Path, filepath.Join(gone, filepath.Base(s.Path))))
				}
			}
			_, f, err := checkCompared(path)
			require.NoError(t, err)
			require.Empty(t, f.Mismatches())
			require.Len(t, f.Findings, len(c.Sources), "a note for each source")
			sweepCompared(t, path)
			for _, s := range c.Sources {
				if _, err := os.Stat(s.Path); err != nil {
					require.NoError(t, os.Rename(filepath.Join(gone, filepath.Base(s.Path)), s.Path))
				}
			}
		})
	}
}

// TestCompareSources: verify reads each source again. A relative source
// path is found as given (from the directory compare ran in), else
// beside the comparison report; a source absent from both is a note, not
// a mismatch; a source with other bytes is a mismatch naming the file;
// an arm's per-seed value that differs from its source is named leaf by
// leaf, even in a report whose digests and derived fields were made to
// agree with it. Arms from run reports: one report gone leaves the other
// read again.
func TestCompareSources(t *testing.T) {
	csvText, err := os.ReadFile("testdata/compare.csv")
	require.NoError(t, err)
	rdir, reports := comparedFixtures(t) // before the directory changes
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.WriteFile("m.csv", csvText, 0o644))
	out := filepath.Join("out", "c.json")
	require.NoError(t, run(context.Background(), []string{"compare", "m.csv", "--out", out}, &bytes.Buffer{}, &bytes.Buffer{}))
	c, err := report.ReadCompared(out)
	require.NoError(t, err)
	require.Equal(t, []report.ComparedSource{{Path: "m.csv", SHA256: sha256Hex(t, "m.csv")}}, c.Sources)
	verify := func(t *testing.T, file string) (string, error) {
		t.Helper()
		var stdout bytes.Buffer
		err := run(context.Background(), []string{"verify", file}, &stdout, &bytes.Buffer{})
		return stdout.String(), err
	}
	absent := "note sources[0]: m.csv is absent here: the arms' per-seed values are checked against each other only, not against their source\n"
	forged := filepath.Join("out", "forged.json")

	t.Run("as_given", func(t *testing.T) {
		got, err := verify(t, out)
		require.NoError(t, err)
		require.Contains(t, got, "0 mismatches, 0 notes")
	})
	t.Run("absent", func(t *testing.T) {
		t.Chdir(t.TempDir())
		got, err := verify(t, filepath.Join(dir, out))
		require.NoError(t, err, "an absent source is no mismatch")
		require.Contains(t, got, absent)
		require.Contains(t, got, "0 mismatches, 1 notes")
	})
	t.Run("beside_the_report", func(t *testing.T) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "out", "m.csv"), csvText, 0o644))
		defer os.Remove(filepath.Join(dir, "out", "m.csv"))
		t.Chdir(t.TempDir())
		got, err := verify(t, filepath.Join(dir, out))
		require.NoError(t, err)
		require.Contains(t, got, "0 mismatches, 0 notes")
	})
	t.Run("changed", func(t *testing.T) {
		require.NoError(t, os.WriteFile("m.csv", append(append([]byte(nil), csvText...), "# a comment\n"...), 0o644))
		defer os.WriteFile("m.csv", csvText, 0o644)
		got, err := verify(t, out)
		require.ErrorContains(t, err, "does not verify: 1 mismatches")
		require.Contains(t, got, "MISMATCH sources[0].sha256: report has "+c.Sources[0].SHA256)
		require.Contains(t, got, "the SHA-256 of m.csv now: it changed after the comparison was made")
	})
	t.Run("forged", func(t *testing.T) {
		// The rows of another file, recorded as m.csv's: every digest and
		// derived field agrees with the edited value, so only m.csv read
		// again can tell.
		other := strings.Replace(string(csvText), "gated,lr=0.001,2,0.399,0.421", "gated,lr=0.001,2,0.399,0.420", 1)
		require.NotEqual(t, string(csvText), other)
		require.NoError(t, os.WriteFile("other.csv", []byte(other), 0o644))
		rows, _, err := compare.ReadMetrics("other.csv")
		require.NoError(t, err)
		f, err := compare.Compare(rows, compare.Options{Sources: c.Sources, Direction: 0, Alpha: c.Alpha, MinEffectPct: c.MinEffectPct})
		require.NoError(t, err)
		require.Empty(t, compare.Verify(f).Mismatches(), "consistent in itself")
		require.NoError(t, f.WriteFile(forged))
		got, err := verify(t, forged)
		require.ErrorContains(t, err, "does not verify: 1 mismatches")
		require.Contains(t, got, "MISMATCH arms[1].cfgs[0].test.per_seed[2]: report has 0.42, re-derived 0.421 (read from the sources)")
	})
	t.Run("reports", func(t *testing.T) {
		b := filepath.Join(rdir, "b.json")
		raw, err := os.ReadFile(b)
		require.NoError(t, err)
		require.NoError(t, os.Remove(b))
		got, err := verify(t, reports[1])
		require.NoError(t, err)
		require.Contains(t, got, "note sources[1]: "+b+" is absent here")
		require.Contains(t, got, "0 mismatches, 1 notes")
		// a.json is still read again: its arm's value edited is named.
		c, err := report.ReadCompared(reports[1])
		require.NoError(t, err)
		c.Arms[0].Cfgs[1].Test.PerSeed[1] *= 1.5
		require.NoError(t, c.WriteFile(reports[1]))
		got, _ = verify(t, reports[1])
		require.Contains(t, got, "MISMATCH arms[0].cfgs[1].test.per_seed[1]: ")
		require.Contains(t, got, "(read from the sources)")
		// b.json back with other bytes: a mismatch naming it.
		require.NoError(t, os.WriteFile(b, append(raw, '\n'), 0o644))
		got, _ = verify(t, reports[1])
		require.Contains(t, got, "MISMATCH sources[1].sha256: ")
		require.Contains(t, got, "the SHA-256 of "+b+" now: it changed after the comparison was made")
	})
}

// TestCompareOldVersion: a comparison report of compare_version 1, which
// recorded no sources, is refused by verify and plot with the fix: make
// it again.
func TestCompareOldVersion(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "c.json")
	require.NoError(t, run(context.Background(), []string{"compare", "testdata/compare.csv", "--out", out}, &bytes.Buffer{}, &bytes.Buffer{}))
	var doc map[string]any
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &doc))
	doc["compare_version"] = 1
	delete(doc, "sources")
	old, err := json.Marshal(doc)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(out, old, 0o644))
	want := fmt.Sprintf("%s: compare_version 1 is older than this ideabench's %d and does not record its sources' SHA-256, so its source cannot be checked; run ideabench compare again on its source (testdata/compare.csv) to make it anew", out, report.CompareVersion)
	for _, cmd := range []string{"verify", "plot"} {
		t.Run(cmd, func(t *testing.T) {
			err := run(context.Background(), []string{cmd, out}, &bytes.Buffer{}, &bytes.Buffer{})
			require.ErrorContains(t, err, want)
		})
	}
}
