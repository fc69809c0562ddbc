package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ideabench/ideabench/plots"
	"github.com/ideabench/ideabench/protocol"
)

// A path a command reads or writes, with the flag or argument that names
// it in messages ("--config", "the metrics file").
type named struct{ what, path string }

// resolved is path made absolute and clean, with the symbolic links of
// its longest existing prefix resolved: a path not created yet then
// compares with one that exists.
func resolved(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	for p, rest := abs, ""; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs
		}
		p, rest = parent, filepath.Join(filepath.Base(p), rest)
	}
}

// samePath reports whether a and b name one file: os.SameFile where both
// exist (a hard link too), else the same resolved path.
func samePath(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	if errA == nil && errB == nil {
		return os.SameFile(sa, sb)
	}
	return resolved(a) == resolved(b)
}

// within reports whether path is dir or lies below it.
func within(path, dir string) bool {
	rel, err := filepath.Rel(resolved(dir), resolved(path))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// collision is the usage error of an output that would overwrite an
// input, naming both.
func collision(out named, how string, in named) error {
	return fmt.Errorf("%w: %s %s %s %s %s, which it would overwrite; write it elsewhere", errUsage, out.what, out.path, how, in.what, in.path)
}

// output is a path a command writes: a file, or a directory it writes
// into (dir), of figures (plots: plotWrites).
type output struct {
	named
	dir, plots bool
}

// checkOutputs refuses, before any work, an output that would overwrite
// an input: a file that is one of files or lies in one of dirs (a
// results directory whose records a run reuses, the directories merge
// reads); a directory that is one of files or dirs, or a directory of
// figures that would replace one of files (a report drawn into its own
// folder as report.html). An output is not compared with itself, and
// empty paths are not there.
func checkOutputs(outs []output, files, dirs []named) error {
	for _, o := range outs {
		if o.path == "" {
			continue
		}
		for _, in := range files {
			switch {
			case in.path == "" || in == o.named:
			case samePath(o.path, in.path):
				return collision(o.named, "is", in)
			case o.plots && plotWrites(o.path, in.path):
				return collision(o.named, "would replace", in)
			}
		}
		for _, d := range dirs {
			switch {
			case d.path == "" || d == o.named:
			case o.dir && samePath(o.path, d.path):
				return collision(o.named, "is", d)
			case !o.dir && within(o.path, d.path):
				return collision(o.named, "lies in", d)
			}
		}
	}
	return nil
}

// checkRunOutputs is checkOutputs for a command that writes a report to
// out (none when ""), keeps its trials in the results directory dir
// (given by --results when resultsFlag) and may draw figures into
// plotDir, reading inputs: a report or figure may not replace an input
// or land in the results directory, whose records the command reuses.
func checkRunOutputs(out, dir string, resultsFlag bool, plotDir string, inputs []named) error {
	report := named{"--out", out}
	results := named{"--results", dir}
	if !resultsFlag {
		results.what = "the results directory"
	}
	return checkOutputs([]output{{named: report}, {named: results, dir: true}, {named: named{"--plots", plotDir}, dir: true, plots: true}},
		append(inputs, report), []named{results})
}

// plotWrites reports whether drawing into dir may write path: a PNG or
// SVG figure or the page (plots.HTMLName) directly in it.
func plotWrites(dir, path string) bool {
	if resolved(filepath.Dir(path)) != resolved(dir) {
		return false
	}
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".png" || ext == ".svg" || filepath.Base(path) == plots.HTMLName
}

// protocolInputs are the files a protocol reads: the config file, the
// files its track's block names (track.Kind.Files), and the files its
// external trainers read.
func protocolInputs(config string, p protocol.Protocol) []named {
	in := []named{{"--config", config}}
	if k, ok := p.Kind(); ok {
		for _, f := range k.Files(&p.Blocks) {
			in = append(in, named{f.What, f.Path})
		}
	}
	for arm, tr := range p.Trainers {
		if tr == nil {
			continue
		}
		for _, f := range tr.Files {
			in = append(in, named{"trainers." + arm + ".files", f})
		}
	}
	return in
}

// madeDirs records the directories a command creates, so that a command
// refused before its first result leaves none behind (undo).
type madeDirs []string

// mkdirAll is os.MkdirAll, recording the directories it creates.
func (m *madeDirs) mkdirAll(dir string) error {
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	*m = append(*m, missing...)
	return nil
}

// undo removes the recorded directories that hold nothing but empty
// directories, deepest first: a directory that holds a file (a finished
// trial, a report) is kept with what leads to it.
func (m madeDirs) undo() {
	for _, d := range m {
		removeEmpty(d)
	}
}

// undoOnError is undo when *err is set, deferred by a command whose
// named result is err.
func (m *madeDirs) undoOnError(err *error) {
	if *err != nil {
		m.undo()
	}
}

// removeEmpty removes dir if it holds nothing but empty directories.
func removeEmpty(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
			removeEmpty(filepath.Join(dir, e.Name()))
		}
	}
	os.Remove(dir) // fails, as wanted, on a directory that is not empty
}
