package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// tinyPanel is the tsf track's fixture: six quarterly series of 40
// values, @horizon 4.
var tinyPanel = filepath.Join("..", "..", "track", "testdata", "tiny-panel.tsf")

// parseProtocol builds the protocol of run's flags args.
func parseProtocol(t *testing.T, args ...string) (protocol.Protocol, error) {
	t.Helper()
	fs := newFlags("run")
	pf := protocolFlags(fs, io.Discard)
	require.NoError(t, fs.Parse(args))
	return pf.protocol()
}

// TestTSFDataFlag: --data runs a .tsf file of one's own on the tsf
// track, named by --track tsf or by the file's extension alone:
// --context and --horizon set the tsf block's t and h over a config's,
// and without a horizon from either the file's @horizon is taken. Each
// combination that cannot run is refused with the fix; where the error
// prints a command, the command builds.
func TestTSFDataFlag(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile(tinyPanel)
	require.NoError(t, err)
	upper := filepath.Join(dir, "PANEL.TSF")
	require.NoError(t, os.WriteFile(upper, raw, 0o644))
	noHorizon := filepath.Join(dir, "no horizon.tsf")
	require.NoError(t, os.WriteFile(noHorizon, bytes.Replace(raw, []byte("@horizon 4\n"), nil, 1), 0o644))
	block := filepath.Join(dir, "block.json")
	require.NoError(t, os.WriteFile(block, []byte(`{"track": "tsf", "tsf": {"path": "elsewhere.tsf", "t": 12, "h": 3}}`), 0o644))
	seeds := filepath.Join(dir, "seeds.json")
	require.NoError(t, os.WriteFile(seeds, []byte(`{"track": "panel", "seeds": [3, 4]}`), 0o644))
	csv := filepath.Join("..", "..", "track", "testdata", "tiny.csv")
	for _, tc := range []struct {
		name string
		args []string
		want track.TSFConfig // zero when err is set
		err  []string
	}{
		{"track and data", []string{"--track", "tsf", "--data", tinyPanel, "--context", "8"}, track.TSFConfig{Path: tinyPanel, T: 8, H: 4}, nil},
		{"data alone", []string{"--data", tinyPanel, "--context", "8"}, track.TSFConfig{Path: tinyPanel, T: 8, H: 4}, nil},
		{"extension in capitals", []string{"--data", upper, "--context", "8"}, track.TSFConfig{Path: upper, T: 8, H: 4}, nil},
		{"horizon flag", []string{"--data", tinyPanel, "--context", "8", "--horizon", "2"}, track.TSFConfig{Path: tinyPanel, T: 8, H: 2}, nil},
		// The config's block gives t and h; --data replaces its file only.
		{"config block", []string{"--config", block, "--data", tinyPanel}, track.TSFConfig{Path: tinyPanel, T: 12, H: 3}, nil},
		{"config block, flags over it", []string{"--config", block, "--data", tinyPanel, "--context", "16", "--horizon", "4"}, track.TSFConfig{Path: tinyPanel, T: 16, H: 4}, nil},
		// A config of another track borrowed for its seeds: the .tsf
		// file names the track.
		{"config of another track", []string{"--config", seeds, "--data", tinyPanel, "--context", "8"}, track.TSFConfig{Path: tinyPanel, T: 8, H: 4}, nil},
		{"no horizon in the file, flag", []string{"--data", noHorizon, "--context", "8", "--horizon", "4"}, track.TSFConfig{Path: noHorizon, T: 8, H: 4}, nil},

		{"no look-back", []string{"--data", tinyPanel}, track.TSFConfig{}, []string{"--data " + tinyPanel + ": the tsf track needs a look-back; add --context N", "arch.patch = 4"}},
		{"no horizon in the file", []string{"--data", noHorizon, "--context", "8"}, track.TSFConfig{}, []string{"no horizon.tsf: the file has no @horizon line; add --horizon N"}},
		{"csv track", []string{"--track", "csv", "--data", tinyPanel, "--context", "8"}, track.TSFConfig{}, []string{"a .tsf file, which only the tsf track reads, but --track asks for the csv track; use --track tsf"}},
		{"panel track", []string{"--track", "panel", "--data", tinyPanel}, track.TSFConfig{}, []string{"asks for the panel track; use --track tsf"}},
		{"csv column flags", []string{"--data", tinyPanel, "--context", "8", "--target", "OT", "--channels", "independent"}, track.TSFConfig{}, []string{"--target, --channels: the csv track's column settings", "drop them"}},
		{"no such file", []string{"--data", filepath.Join(dir, "absent.tsf"), "--context", "8"}, track.TSFConfig{}, []string{"absent.tsf: no such file; give the path of the .tsf file"}},
		{"not a tsf file", []string{"--track", "tsf", "--data", csv, "--context", "8"}, track.TSFConfig{}, []string{"tiny.csv:1: a series line before @data"}},
		// A flag's 0 is refused as the config's would be, not read as
		// "the file's".
		{"horizon 0", []string{"--data", tinyPanel, "--context", "8", "--horizon", "0"}, track.TSFConfig{}, []string{"tsf.h = 0: the horizon must be at least 1"}},
		{"context 0", []string{"--data", tinyPanel, "--context", "0"}, track.TSFConfig{}, []string{"tsf.t = 0: the look-back must be at least 1"}},
		{"no file", []string{"--track", "tsf", "--context", "8"}, track.TSFConfig{}, []string{"--context: the tsf track's settings, but no file to read; add --data FILE.tsf"}},
		{"and a dataset", []string{"--dataset", "nn5-weekly", "--data", tinyPanel}, track.TSFConfig{}, []string{"--dataset and --data both name the file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := parseProtocol(t, tc.args...)
			if tc.err != nil {
				require.ErrorIs(t, err, errUsage)
				for _, w := range tc.err {
					require.ErrorContains(t, err, w)
				}
				for _, c := range printedCommands(t, err.Error()) {
					_, err := parseProtocol(t, c[1:]...)
					require.NoError(t, err, "the printed command %q", c)
				}
				return
			}
			require.NoError(t, err)
			require.Equal(t, "tsf", p.Track)
			require.Equal(t, tc.want, *p.TSF)
		})
	}
}

// TestKnownEditedHintRuns: an edited copy of a known data set is
// refused with a command that runs the copy as it is; that command, run
// as printed, builds the protocol --dataset builds on the published
// file (its block but the path, its token length) and goes on to read
// the data (stopped there by a done context, before any training).
func TestKnownEditedHintRuns(t *testing.T) {
	dir := testkit.KnownFiles(t, filepath.Join("..", "..", "track", "testdata", "tiny.csv"))
	for _, k := range track.Known {
		t.Run(k.Name, func(t *testing.T) {
			want, err := parseProtocol(t, "--dataset", k.Name, "--data-dir", dir)
			require.NoError(t, err)
			path := filepath.Join(dir, filepath.FromSlash(k.File))
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(path, append(raw, '\n'), 0o644))
			t.Cleanup(func() { os.WriteFile(path, raw, 0o644) })

			_, err = parseProtocol(t, "--dataset", k.Name, "--data-dir", dir)
			require.ErrorContains(t, err, "not the published file's")
			cmds := printedCommands(t, err.Error())
			require.Len(t, cmds, 1, "%v", err)
			c := cmds[0]
			require.Equal(t, []string{"run", "--track", k.TrackKind()}, c[:3])

			got, err := parseProtocol(t, c[1:]...)
			require.NoError(t, err)
			require.Equal(t, want.Arch, got.Arch)
			if want.TSF != nil {
				require.Equal(t, *want.TSF, *got.TSF)
			} else {
				require.Equal(t, *want.CSV, *got.CSV)
			}

			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			err = run(ctx, append(c, "--out", filepath.Join(t.TempDir(), "r.json"), "--quiet"), io.Discard, io.Discard)
			require.Error(t, err)
			require.NotErrorIs(t, err, errUsage, "past the protocol's building")
			require.True(t, errors.Is(err, context.Canceled), "stopped reading the data: %v", err)
		})
	}
}

// TestTSFRunNotes: a run of a .tsf file of one's own reports what makes
// it another task than the archive's, as data notes in the report and
// under the data line of the summary: an @-line of no known tag, a
// horizon other than the file's @horizon, no @frequency (MASE at lag 1).
func TestTSFRunNotes(t *testing.T) {
	raw, err := os.ReadFile(tinyPanel)
	require.NoError(t, err)
	raw = bytes.Replace(raw, []byte("@frequency quarterly\n"), []byte("@source by hand\n"), 1)
	dir := t.TempDir()
	data := filepath.Join(dir, "own.tsf")
	require.NoError(t, os.WriteFile(data, raw, 0o644))
	cfg := filepath.Join(dir, "small.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"seeds": [0, 1],
		"baseline": [{"lr": 0.003, "epochs": 1}], "idea": [{"lr": 0.003, "epochs": 1, "rho": 0.9, "beta": 0.5}],
		"arch": {"d": 8, "heads": 2, "layers": 1, "batch": 16, "patch": 4}}`), 0o644))
	out := filepath.Join(dir, "r.json")
	var stdout bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"run", "--profile", "ci", "--config", cfg, "--data", data, "--context", "8", "--horizon", "2", "--out", out, "--quiet"}, &stdout, io.Discard))
	r, err := report.Read(out)
	require.NoError(t, err)
	summary := stdout.String()
	want := []string{
		`"@source" is no tag of the .tsf format`,
		"the run's horizon is 2, not the file's @horizon 4: the run uses another horizon than the archive's",
		"no @frequency: MASE's scale is the lag-1 naive forecast",
	}
	require.Len(t, r.Setup.DataNotes, len(want), "%q", r.Setup.DataNotes)
	for i, w := range want {
		require.Contains(t, r.Setup.DataNotes[i], w, "the report's data notes")
		require.Contains(t, summary, w, "the summary")
	}
	require.Contains(t, summary, "own.tsf (a real panel at horizon 2")
	require.NotContains(t, summary, "published:", "no archive numbers beside another task")
	require.False(t, strings.Contains(summary, "cut by the Monash archive's protocol"))
}
