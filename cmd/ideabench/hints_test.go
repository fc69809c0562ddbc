package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// shellWords splits a command line as a POSIX shell does, for the
// quoting shellQuote writes: words apart by spaces, single quotes
// literal, a backslash outside them escaping the next character. It stops at "&&", returning the words before it and the rest.
func shellWords(t *testing.T, line string) (words []string, rest string) {
	t.Helper()
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		case c == ' ':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		case c == '&' && strings.HasPrefix(line[i:], "&&"):
			return words, strings.TrimSpace(line[i+2:])
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	require.False(t, quoted, "unterminated quote in %q", line)
	if inWord {
		words = append(words, w.String())
	}
	return words, ""
}

// printedCommands are the lines of out (or the tail of a message after
// prefix) that are commands of ideabench, split into words.
func printedCommands(t *testing.T, text string) [][]string {
	t.Helper()
	var cmds [][]string
	for _, line := range strings.Split(text, "\n") {
		i := strings.Index(line, "ideabench ")
		if i < 0 {
			continue
		}
		for rest := line[i:]; rest != ""; {
			var words []string
			words, rest = shellWords(t, rest)
			if len(words) > 1 && words[0] == "ideabench" {
				cmds = append(cmds, words[1:])
			}
		}
	}
	return cmds
}

// TestPrintedCommandsWork: the commands the tool prints for a user to
// paste work as printed. `ideabench datasets` prints one run command per
// data set it finds (once the placeholder "--dataset NAME --data-dir
// DIR"), quoted for a shell: each builds a valid protocol, with either
// --channels it mentions too. A shard's closing line and the refusal of
// --plots on a shard print the merge command: pasted after every shard,
// it writes the report.
func TestPrintedCommandsWork(t *testing.T) {
	// datasets pastes: each run command builds a valid protocol (with
	// either --channels too); any other command runs.
	datasets := func(t *testing.T, dir string) {
		var stdout bytes.Buffer
		require.NoError(t, run(context.Background(), []string{"datasets", "--data-dir", dir}, &stdout, &bytes.Buffer{}))
		cmds := printedCommands(t, stdout.String())
		require.NotEmpty(t, cmds, stdout.String())
		for _, c := range cmds {
			if c[0] != "run" {
				require.NoError(t, run(context.Background(), c, &bytes.Buffer{}, &bytes.Buffer{}), "%q", c)
				continue
			}
			extras := [][]string{nil, {"--channels", "independent"}, {"--channels", "mixed"}}
			if i := slices.Index(c, "--dataset"); i >= 0 {
				if k, ok := track.LookupKnown(c[i+1]); ok && k.TrackKind() != track.KnownKind {
					extras = extras[:1] // a real panel has no columns to choose
				}
			}
			for _, extra := range extras {
				args := append(append([]string(nil), c...), extra...)
				t.Run(strings.Join(args, " "), func(t *testing.T) {
					fs := newFlags("run")
					pf := protocolFlags(fs, &bytes.Buffer{})
					require.NoError(t, fs.Parse(args[1:]))
					_, err := pf.protocol()
					require.NoError(t, err)
				})
			}
		}
	}
	if shared := filepath.Join("..", "..", "..", "shared", "data"); dirExists(shared) {
		datasets(t, shared) // the published files, where they are
	}
	datasets(t, t.TempDir()) // none there
	known := testkit.KnownFiles(t, filepath.Join("..", "..", "track", "testdata", "tiny.csv"))
	datasets(t, known)
	// A folder whose name a shell would split and unquote.
	odd := filepath.Join(t.TempDir(), "data 'sets'")
	require.NoError(t, os.Symlink(known, odd))
	datasets(t, odd)

	t.Run("shard_merge", func(t *testing.T) {
		results := filepath.Join(t.TempDir(), "shard 'results'")
		var lines strings.Builder
		for i := range 2 {
			var stdout bytes.Buffer
			require.NoError(t, run(context.Background(), []string{"run", "--config", "testdata/tiny.json", "--results", results, "--shard", []string{"0/2", "1/2"}[i], "--quiet"}, &stdout, &bytes.Buffer{}))
			lines.WriteString(stdout.String())
		}
		err := run(context.Background(), []string{"run", "--config", "testdata/tiny.json", "--results", results, "--shard", "0/2", "--plots", filepath.Join(t.TempDir(), "my plots")}, &bytes.Buffer{}, &bytes.Buffer{})
		require.ErrorIs(t, err, errUsage)
		lines.WriteString(err.Error())
		cmds := printedCommands(t, lines.String())
		require.Len(t, cmds, 4, "two shards' merge lines, then merge and plot: %s", lines.String())
		t.Chdir(t.TempDir()) // REPORT.json is written where the user is
		for _, c := range cmds {
			var stdout, stderr bytes.Buffer
			require.NoError(t, run(context.Background(), c, &stdout, &stderr), "%q: %s", c, stderr.String())
		}
		require.FileExists(t, "REPORT.json")
	})
}

// TestRefusalHintsWork: a refusal that prints a command to run instead
// prints one that works: pasted in the repository's root (its
// examples/), it gets through every check (--dry-run).
func TestRefusalHintsWork(t *testing.T) {
	examples, err := filepath.Abs(filepath.Join(repoRoot, "examples"))
	require.NoError(t, err)
	panel, err := filepath.Abs(filepath.Join(repoRoot, "track", "testdata", "tiny-panel.tsf"))
	require.NoError(t, err)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"until-decided on a growing grid", []string{"run", "--profile", "ci", "--until-decided", "16"}},
		{"tsf file on the csv track", []string{"run", "--track", "csv", "--data", panel}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.Symlink(examples, filepath.Join(dir, "examples")))
			t.Chdir(dir)
			err := run(context.Background(), c.args, &bytes.Buffer{}, &bytes.Buffer{})
			require.ErrorIs(t, err, errUsage)
			cmds := printedCommands(t, err.Error())
			require.NotEmpty(t, cmds, "the refusal prints a command: %v", err)
			for _, cmd := range cmds {
				if cmd[0] == "run" && slices.Contains(cmd, "--data") && !slices.Contains(cmd, "--profile") {
					cmd = append(cmd, "--profile", "ci")
				}
				var stderr bytes.Buffer
				require.NoError(t, run(context.Background(), append(cmd, "--dry-run"), &bytes.Buffer{}, &stderr), "%q: %s", cmd, stderr.String())
			}
		})
	}
}

func dirExists(dir string) bool {
	st, err := os.Stat(dir)
	return err == nil && st.IsDir()
}
