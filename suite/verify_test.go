package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/suitereport"
	"github.com/stretchr/testify/require"
)

// boundSuite runs ciSpec with every track in the aggregate and a second
// idea arm, its held-out track confirmed, from a suite file as the
// command line does (Open), so the report records its source; once for
// the package's tests, which restore any file they change. It returns
// the suite report's path and the suite file's.
func boundSuite(t *testing.T) (out, file string) {
	t.Helper()
	bound.once.Do(func() {
		dir, err := os.MkdirTemp("", "suite-bound-")
		if err != nil {
			bound.err = err
			return
		}
		bound.dir = dir
		s := ciSpec(t)
		s.Name, s.IncludeAll, s.Ideas = "bound", true, []string{"conv"}
		raw, err := json.Marshal(s)
		if err != nil {
			bound.err = err
			return
		}
		bound.file = filepath.Join(dir, "bound.json")
		if bound.err = os.WriteFile(bound.file, raw, 0o644); bound.err != nil {
			return
		}
		spec, src, err := Open(bound.file)
		if err != nil {
			bound.err = err
			return
		}
		bound.out = filepath.Join(dir, "suite.json")
		_, bound.err = Run(context.Background(), spec, Options{Out: bound.out, DataDir: filepath.Join(dir, "no-data"), Workers: 2, Confirm: true, Source: src})
	})
	require.NoError(t, bound.err)
	return bound.out, bound.file
}

// bound is boundSuite's suite, made once.
var bound struct {
	once           sync.Once
	dir, out, file string
	err            error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bound.dir != "" {
		os.RemoveAll(bound.dir)
	}
	os.Exit(code)
}

// TestVerifyBinds: verify binds a suite report to its sources: the spec
// to its suite file and to the protocols its track reports record, the
// held-out count to its ledger, the skipped tracks to the data
// directory, and the volatile wall time to its range. Each case edits
// the report (or a file beside it) and names the finding it must give.
func TestVerifyBinds(t *testing.T) {
	out, file := boundSuite(t)
	raw, err := os.ReadFile(out)
	require.NoError(t, err)
	fs, _ := Verify(mustParse(t, raw), out, verifyOpt)
	require.Empty(t, fs, "the untouched report verifies without a note")
	ledger := filepath.Join(Dir(out), "tiny.heldout")
	for _, c := range []struct {
		name string
		edit func(r *suitereport.Report)
		file func(t *testing.T) // changes a file beside the report, undone after
		want []string           // the paths of mismatches that must be found
		note string             // with no want: the path of the note it gives
	}{
		// The cases: a ci suite relabelled full would be drawn
		// without the smoke-test alert.
		{name: "profile", edit: func(r *suitereport.Report) { r.Spec.Profile = "full" },
			want: []string{"spec.profile", "tracks[0].report"}},
		{name: "track", edit: func(r *suitereport.Report) { r.Spec.Tracks[1].Track = "panel" },
			want: []string{"spec.tracks[1].track", "tracks[1].report"}},
		{name: "track protocol", edit: func(r *suitereport.Report) {
			var m map[string]any
			_ = json.Unmarshal(r.Spec.Tracks[2].Protocol, &m) // ciSpec's own JSON
			m["csv"].(map[string]any)["h"] = 4
			r.Spec.Tracks[2].Protocol, _ = json.Marshal(m)
		}, want: []string{"spec.tracks[2].protocol", "tracks[2].report"}},
		{name: "ideas", edit: func(r *suitereport.Report) { r.Spec.Ideas[0] = "ema" },
			want: []string{"spec.ideas[0]", "tracks[0].report"}},
		{name: "min effect", edit: func(r *suitereport.Report) { r.Spec.MinEffectPct = 2 },
			want: []string{"spec.min_effect_pct", "development.rope"}},
		{name: "held-out runs deleted", edit: func(r *suitereport.Report) { r.Tracks[2].HeldOutRuns = 0 },
			want: []string{"tracks[2].held_out_runs"}},
		{name: "held-out runs beyond the ledger", edit: func(r *suitereport.Report) {
			r.Tracks[2].HeldOutRuns = 2
			r.Warnings = []string{"held-out track tiny was reported under 2 protocols in this suite's folder: its result was seen before the settings changed, so it confirms nothing; hold out a track nobody has run yet"}
		}, want: []string{"tracks[2].held_out_runs"}},
		{name: "ledger deleted", file: func(t *testing.T) { remove(t, ledger) }, want: []string{"tracks[2].held_out_runs"}},
		{name: "ledger of another protocol", file: func(t *testing.T) { replace(t, ledger, "0123\n") }, want: []string{"tracks[2].held_out_runs"}},
		{name: "ledger grown since", file: func(t *testing.T) { appendTo(t, ledger, "0123\n") }, note: "tracks[2].held_out_runs"},
		{name: "wall seconds", edit: func(r *suitereport.Report) { r.WallSeconds = -1 }, want: []string{"wall_seconds"}},
		{name: "alpha", edit: func(r *suitereport.Report) { r.Alpha = 0.1 }, want: []string{"alpha"}},
		{name: "skipped reason", edit: func(r *suitereport.Report) { r.Skipped[0].Reason = "absent" }, want: []string{"skipped[0].reason"}},
		{name: "data dir", edit: func(r *suitereport.Report) { r.DataDir = "elsewhere" }, want: []string{"skipped[0].reason"}},
		{name: "suite file edited", file: func(t *testing.T) {
			replace(t, file, strings.Replace(string(read(t, file)), `"include_all":true`, `"include_all":false`, 1))
		}, want: []string{"source.file_sha256"}},
		{name: "suite file absent", file: func(t *testing.T) { remove(t, file) }, note: "source.file"},
		{name: "another source", edit: func(r *suitereport.Report) { r.Source = &suitereport.Source{Builtin: "ci"} },
			want: []string{"spec.name", "spec.tracks"}},
		{name: "no source", edit: func(r *suitereport.Report) { r.Source = nil }, note: "source"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := mustParse(t, raw)
			if c.edit != nil {
				c.edit(r)
			}
			if c.file != nil {
				keep := map[string][]byte{file: read(t, file), ledger: read(t, ledger)}
				t.Cleanup(func() {
					for p, b := range keep {
						require.NoError(t, os.WriteFile(p, b, 0o644))
					}
				})
				c.file(t)
			}
			fs, _ := Verify(r, out, verifyOpt)
			var paths []string
			for _, f := range Mismatches(fs) {
				paths = append(paths, f.Path)
			}
			for _, w := range c.want {
				testkit.RequireNamed(t, paths, w)
			}
			if c.want == nil {
				require.Empty(t, paths, "a note, not a mismatch: %v", fs)
				require.Len(t, fs, 1)
				require.Equal(t, c.note, fs[0].Path)
				require.True(t, fs[0].Explained)
			}
		})
	}
}

// TestVerifyEveryLeaf changes leaves of a suite report alone and checks
// that verify names each with a mismatch (the leaf, or one under or
// above it): a ci suite report from its built-in spec, and a report of
// a suite file whose held-out track ran, with a skipped data set, two
// idea arms and both aggregates. Each leaf of a path (indices aside) is
// derived by one piece of code, so the sweep takes the first and the
// last leaf of each (representatives): a full sweep of both reports
// took 78 s of CPU, this one a third of it. The documented exceptions:
// wall_seconds is volatile and only range-checked (TestVerifyBinds),
// source.file edited names a file that is absent, which verify says in
// a note.
func TestVerifyEveryLeaf(t *testing.T) {
	bound, _ := boundSuite(t)
	ci := filepath.Join(t.TempDir(), "ci.json")
	_, err := Run(context.Background(), CI(), Options{Out: ci, Workers: 2, Source: &suitereport.Source{Builtin: "ci"}})
	require.NoError(t, err)
	for _, out := range []string{ci, bound} {
		t.Run(filepath.Base(out), func(t *testing.T) {
			raw, err := os.ReadFile(out)
			require.NoError(t, err)
			var doc any
			require.NoError(t, json.Unmarshal(raw, &doc))
			ls := testkit.Representatives(testkit.Leaves(doc))
			silent := make([]string, len(ls))
			var wg sync.WaitGroup
			sem := make(chan struct{}, 2)
			for i, l := range ls {
				if l.Path == "wall_seconds" {
					continue
				}
				wg.Go(func() {
					sem <- struct{}{}
					defer func() { <-sem }()
					silent[i] = sweepLeaf(raw, out, l)
				})
			}
			wg.Wait()
			n := 0
			for _, s := range silent {
				if s != "" {
					t.Error(s)
					n++
				}
			}
			t.Logf("%d of %d leaves named", len(ls)-n, len(ls))
		})
	}
}

// sweepLeaf changes the leaf l of the suite report raw, read from out,
// and returns "" when verify names it, else what it said instead.
func sweepLeaf(raw []byte, out string, l testkit.Leaf) string {
	edited, err := testkit.Tamper(raw, l.Keys)
	if err != nil {
		return fmt.Sprintf("%s: not changed: %v", l.Path, err)
	}
	r, err := suitereport.Parse(edited, "edited")
	if err != nil {
		if strings.Contains(err.Error(), l.Path) || l.Path == "suite_version" && strings.Contains(err.Error(), "suite_version") {
			return ""
		}
		return fmt.Sprintf("%s: refused without naming it: %v", l.Path, err)
	}
	fs, _ := Verify(r, out, verifyOpt)
	var paths []string
	for _, f := range fs {
		named := testkit.Names(f.Path, l.Path)
		switch {
		case named && !f.Explained, named && l.Path == "source.file":
			return ""
		case l.Path == "data_dir" && f.Path == "skipped[0].reason":
			return "" // the skipped data set looked for in another folder
		}
		paths = append(paths, f.Path)
	}
	return fmt.Sprintf("%s: findings %q", l.Path, paths)
}

// TestSuiteAlpha: a suite's statistics run at its tracks' alpha, which
// every track must share, checked before any trial.
func TestSuiteAlpha(t *testing.T) {
	dir := t.TempDir()
	s := CI()
	s.Protocol = json.RawMessage(`{"alpha": 0.1}`)
	r, err := Run(context.Background(), s, Options{Out: filepath.Join(dir, "a.json"), Workers: 2})
	require.NoError(t, err)
	require.Equal(t, 0.1, r.Alpha)
	r5, err := Run(context.Background(), CI(), Options{Out: filepath.Join(dir, "b.json"), Workers: 2})
	require.NoError(t, err)
	require.Equal(t, 0.05, r5.Alpha)
	narrower := 0
	for i, tr := range r.Tracks {
		w, w5 := tr.EffectHiPct-tr.EffectLoPct, r5.Tracks[i].EffectHiPct-r5.Tracks[i].EffectLoPct
		require.LessOrEqual(t, w, w5, "track %s: a 90%% interval is no wider than a 95%% one", tr.Name)
		if w < w5 {
			narrower++
		}
	}
	require.Positive(t, narrower, "a track whose seeds differ has a narrower 90% interval")

	for _, c := range []struct {
		name, track, suite, want string
	}{
		{"two levels", `{"alpha": 0.1}`, "", "alpha 0.1, but track panel's is 0.05"},
		{"half", `{"alpha": 0.5}`, "", "alpha must be below 0.5"},
		{"suite half", "", `{"alpha": 0.6}`, "alpha must be below 0.5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := CI()
			s.Protocol = json.RawMessage(c.suite)
			s.Tracks[1].Protocol = json.RawMessage(c.track)
			out := filepath.Join(t.TempDir(), "s.json")
			_, err := Run(context.Background(), s, Options{Out: out, Workers: 2})
			require.ErrorContains(t, err, c.want)
			require.True(t, errors.Is(err, protocol.ErrConfig), "a setting the user fixes: exit status 2")
			require.NoDirExists(t, filepath.Join(Dir(out), "panel.trials", "trials"), "refused before any trial")
		})
	}
}

// verifyOpt are the options the tests verify with: the report's own
// values, no track rebuilt, each derivation made once for the inputs it
// comes from (derive.Memo: the leaf sweeps edit one leaf at a time).
var verifyOpt = derive.VerifyOptions{Memo: &derive.Memo{}}

func mustParse(t *testing.T, raw []byte) *suitereport.Report {
	t.Helper()
	r, err := suitereport.Parse(raw, "suite report")
	require.NoError(t, err)
	return r
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

func remove(t *testing.T, path string) { t.Helper(); require.NoError(t, os.Remove(path)) }

func replace(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func appendTo(t *testing.T, path, text string) {
	t.Helper()
	replace(t, path, string(read(t, path))+text)
}
