package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/suite"
	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// docCommand is a command of ideabench that a page shows: its words
// after "ideabench", and where it is.
type docCommand struct {
	args  []string
	where string // file:line
}

// docPages are the pages whose commands TestDocumentedCommandsWork runs.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	require.NoError(t, err)
	return append([]string{filepath.Join(repoRoot, "README.md")}, pages...)
}

// repoRoot is the repository's root from this package's folder.
const repoRoot = "../.."

// inlineCommand finds a command in a code span of prose.
var inlineCommand = regexp.MustCompile("`((?:go run \\./cmd/ideabench|ideabench) [^`]+)`")

// docCommands are the commands of ideabench a Markdown page shows: each
// line of a code block (indented, or fenced) that starts with
// "ideabench " or "go run ./cmd/ideabench ", a backslash joining it to
// the next, its "# comment" dropped; and each code span of prose that
// does. A usage line (with [optional] parts or a|b choices) is a
// synopsis, not a command, and is left out.
func docCommands(t *testing.T, page string) []docCommand {
	t.Helper()
	raw, err := os.ReadFile(page)
	require.NoError(t, err)
	lines := strings.Split(string(raw), "\n")
	var out []docCommand
	add := func(text string, line int, inline bool) {
		text = strings.TrimSpace(text)
		text = strings.Replace(text, "go run ./cmd/ideabench ", "ideabench ", 1)
		if !strings.HasPrefix(text, "ideabench ") {
			return
		}
		if i := strings.Index(text, " #"); i >= 0 && strings.Count(text[:i], "'")%2 == 0 {
			text = text[:i]
		}
		if strings.ContainsAny(text, "[|") || strings.Contains(text, "...") {
			return // a synopsis
		}
		if inline && !strings.Contains(strings.TrimPrefix(text, "ideabench "), " ") {
			return // a command's name in prose
		}
		for rest := text; rest != ""; {
			var words []string
			words, rest = shellWords(t, rest)
			if len(words) > 1 && words[0] == "ideabench" && isCommand(words[1]) {
				out = append(out, docCommand{words[1:], filepath.Base(page) + ":" + strconv.Itoa(line)})
			}
			rest = strings.TrimPrefix(strings.TrimSpace(rest), "go run ./cmd/ideabench ")
			if rest != "" && !strings.HasPrefix(rest, "ideabench ") {
				rest = "ideabench " + rest
			}
		}
	}
	fenced := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
			text, at := l, i+1
			for strings.HasSuffix(strings.TrimSpace(text), "\\") && i+1 < len(lines) {
				i++
				text = strings.TrimSuffix(strings.TrimSpace(text), "\\") + " " + strings.TrimSpace(lines[i])
			}
			add(text, at, false)
			continue
		}
		for _, m := range inlineCommand.FindAllStringSubmatch(l, -1) {
			add(m[1], i+1, true)
		}
	}
	return out
}

// isCommand reports whether name is a command of ideabench.
func isCommand(name string) bool {
	return slices.ContainsFunc(synopses, func(s struct{ name, args, does string }) bool { return s.name == name })
}

// ciSize reports whether a command's protocol is the ci profile's (or
// a ci suite's): seconds, so it runs for real and leaves its report
// for the commands after it.
func ciSize(args []string) bool {
	for i, a := range args[:len(args)-1] {
		if a == "--profile" && args[i+1] == "ci" || a == "--suite" && strings.HasSuffix(args[i+1], "ci") {
			return true
		}
	}
	return false
}

// external reports whether a command's --config names an external
// trainer (examples/torch needs PyTorch): it runs with --dry-run, which
// checks the trainer's program and files are there.
func external(t *testing.T, args []string) bool {
	t.Helper()
	i := slices.Index(args, "--config")
	if i < 0 || i+1 >= len(args) {
		return false
	}
	raw, err := os.ReadFile(args[i+1])
	return err == nil && strings.Contains(string(raw), `"trainers"`)
}

// trains lists the commands that train, which the test runs with
// --dry-run: everything up to their first trial is checked.
var trains = []string{"run", "suite", "control"}

// TestDocumentedCommandsWork: every command the README and the pages of
// docs/ show works when pasted. Each runs in a fresh folder that holds
// the repository's examples/ (as the repository's root does), in page
// order, so a command may read what one before it wrote: run and suite
// at the ci profile or a ci suite as written, the other commands that
// train (run, suite, control: its blocks multiply) with --dry-run, which checks all they need and
// trains nothing; train and data at the ci profile; the rest as
// written. Data directories (../shared/data, DIR) are a folder
// of every known data set (testkit.KnownFiles), REPORT.json a ci-profile
// report. A command whose inputs a reader makes himself (his own config,
// the reports of runs the page describes) is listed in skip with the
// reason; a skipped command no page shows any more fails the test, so
// the list stays exact.
func TestDocumentedCommandsWork(t *testing.T) {
	known := testkit.KnownShapedFiles(t)
	examples, err := filepath.Abs(filepath.Join(repoRoot, "examples"))
	require.NoError(t, err)
	fixture := filepath.Join(t.TempDir(), "ci.json")
	require.NoError(t, run(context.Background(), []string{"run", "--profile", "ci", "--out", fixture, "--quiet"}, &bytes.Buffer{}, &bytes.Buffer{}))
	suiteFixture := filepath.Join(t.TempDir(), "suite.json")
	require.NoError(t, run(context.Background(), []string{"suite", "--suite", "ci", "--out", suiteFixture, "--quiet"}, &bytes.Buffer{}, &bytes.Buffer{}))
	metrics, err := filepath.Abs("testdata/compare.csv")
	require.NoError(t, err)

	// The reports and configs a reader makes himself.
	skip := map[string]string{
		"compare two-blocks=mqar.json one-block=one-block.json --baseline two-blocks": "the reports of two full runs docs/ideas.md describes",
		"run --config mine.json --out mine-report.json":                               "the reader's own config",
		"verify mine-report.json":                                                     "the report of the reader's own config",
		"suite --suite my-suite.json":                                                 "the reader's own suite file",
		"eval --checkpoint idea.safetensors --data test.csv":                          "run after train and data at the page's own protocol",
		"merge --out report.json results":                                             "merges the four shards the page runs one of (TestPrintedCommandsWork pastes a shard's merge)",
		"datasets --convert NAME --data-dir DIR":                                      "NAME is a set whose two text files the reader downloads (TestConvert)",
	}
	placeholders := map[string]string{
		"../shared/data": known, "DIR": known, "REPORT.json": fixture, "SUITE.json": suiteFixture, "metrics.csv": metrics,
		"PATH/ETTh2.csv": filepath.Join(known, "ETT-small", "ETTh2.csv"), "data/ETTh1.csv": filepath.Join(known, "ETT-small", "ETTh1.csv"), "PATH": filepath.Join(known, "nn5_weekly_dataset.tsf"),
	}
	skipped := map[string]bool{}
	n := 0
	for _, page := range docPages(t) {
		cmds := docCommands(t, page)
		if len(cmds) == 0 {
			continue
		}
		t.Run(filepath.Base(page), func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.Symlink(examples, filepath.Join(dir, "examples")))
			t.Chdir(dir)
			for _, c := range cmds {
				line := strings.Join(c.args, " ")
				if why, ok := skip[line]; ok {
					skipped[line] = true
					t.Logf("%s: %s: skipped: %s", c.where, line, why)
					continue
				}
				args := slices.Clone(c.args)
				for i, a := range args {
					if v, ok := placeholders[a]; ok {
						args[i] = v
					}
				}
				switch {
				case slices.Contains(trains, args[0]) && (args[0] == "control" || !ciSize(args) || external(t, args)):
					args = append(args, "--dry-run")
				case args[0] == "train" || args[0] == "data":
					if !slices.Contains(args, "--profile") {
						args = append(args, "--profile", "ci")
					}
				}
				var stdout, stderr bytes.Buffer
				err := run(context.Background(), args, &stdout, &stderr)
				require.NoError(t, err, "%s: ideabench %s\nstderr: %s", c.where, line, stderr.String())
				n++
			}
		})
	}
	if t.Failed() {
		return // a page stopped at its failing command
	}
	for line := range skip {
		require.True(t, skipped[line], "skip lists %q, which no page shows any more", line)
	}
	require.Greater(t, n, 20, "the pages show commands")
}

// TestHelpWorks: what the help texts name exists: every idea they give
// as an example (name:k=v,...) parses, --track lists every track kind,
// --suite every built-in suite, and the usage every command.
func TestHelpWorks(t *testing.T) {
	example := regexp.MustCompile(`\b([a-z][a-z0-9-]*):([a-z_]+=[-0-9.e]+(?:,[a-z_]+=[-0-9.e]+)*)`)
	var all strings.Builder
	for _, s := range synopses {
		var stdout bytes.Buffer
		require.NoError(t, run(context.Background(), []string{s.name, "--help"}, &stdout, &bytes.Buffer{}))
		all.WriteString(stdout.String())
	}
	var stdout bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"help"}, &stdout, &bytes.Buffer{}))
	all.WriteString(stdout.String())
	help := all.String()
	found := 0
	for _, m := range example.FindAllStringSubmatch(help, -1) {
		if _, ok := idea.Lookup(m[1]); !ok {
			continue // not an idea: a time (01:00), a URL
		}
		_, err := idea.Parse(m[0])
		require.NoError(t, err, "the help's example %s", m[0])
		found++
	}
	require.Positive(t, found, "the help gives ideas as examples")

	var run, suiteHelp bytes.Buffer
	require.NoError(t, runHelp("run", &run))
	require.NoError(t, runHelp("suite", &suiteHelp))
	for _, k := range track.KindNames() {
		require.Contains(t, flagLine(t, run.String(), "-track"), k, "--track lists every track")
	}
	for _, s := range suite.Names() {
		require.Contains(t, flagLine(t, suiteHelp.String(), "-suite"), s, "--suite lists every built-in suite")
	}
	for _, s := range synopses {
		require.Contains(t, stdout.String(), "  "+s.name+" ", "usage lists %s", s.name)
	}
}

func runHelp(cmd string, w *bytes.Buffer) error {
	err := run(context.Background(), []string{cmd, "--help"}, w, &bytes.Buffer{})
	if errors.Is(err, errHelp) {
		return nil
	}
	return err
}

// flagLine is a flag's entry in a command's help: its line and the
// description below it.
func flagLine(t *testing.T, help, flag string) string {
	t.Helper()
	i := strings.Index(help, "  "+flag+" ")
	require.GreaterOrEqual(t, i, 0, "no %s in the help", flag)
	rest := help[i:]
	if j := strings.Index(rest[1:], "\n  -"); j >= 0 {
		rest = rest[:j+1]
	}
	return rest
}
