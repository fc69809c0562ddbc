package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchunit"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// The recorded outputs: go test -bench . -count 10 of two packages,
// except count1.txt (-count 1). Relative to base.txt, same.txt is fresh
// noise in -v format, slow25/slow5/count1 have MatMul m=256 NN 25%, 5%
// and 25% slower, gflops30 has TrainStep gate=on at 70% of the GFLOP/s.
const (
	base     = "testdata/base.txt"
	same     = "testdata/same.txt"
	slow25   = "testdata/slow25.txt"
	slow5    = "testdata/slow5.txt"
	gflops30 = "testdata/gflops30.txt"
	count1   = "testdata/count1.txt"
	garbage  = "testdata/garbage.txt"
)

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		exit int
		want []string // substrings of stdout, beyond the golden file
	}{
		{"same", []string{base, same}, exitPass, []string{"PASS: 0 of 6 compared benchmarks regressed\n"}},
		// slow25.txt also adds a benchmark: listed, not gated.
		{"slow25", []string{base, slow25}, exitRegressed, []string{
			"MatMul/op=NN/m=256/k=256/n=256/impl=avx512-16 (github.com/ideabench/ideabench/internal/kernel): +25.44% sec/op, p=0.000",
			"only in new", "FAIL: 1 of 6"}},
		// -metric ns/op is tidied to sec/op, as benchstat does.
		{"slow25_ns_op", []string{"-metric", "ns/op", base, slow25}, exitRegressed, []string{"metric sec/op", "+25.44% sec/op"}},
		// 5% slower is significant but below the threshold; slow5.txt
		// also drops TrainStep gate=on.
		{"slow5", []string{base, slow5}, exitPass, []string{"+5.41%  0.000  worse, within threshold", "only in old", "PASS: 0 of 5"}},
		{"slow5_threshold_4", []string{"-threshold", "4", base, slow5}, exitRegressed, []string{"+5.41% sec/op"}},
		// GFLOP/s is higher-is-better: the drop fails ...
		{"gflops_drop", []string{"-metric", "GFLOP/s", base, gflops30}, exitRegressed, []string{
			"higher is better", "TrainStep/gate=on-16 (github.com/ideabench/ideabench/transformer): -29.86% GFLOP/s"}},
		// ... and the same change the other way is an improvement.
		{"gflops_rise", []string{"-metric", "GFLOP/s", gflops30, base}, exitPass, []string{"+42.57%  0.000  better"}},
		// Only TrainStep reports ms/step; lower is better.
		{"ms_step", []string{"-metric", "ms/step", base, gflops30}, exitRegressed, []string{"lower is better", "+42.54% ms/step"}},
		// One run cannot be significant: the 27% slowdown does not fail.
		{"count1", []string{base, count1}, exitPass, []string{
			"+27.49%  0.182  too few samples [1]", "[1] too few samples: 10 old and 1 new runs cannot reach p < 0.05; rerun with -count 10"}},
		{"count1_both", []string{count1, count1}, exitPass, []string{"too few samples: 1 old and 1 new runs"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, tc.exit, run(tc.args, &stdout, &stderr), stderr.String())
			require.Empty(t, stderr.String())
			for _, w := range tc.want {
				require.Contains(t, stdout.String(), w)
			}
			checkGolden(t, filepath.Join("testdata", tc.name+".golden"), stdout.String())
		})
	}
}

// checkGolden compares got with the golden file; with -update (or
// UPDATE_SNAPS=true) it rewrites the file, on a mismatch it writes got
// beside it as FILE.got.
func checkGolden(t *testing.T, path, got string) {
	t.Helper()
	if *update || os.Getenv("UPDATE_SNAPS") == "true" {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "create it with go test ./cmd/benchgate -update")
	if string(want) != got {
		require.NoError(t, os.WriteFile(path+".got", []byte(got), 0o644))
		t.Errorf("output differs from %s; see %s.got, accept with -update", path, path)
	}
}

// writeBench writes a benchmark file into a fresh temporary folder.
func writeBench(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

func TestRunInputs(t *testing.T) {
	const header = "goos: linux\ngoarch: amd64\npkg: example.com/p\ncpu: A\n"
	for _, tc := range []struct {
		name     string
		old, new string
		args     []string // flags
		exit     int
		stdout   []string
		stderr   []string
	}{
		// A differing cpu: line is residue: compared, with a note.
		{"cpu_varies",
			header + "BenchmarkF-8 1 100 ns/op\nBenchmarkF-8 1 101 ns/op\nBenchmarkF-8 1 99 ns/op\nBenchmarkF-8 1 100 ns/op\n",
			"goos: linux\ngoarch: amd64\npkg: example.com/p\ncpu: B\nBenchmarkF-8 1 100 ns/op\nBenchmarkF-8 1 101 ns/op\nBenchmarkF-8 1 99 ns/op\nBenchmarkF-8 1 100 ns/op\n",
			nil, exitPass, []string{"~ [1]", "[1] results vary in cpu"}, nil},
		// A different -N GOMAXPROCS suffix is another benchmark, as in benchstat.
		{"gomaxprocs_differs",
			header + "BenchmarkF-8 1 100 ns/op\nBenchmarkG 1 5 ns/op\n",
			header + "BenchmarkF-16 1 100 ns/op\nBenchmarkG 1 5 ns/op\n",
			nil, exitPass, []string{"F-8", "only in old", "F-16", "only in new", "G  "}, nil},
		// A malformed line is skipped with a warning, as benchstat does.
		{"syntax_error",
			header + "BenchmarkF-8 1 100 ns/op\nBenchmarkF-8 1 abc ns/op\n",
			header + "BenchmarkF-8 1 100 ns/op\n",
			nil, exitPass, []string{"F-8"}, []string{"old.txt:6: parsing measurement: invalid syntax (line skipped)"}},
		// A Unit line gives a unit no rule knows its direction.
		{"unit_better_higher",
			"Unit %peak better=higher\n" + header + "BenchmarkF 1 80 %peak\nBenchmarkF 1 81 %peak\nBenchmarkF 1 79 %peak\nBenchmarkF 1 80 %peak\n",
			header + "BenchmarkF 1 50 %peak\nBenchmarkF 1 51 %peak\nBenchmarkF 1 49 %peak\nBenchmarkF 1 50 %peak\n",
			[]string{"-metric", "%peak"}, exitRegressed, []string{"%peak (higher is better)", "-37.50% %peak"}, nil},
		// assume=exact metrics are gated on one run each (p is 0).
		{"assume_exact",
			"Unit mse assume=exact better=lower\n" + header + "BenchmarkF 1 0.25 mse\n",
			header + "BenchmarkF 1 0.30 mse\n",
			[]string{"-metric", "mse"}, exitRegressed, []string{"+20.00% mse, p=0.000"}, nil},
		{"nothing_paired",
			header + "BenchmarkF 1 100 ns/op\n", header + "BenchmarkG 1 100 ns/op\n",
			nil, exitUsage, nil, []string{"no benchmark reports sec/op in both", "nothing to gate"}},
		{"unit_lines_disagree",
			"Unit x/op better=higher\n" + header + "BenchmarkF 1 1 x/op\n",
			"Unit x/op better=lower\n" + header + "BenchmarkF 1 1 x/op\n",
			[]string{"-metric", "x/op"}, exitUsage, nil, []string{"old.txt declares Unit x/op better=higher but", "new.txt declares better=lower"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := slices.Concat(tc.args, []string{writeBench(t, "old.txt", tc.old), writeBench(t, "new.txt", tc.new)})
			var stdout, stderr bytes.Buffer
			require.Equal(t, tc.exit, run(args, &stdout, &stderr), "stdout:\n%s\nstderr:\n%s", &stdout, &stderr)
			for _, w := range tc.stdout {
				require.Contains(t, stdout.String(), w)
			}
			for _, w := range tc.stderr {
				require.Contains(t, stderr.String(), w)
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string // substrings of stderr
	}{
		{"missing_file", []string{"testdata/nope.txt", base}, []string{"open testdata/nope.txt: no such file", "go test -run '^$' -bench . -count 10"}},
		{"garbage_file", []string{base, garbage}, []string{"testdata/garbage.txt holds no benchmark results", "go test -run"}},
		{"bad_flag", []string{"-thresold", "5", base, same}, []string{"flag provided but not defined: -thresold", "benchgate -h"}},
		{"bad_alpha_value", []string{"-alpha", "x", base, same}, []string{`invalid value "x" for flag -alpha`}},
		{"alpha_zero", []string{"-alpha", "0", base, same}, []string{"-alpha 0 is outside (0, 1]"}},
		{"negative_threshold", []string{"-threshold", "-1", base, same}, []string{"-threshold -1 must be a percentage >= 0"}},
		{"empty_metric", []string{"-metric", "", base, same}, []string{"-metric is empty"}},
		{"one_file", []string{base}, []string{"want 2 files (old.txt new.txt) after the flags, got 1"}},
		// Go flags stop at the first file name.
		{"flag_after_files", []string{base, same, "-threshold", "5"}, []string{"got 4"}},
		{"unknown_direction", []string{"-metric", "%peak", base, same}, []string{"-metric %peak: unknown whether higher or lower is better", `"Unit %peak better=higher"`}},
		{"metric_absent", []string{"-metric", "foo/s", base, same}, []string{"no benchmark in testdata/base.txt reports foo/s", "GFLOP/s", "ms/step", "ns/op"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, exitUsage, run(tc.args, &stdout, &stderr), stderr.String())
			require.Empty(t, stdout.String())
			for _, w := range tc.want {
				require.Contains(t, stderr.String(), w)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitPass, run([]string{"-h"}, &stdout, &stderr))
	require.Contains(t, stderr.String(), "usage: benchgate [-threshold 10] [-alpha 0.05] [-metric sec/op] old.txt new.txt")
	require.Contains(t, stderr.String(), "-metric unit")
}

func TestBetterDirection(t *testing.T) {
	r := benchfmt.NewReader(bytes.NewReader([]byte("Unit %peak better=higher\nUnit steps/s better=lower\n")), "units")
	for r.Scan() {
	}
	declared := r.Units()
	for _, tc := range []struct {
		unit  string // as go test prints it
		units benchfmt.UnitMetadataMap
		want  int
	}{
		{"sec/op", nil, -1},
		{"ns/op", nil, -1},
		{"B/op", nil, -1},
		{"allocs/op", nil, -1},
		{"ms/step", nil, -1},
		{"s/protocol", nil, -1},
		{"ns/elem", nil, -1}, // tidied to sec/elem
		{"us/token", nil, -1},
		{"GFLOP/s", nil, 1},
		{"steps/s", nil, 1},
		{"MB/s", nil, 1}, // tidied to B/s
		{"%peak", nil, 0},
		{"mse", nil, 0},
		{"%peak", declared, 1},
		{"steps/s", declared, -1}, // a Unit line beats the /s rule
	} {
		name := tc.unit
		if tc.units != nil {
			name += "/declared"
		}
		t.Run(name, func(t *testing.T) {
			_, unit := benchunit.Tidy(1, tc.unit)
			require.Equal(t, tc.want, betterDirection(tc.units, unit))
		})
	}
}

func TestReachable(t *testing.T) {
	th := &benchmath.Thresholds{CompareAlpha: 0.05}
	for _, tc := range []struct {
		n1, n2 int
		assume benchmath.Assumption
		want   bool
	}{
		{1, 1, benchmath.AssumeNothing, false},
		{1, 10, benchmath.AssumeNothing, false}, // smallest p = 2/11
		{3, 3, benchmath.AssumeNothing, false},  // 2/20 = 0.1
		{4, 4, benchmath.AssumeNothing, true},   // 2/70 = 0.029
		{2, 40, benchmath.AssumeNothing, true},  // 2/861
		{10, 10, benchmath.AssumeNothing, true},
		{1, 1, benchmath.AssumeExact, true}, // exact values need one run
	} {
		t.Run(fmt.Sprintf("%s/n=%d+%d", tc.assume.SummaryLabel(), tc.n1, tc.n2), func(t *testing.T) {
			require.Equal(t, tc.want, reachable(tc.assume, tc.n1, tc.n2, th))
		})
	}
}

// TestPeakNotGated: BenchmarkPeak measures the CPU, so its drop is
// reported as the machine's and never fails the gate; the same drop of
// a kernel does.
func TestPeakNotGated(t *testing.T) {
	file := func(name string, peak, matmul float64) string {
		var b bytes.Buffer
		fmt.Fprintln(&b, "pkg: github.com/ideabench/ideabench/internal/kernel")
		for i := range 10 {
			jitter := 1 + float64(i)/1000
			fmt.Fprintf(&b, "BenchmarkPeak/probe=fma-16 \t 1000 \t %.1f ns/op \t %.2f GFLOP/s\n", 1e5/peak, peak*jitter)
			fmt.Fprintf(&b, "BenchmarkMatMul/m=64-16 \t 1000 \t %.1f ns/op \t %.2f GFLOP/s\n", 1e5/matmul, matmul*jitter)
		}
		return writeBench(t, name, b.String())
	}
	old := file("old.txt", 200, 100)
	for _, tc := range []struct {
		name string
		new  string
		exit int
		want []string
	}{
		{"peak_drops", file("peak.txt", 140, 100), exitPass, []string{"Peak/probe=fma-16", "machine probe, not gated", "PASS"}},
		{"kernel_drops", file("kernel.txt", 200, 70), exitRegressed, []string{"MatMul/m=64-16", "REGRESSION", "FAIL: 1 of 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			require.Equal(t, tc.exit, run([]string{"-metric", "GFLOP/s", old, tc.new}, &stdout, &stderr), stderr.String())
			for _, w := range tc.want {
				require.Contains(t, stdout.String(), w)
			}
		})
	}
}
