package plots

import (
	"bytes"
	"context"
	"encoding/xml"
	"html"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"

	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/suite"
	"github.com/ideabench/ideabench/suitereport"
)

var tiny struct {
	once sync.Once
	raw  []byte
	err  error
}

// report runs the tiny protocol of cmd/ideabench's tests once (about
// 0.1 s) and returns a fresh copy of its report, free to modify.
func tinyReport(t *testing.T) *report.Report {
	t.Helper()
	tiny.once.Do(func() {
		p, err := protocol.Load("../cmd/ideabench/testdata/tiny.json", protocol.CIProfile())
		if err != nil {
			tiny.err = err
			return
		}
		o, err := harness.Run(context.Background(), p, harness.Options{})
		if err != nil {
			tiny.err = err
			return
		}
		tiny.raw, tiny.err = o.Report.Marshal()
	})
	require.NoError(t, tiny.err)
	r, err := report.Parse(tiny.raw, "tiny report")
	require.NoError(t, err)
	return r
}

func readReport(t *testing.T, path string) *report.Report {
	t.Helper()
	r, err := report.Read(path)
	require.NoError(t, err)
	return r
}

// size is what a figure's files should say: PNG pixels and the SVG
// root's width and height attributes, as vgsvg writes them (points, five
// significant digits).
type size struct {
	w, h       vg.Length
	px, py     int
	svgW, svgH string
}

// defaultSize: 16 cm = 453.54 pt = 604.72 px at 96 DPI, rounded to 605;
// 10 cm = 283.46 pt = 377.95 px, 378.
var defaultSize = size{16 * vg.Centimeter, 10 * vg.Centimeter, 605, 378, "453.54pt", "283.46pt"}

// checkFiles: the paths are exactly the figures names in both formats,
// in order; each file is non-empty and decodes to the stated size.
func checkFiles(t *testing.T, paths []string, names []string, sz size) {
	t.Helper()
	var want, got []string
	for _, n := range names {
		want = append(want, n+".png", n+".svg")
	}
	for _, p := range paths {
		got = append(got, filepath.Base(p))
	}
	require.Equal(t, want, got)
	// The stated pixel size is the one vgimg computes.
	require.Equal(t, [2]int{sz.px, sz.py}, [2]int{Pixels(sz.w), Pixels(sz.h)})
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NotEmpty(t, raw)
			if strings.HasSuffix(path, ".png") {
				cfg, err := png.DecodeConfig(bytes.NewReader(raw))
				require.NoError(t, err)
				require.Equal(t, [2]int{sz.px, sz.py}, [2]int{cfg.Width, cfg.Height})
				_, err = png.Decode(bytes.NewReader(raw))
				require.NoError(t, err)
				return
			}
			var svg struct {
				XMLName xml.Name
				Width   string `xml:"width,attr"`
				Height  string `xml:"height,attr"`
			}
			require.NoError(t, xml.Unmarshal(raw, &svg))
			require.Contains(t, string(raw), "font-family:'Liberation Serif','Times New Roman',Times,serif;", "fallback fonts of the same metrics")
			require.Equal(t, "svg", svg.XMLName.Local)
			require.Equal(t, [2]string{sz.svgW, sz.svgH}, [2]string{svg.Width, svg.Height})
			for _, d := range []struct {
				attr string
				want vg.Length
			}{{svg.Width, sz.w}, {svg.Height, sz.h}} {
				v, err := strconv.ParseFloat(strings.TrimSuffix(d.attr, "pt"), 64)
				require.NoError(t, err)
				require.InDelta(t, d.want.Points(), v, 0.005, "svg size in points")
			}
		})
	}
}

func TestWrite(t *testing.T) {
	all := []string{"paired", "sweep", "gate", "loss", "budget"}
	for _, tc := range []struct {
		name  string
		r     func(*testing.T) *report.Report
		opt   Options
		sz    size
		names []string
	}{
		{"tiny", tinyReport, Options{}, defaultSize, all},
		// 8 in = 576 pt = 768 px; 3 in = 216 pt = 288 px.
		{"tiny/8x3in", tinyReport, Options{Width: 8 * vg.Inch, Height: 3 * vg.Inch}, size{8 * vg.Inch, 3 * vg.Inch, 768, 288, "576pt", "216pt"}, all},
		// A width alone keeps the default height.
		{"tiny/width-only", tinyReport, Options{Width: 4 * vg.Inch}, size{4 * vg.Inch, 10 * vg.Centimeter, 384, 378, "288pt", "283.46pt"}, all},
		// A tuned report (the ci profile tunes its arms): the idea's
		// effect at each setting drawn too.
		{"golden-ci", func(t *testing.T) *report.Report { return readReport(t, "../golden/ci_1.snap.json") }, Options{}, defaultSize, append(slices.Clone(all), "sensitivity")},
		// The seed report's schema: no per-position signature, no loss
		// curves, no validation summaries.
		{"seed-report", func(t *testing.T) *report.Report { return readReport(t, "../report/testdata/seed-report.json") }, Options{}, defaultSize, []string{"paired", "sweep"}},
		{"no-training-no-layers", func(t *testing.T) *report.Report {
			r := tinyReport(t)
			r.Training, r.MechanismSignature.MechanismSignature.Layers = nil, nil
			return r
		}, Options{}, defaultSize, []string{"paired", "sweep", "budget"}},
		// Layers of a report from before gain_by_position.
		{"layers-without-positions", func(t *testing.T) *report.Report {
			r := tinyReport(t)
			for l := range r.MechanismSignature.MechanismSignature.Layers {
				ls := &r.MechanismSignature.MechanismSignature.Layers[l]
				ls.GainByPosition, ls.StateByPosition = nil, nil
			}
			return r
		}, Options{}, defaultSize, []string{"paired", "sweep", "loss", "budget"}},
		// A token track whose baseline's seeds split: the seeds solved.
		{"bimodal", func(t *testing.T) *report.Report {
			r := tinyReport(t)
			r.Accuracy = &report.Secondary{
				Baseline: report.Summary{PerSeed: []float64{0.95, 0.3, 0.9, 0.28}, N: 4},
				Arms:     []report.ArmSecondary{{Name: "idea", Result: report.Summary{PerSeed: []float64{0.97, 0.9, 0.95, 0.3}, N: 4}, Solves: &report.PairedSolves{ArmSolves: report.ArmSolves{Solved: 3, N: 4, Bimodal: true, Gap: 0.6}, OnlyIdea: 1, PValue: 1}}},
				Solves:   &report.Solves{Floor: 0.2, Ceiling: 1, Target: 0.8, Baseline: report.ArmSolves{Solved: 2, N: 4, Bimodal: true, Gap: 0.6}},
			}
			return r
		}, Options{}, defaultSize, append(slices.Clone(all), "solves")},
		// One seed: no interval, the rest drawn.
		{"one-seed", func(t *testing.T) *report.Report {
			r := tinyReport(t)
			r.Baseline.Full.PerSeed, r.Idea.PerSeed = r.Baseline.Full.PerSeed[:1], r.Idea.PerSeed[:1]
			r.Comparison.PerSeedDiffs = r.Comparison.PerSeedDiffs[:1]
			return r
		}, Options{}, defaultSize, all},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "new", "dir")
			paths, err := Write(tc.r(t), dir, tc.opt)
			require.NoError(t, err)
			checkFiles(t, paths, tc.names, tc.sz)
			tmp, err := filepath.Glob(filepath.Join(dir, ".*"))
			require.NoError(t, err)
			require.Empty(t, tmp, "no temporary files left")
		})
	}
}

// TestWriteSameBytes: drawing a report twice gives the same files.
func TestWriteSameBytes(t *testing.T) {
	r := tinyReport(t)
	a, err := Write(r, t.TempDir(), Options{})
	require.NoError(t, err)
	b, err := Write(r, t.TempDir(), Options{})
	require.NoError(t, err)
	require.Len(t, b, len(a))
	for k := range a {
		fa, err := os.ReadFile(a[k])
		require.NoError(t, err)
		fb, err := os.ReadFile(b[k])
		require.NoError(t, err)
		require.Equal(t, fa, fb, filepath.Base(a[k]))
	}
}

// TestWriteOdd: a report that cannot be drawn is an error naming the
// field, never a panic, and writes nothing.
func TestWriteOdd(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name   string
		edit   func(*report.Report)
		opt    Options
		errMsg string
	}{
		{"empty", func(r *report.Report) { *r = report.Report{} }, Options{}, "paired: baseline.full.per_seed is empty"},
		{"idea-short", func(r *report.Report) { r.Idea.PerSeed = r.Idea.PerSeed[1:] }, Options{}, "idea.per_seed has 2 values, baseline.full.per_seed 3"},
		{"diffs-missing", func(r *report.Report) { r.Comparison.PerSeedDiffs = nil }, Options{}, "comparison.per_seed_diffs has 0 values"},
		{"nan-per-seed", func(r *report.Report) { r.Baseline.Full.PerSeed[1] = nan }, Options{}, "baseline.full.per_seed[1] is NaN"},
		{"inf-diff", func(r *report.Report) { r.Comparison.PerSeedDiffs[2] = math.Inf(1) }, Options{}, "comparison.per_seed_diffs[2] is +Inf"},
		{"nan-delta", func(r *report.Report) { r.Comparison.DeltaMean = nan }, Options{}, "comparison.delta_mean is NaN"},
		{"direction", func(r *report.Report) { r.MetricDirection = "sideways" }, Options{}, "metric_direction: stats: metric direction \"sideways\" is unknown"},
		{"no-baseline-sweep", func(r *report.Report) { r.Baseline.Sweep = nil }, Options{}, "sweep: baseline.sweep is empty"},
		{"no-idea-sweep", func(r *report.Report) { r.MechanismSignature.IdeaSweep = nil }, Options{}, "sweep: mechanism_signature.idea_sweep is empty"},
		{"zero-lr", func(r *report.Report) { r.Baseline.Sweep[1].Cfg.LR = 0 }, Options{}, "baseline.sweep[1].cfg.lr is 0; the log axis needs a positive lr"},
		{"val-missing", func(r *report.Report) { r.MechanismSignature.IdeaSweep[0].Val = nil }, Options{}, "mechanism_signature.idea_sweep[0].val is missing"},
		{"nan-val", func(r *report.Report) { r.Baseline.Sweep[0].Val.Std = nan }, Options{}, "baseline.sweep[0]: mean"},
		{"gain-nan", func(r *report.Report) { r.MechanismSignature.MechanismSignature.Layers[1].GainByPosition[3] = nan }, Options{}, "gate: mechanism_signature.mechanism_signature.layers[1].gain_by_position[3] is NaN"},
		{"steady-inf", func(r *report.Report) {
			r.MechanismSignature.MechanismSignature.Layers[0].PredictedSteadyGain = math.Inf(-1)
		}, Options{}, "layers[0].predicted_steady_gain is -Inf"},
		{"state-short", func(r *report.Report) {
			ls := &r.MechanismSignature.MechanismSignature.Layers[1]
			ls.StateByPosition = ls.StateByPosition[:2]
		}, Options{}, "layers[1] has 4 gains and 2 states by position"},
		{"loss-nan", func(r *report.Report) { r.Training.Idea.EpochLosses[0][1] = nan }, Options{}, "loss: training.idea.epoch_losses[0][1] is NaN"},
		{"reference-inf", func(r *report.Report) { r.ReferenceForecasters.BestReferenceMSE = math.Inf(1) }, Options{}, "paired: reference_forecasters.best_reference_mse is +Inf"},
		{"val-curve-nan", func(r *report.Report) { r.Training.Baseline.ValCurves[1][0] = nan }, Options{}, "loss: training.baseline.val_curves[1][0] is NaN"},
		{"loss-empty", func(r *report.Report) { r.Training.Baseline.EpochLosses = nil }, Options{}, "training.baseline.epoch_losses has no epoch"},
		{"negative-size", func(*report.Report) {}, Options{Width: -vg.Inch}, "figure size -72pt x 283.46pt"},
		{"infinite-size", func(*report.Report) {}, Options{Height: vg.Length(math.Inf(1))}, "need each in (0, 1 m]"},
		{"nan-size", func(*report.Report) {}, Options{Width: vg.Length(nan)}, "figure size NaNpt x 283.46pt"},
		// 1 m and a bit: past the bound.
		{"huge-size", func(*report.Report) {}, Options{Width: 100.1 * vg.Centimeter}, "figure size 2837.5pt x 283.46pt; need each in (0, 1 m]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tinyReport(t)
			tc.edit(r)
			dir := filepath.Join(t.TempDir(), "plots")
			paths, err := Write(r, dir, tc.opt)
			require.ErrorContains(t, err, tc.errMsg)
			require.Empty(t, paths)
			require.NoDirExists(t, dir, "nothing written")
		})
	}
	t.Run("nil", func(t *testing.T) {
		_, err := Write(nil, t.TempDir(), Options{})
		require.ErrorContains(t, err, "no report")
	})
}

func TestWriteUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	for _, tc := range []struct {
		name, dir string
	}{
		{"dir-is-a-file", file},
		{"under-a-file", filepath.Join(file, "sub")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			paths, err := Write(tinyReport(t), tc.dir, Options{})
			require.ErrorContains(t, err, "plots: ")
			require.ErrorContains(t, err, tc.dir)
			require.Empty(t, paths)
		})
	}
	t.Run("figure-path-is-a-dir", func(t *testing.T) {
		// paired.png cannot replace a directory: the error names it, the
		// files before it stay listed, and no temporary file is left.
		dir := t.TempDir()
		require.NoError(t, os.Mkdir(filepath.Join(dir, "paired.svg"), 0o755))
		paths, err := Write(tinyReport(t), dir, Options{})
		require.ErrorContains(t, err, "writing "+filepath.Join(dir, "paired.svg"))
		require.Equal(t, []string{filepath.Join(dir, "paired.png")}, paths)
		tmp, err := filepath.Glob(filepath.Join(dir, ".*"))
		require.NoError(t, err)
		require.Empty(t, tmp)
	})
}

func TestInterval(t *testing.T) {
	// d = (1, 2, 3): mean 2, s = 1; for ν = 2 the t quantile has the
	// closed form t_p = (2p-1)/√(2p(1-p)), so t(0.975, 2) = 0.95/√0.04875
	// and t(0.95, 2) = 0.9/√0.095.
	half := 0.95 / math.Sqrt(0.04875) / math.Sqrt(3)
	half90 := 0.9 / math.Sqrt(0.095) / math.Sqrt(3)
	for _, tc := range []struct {
		name          string
		c             report.Comparison
		lo, hi, level float64
		errMsg        string
	}{
		{"n=3", report.Comparison{PerSeedDiffs: []float64{1, 2, 3}, Alpha: 0.05}, 2 - half, 2 + half, 0.95, ""},
		// A report of the seed schema records no alpha: stats' default.
		{"no-alpha", report.Comparison{PerSeedDiffs: []float64{1, 2, 3}}, 2 - half, 2 + half, 0.95, ""},
		// The level is the report's: alpha 0.1 gives the 90% interval.
		{"alpha-0.1", report.Comparison{PerSeedDiffs: []float64{1, 2, 3}, Alpha: 0.1}, 2 - half90, 2 + half90, 0.9, ""},
		// Shifting every difference shifts the interval.
		{"n=3-shifted", report.Comparison{PerSeedDiffs: []float64{-9, -8, -7}, Alpha: 0.05}, -8 - half, -8 + half, 0.95, ""},
		// All equal: s = 0, the interval is the point.
		{"constant", report.Comparison{PerSeedDiffs: []float64{0.5, 0.5, 0.5, 0.5}, Alpha: 0.05}, 0.5, 0.5, 0.95, ""},
		// The report's own interval, where it has one.
		{"report's", report.Comparison{PerSeedDiffs: []float64{1, 2, 3}, Alpha: 0.1, Intervals: &stats.Intervals{Level: 0.9, TLo: -1, THi: 4}}, -1, 4, 0.9, ""},
		{"n=1", report.Comparison{PerSeedDiffs: []float64{1}}, 0, 0, 0, "at least 2"},
		{"n=0", report.Comparison{}, 0, 0, 0, "at least 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lo, hi, level, err := Interval(tc.c)
			if tc.errMsg != "" {
				require.ErrorContains(t, err, tc.errMsg)
				return
			}
			require.NoError(t, err)
			require.InDelta(t, tc.lo, lo, 1e-12)
			require.InDelta(t, tc.hi, hi, 1e-12)
			require.InDelta(t, tc.level, level, 1e-15)
		})
	}
}

// TestCfgLabels: a sweep panel labels its points by the fields that vary
// besides lr, groups the cfgs that differ in lr only, and names the idea
// its cfgs share.
func TestCfgLabels(t *testing.T) {
	ema := func(lr, lam float64) protocol.Cfg {
		return protocol.Cfg{LR: lr, Epochs: 4, Idea: "ema", Params: idea.NewParams(map[string]float64{"lambda": lam})}
	}
	for _, tc := range []struct {
		name   string
		cs     []protocol.Cfg
		labels []string // nil: no labels
		fixed  string
		groups []int
	}{
		{"lr only", []protocol.Cfg{{LR: 0.1, Epochs: 4}, {LR: 0.3, Epochs: 4}}, nil, "", []int{0, 0}},
		{"gate fixed", []protocol.Cfg{{LR: 0.1, Rho: 0.8, Beta: 0.5}, {LR: 0.3, Rho: 0.8, Beta: 0.5}}, nil, "gate ρ 0.8, β 0.5", []int{0, 0}},
		{"gate beta", []protocol.Cfg{{LR: 0.1, Rho: 0.8, Beta: 0.5}, {LR: 0.1, Rho: 0.8, Beta: 1}}, []string{"β 0.5", "β 1"}, "gate ρ 0.8, β 0.5", []int{0, 1}},
		{"params", []protocol.Cfg{ema(0.1, 0.5), ema(0.3, 0.5), ema(0.1, 0.9)}, []string{"lambda 0.5", "lambda 0.5", "lambda 0.9"}, "ema lambda 0.5", []int{0, 0, 1}},
		{"ideas and wd", []protocol.Cfg{{LR: 0.1, Idea: "conv", Params: idea.NewParams(map[string]float64{"width": 3})}, {LR: 0.1, WeightDecay: 0.1, Idea: "rezero"}},
			[]string{"conv\nwd 0\nwidth 3", "rezero\nwd 0.1\nwidth 0"}, "", []int{0, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			label, fixed := cfgLabels(tc.cs)
			require.Equal(t, tc.fixed, fixed)
			if tc.labels == nil {
				require.Nil(t, label)
			} else {
				var got []string
				for _, c := range tc.cs {
					got = append(got, label(c))
				}
				require.Equal(t, tc.labels, got)
			}
			g, n := lrGroups(tc.cs)
			require.Equal(t, tc.groups, g)
			require.Equal(t, slices.Max(g)+1, n)
		})
	}
}

// TestWriteSuite draws the forest plot of a CI suite and refuses a
// suite report with a non-finite effect.
func TestWriteSuite(t *testing.T) {
	dir := t.TempDir()
	r, err := suite.Run(context.Background(), suite.CI(), suite.Options{Out: filepath.Join(dir, "s.json"), Workers: 2})
	require.NoError(t, err)
	paths, err := WriteSuite(r, filepath.Join(dir, "plots"), Options{})
	require.NoError(t, err)
	want := []string{filepath.Join(dir, "plots", "forest.png"), filepath.Join(dir, "plots", "forest.svg")}
	if r.Development != nil {
		want = append(want, filepath.Join(dir, "plots", "profile.png"), filepath.Join(dir, "plots", "profile.svg"))
	}
	require.Equal(t, want, paths)
	svg, err := os.ReadFile(paths[1])
	require.NoError(t, err)
	for _, want := range []string{"suite ci: " + r.Verdict, "panel", "sequence", "development: "} {
		require.Contains(t, string(svg), want)
	}
	again, err := WriteSuite(r, filepath.Join(dir, "again"), Options{})
	require.NoError(t, err)
	b, err := os.ReadFile(again[1])
	require.NoError(t, err)
	require.Equal(t, svg, b, "the same report gives the same bytes")

	r.Tracks[0].EffectHiPct = math.NaN()
	_, err = WriteSuite(r, filepath.Join(dir, "bad"), Options{})
	require.ErrorContains(t, err, "tracks[0] (panel)")
}

// TestWriteSuiteRanks: an aggregate of several idea arms adds the
// critical-difference figure.
func TestWriteSuiteRanks(t *testing.T) {
	r := &suitereport.Report{Name: "x", Verdict: "better",
		Tracks: []suitereport.TrackResult{{Name: "a", EffectPct: 2, EffectLoPct: 1, EffectHiPct: 3, InAggregate: true}},
		Development: &suitereport.Aggregate{Tracks: []string{"a"},
			SuiteResult: &stats.SuiteResult{Mean: 0.02, Lo: 0.01, Hi: 0.03, ROPE: 0.00995, Verdict: "better"},
			Ideas: &suitereport.IdeaArms{Arms: []string{"baseline", "idea", "conv"},
				Friedman: stats.Friedman{Ranks: []float64{2.5, 2, 1.5}, CD: 1.2, PValue: 0.04}}}}
	dir := t.TempDir()
	paths, err := WriteSuite(r, dir, Options{})
	require.NoError(t, err)
	require.Len(t, paths, 4) // no reference MSE on the track: no profile
	require.Equal(t, filepath.Join(dir, "ranks.svg"), paths[3])
	svg, err := os.ReadFile(paths[3])
	require.NoError(t, err)
	for _, want := range []string{"Friedman p = 0.04", "CD/2 = 0.60", "baseline", "conv"} {
		require.Contains(t, string(svg), want)
	}
	r.Development.Ideas.Friedman.Ranks = r.Development.Ideas.Friedman.Ranks[:2]
	_, err = WriteSuite(r, dir, Options{})
	require.ErrorContains(t, err, "2 ranks for 3 arms")
}

func TestProfileSteps(t *testing.T) {
	// Two tracks of two seeds, weights ¼ each: scores 20, 0, 10, 40.
	got := profileSteps([]float64{20, 0, 10, 40}, []float64{0.25, 0.25, 0.25, 0.25}, -5, 45)
	want := plotter.XYs{{X: -5, Y: 1}, {X: 0, Y: 1}, {X: 0, Y: 0.75}, {X: 10, Y: 0.75}, {X: 10, Y: 0.5},
		{X: 20, Y: 0.5}, {X: 20, Y: 0.25}, {X: 40, Y: 0.25}, {X: 40, Y: 0}, {X: 45, Y: 0}}
	require.Equal(t, want, got)
}

// TestWriteSuiteProfile: a development aggregate over tracks with a
// reference draws the performance profile.
func TestWriteSuiteProfile(t *testing.T) {
	r := &suitereport.Report{Name: "x", Verdict: "better",
		Tracks: []suitereport.TrackResult{{Name: "a", EffectPct: 2, EffectLoPct: 1, EffectHiPct: 3, InAggregate: true,
			BaselineTest: []float64{0.5, 0.4}, IdeaTest: []float64{0.3, 0.45}, BestReferenceMSE: 0.5}},
		Development: &suitereport.Aggregate{Tracks: []string{"a"},
			SuiteResult: &stats.SuiteResult{Mean: 0.02, Lo: 0.01, Hi: 0.03, ROPE: 0.00995, Verdict: "better"}}}
	paths, err := WriteSuite(r, t.TempDir(), Options{})
	require.NoError(t, err)
	require.Len(t, paths, 4)
	svg, err := os.ReadFile(paths[3])
	require.NoError(t, err)
	require.Contains(t, string(svg), "performance profile")
	r.Tracks[0].IdeaTest[0] = math.Inf(1)
	_, err = WriteSuite(r, t.TempDir(), Options{})
	require.ErrorContains(t, err, "tracks[0].idea_test[0]")
}

// TestOffScale: a reference level more than the data's span away (at
// least 10% of the data's larger end) is named, not drawn.
func TestOffScale(t *testing.T) {
	for _, tc := range []struct {
		name      string
		y, lo, hi float64
		want      string
	}{
		{"inside", 0.165, 0.16, 0.17, ""},
		{"near_above", 0.18, 0.16, 0.17, ""}, // span max(0.01, 0.017)
		{"far_above", 0.6485, 0.16, 0.17, "above"},
		{"far_below", 0.0397, 0.16, 0.17, "below"},
		{"one_value", 0.105, 0.1, 0.1, ""}, // span 10% of 0.1
		{"one_value_far", 0.2, 0.1, 0.1, "above"},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, offScale(tc.y, tc.lo, tc.hi)) })
	}
}

// TestWriteHTML: the report page is one self-contained file that opens
// with the verdict and the trust signals, holds every figure inline as
// SVG, loads nothing and runs nothing, and is the same bytes for the same
// report.
func TestWriteHTML(t *testing.T) {
	r := tinyReport(t)
	dir := t.TempDir()
	path := HTMLPath(dir)
	require.NoError(t, WriteHTML(r, path, Options{}))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	page := string(raw)
	v := strings.Index(page, `id="verdict">`+html.EscapeString(r.Comparison.VerdictLine())+`<`)
	require.Greater(t, v, 0, "the verdict")
	trust := strings.Index(page, "How far to trust it")
	first := strings.Index(page, "<svg")
	require.Greater(t, trust, v)
	require.Greater(t, first, trust, "figures come after the verdict and the trust signals")
	for _, want := range []string{"competent", "judge an idea", "seeds for 80% power", "what these seeds can rule out", "Reference forecasters"} {
		require.True(t, strings.Contains(page, want), "the page lacks %q", want)
	}
	for _, name := range []string{"paired", "sweep", "budget"} {
		require.True(t, strings.Contains(page, `<figure id="`+name+`">`), "no %s figure", name)
	}
	for _, bad := range []string{"<script", `src="http`, `href="http`, "url(http", "@import", "<?xml"} {
		require.False(t, strings.Contains(page, bad), "the page holds %q: it must load and run nothing, its SVGs inline", bad)
	}
	require.NoError(t, WriteHTML(r, path, Options{}))
	again, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, raw, again)

	// In a real browser where one is installed: it renders without a
	// console error, and a screenshot is kept.
	var browser string
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no headless Chromium installed (Debian: apt-get install chromium)")
	}
	shot := filepath.Join(dir, "report.png")
	cmd := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--enable-logging=stderr", "--v=0", "--window-size=1280,2400", "--screenshot="+shot, "file://"+path)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	for _, line := range strings.Split(string(out), "\n") {
		require.NotContains(t, line, "CONSOLE", "a console message: %s", line)
		require.NotContains(t, line, "Uncaught", line)
	}
	st, err := os.Stat(shot)
	require.NoError(t, err)
	require.Greater(t, st.Size(), int64(10000), "a screenshot of the rendered page")
	if keep := os.Getenv("IDEABENCH_SCREENSHOT"); keep != "" {
		png, err := os.ReadFile(shot)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(keep, png, 0o644))
	}
}

// TestWriteSuiteHTML: a suite's page opens with its verdict, holds each
// aggregate, every track and the figures inline, and loads and runs
// nothing; in a real browser where one is installed it renders without a
// console message.
func TestWriteSuiteHTML(t *testing.T) {
	dir := t.TempDir()
	s := suite.CI()
	s.IncludeAll = true
	r, err := suite.Run(context.Background(), s, suite.Options{Out: filepath.Join(dir, "s.json"), Workers: 2})
	require.NoError(t, err)
	path := HTMLPath(dir)
	require.NoError(t, WriteSuiteHTML(r, path, Options{}))
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	page := string(raw)
	v := strings.Index(page, `id="verdict">`+r.Verdict+`<`)
	require.Greater(t, v, 0, "the verdict")
	for _, want := range []string{"development (panel, sequence)", "stratified, selection-aware", "probability of improvement", "<h2>Tracks</h2>", `<figure id="forest">`, `<figure id="profile">`} {
		i := strings.Index(page, want)
		require.Greater(t, i, v, "the page lacks %q after the verdict", want)
	}
	for _, bad := range []string{"<script", `src="http`, `href="http`, "url(http", "@import", "<?xml"} {
		require.False(t, strings.Contains(page, bad), "the page holds %q", bad)
	}
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no headless Chromium installed (Debian: apt-get install chromium)")
	}
	out, err := exec.Command(browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0",
		"--window-size=1280,2400", "--screenshot="+filepath.Join(dir, "suite.png"), "file://"+path).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.False(t, strings.Contains(string(out), "CONSOLE"), "%s", out)
}

// TestUnverified: with Options.Unverified every figure opens with the
// banner (its first text, drawn above the title) and the page with the
// banner, before its title and verdict; without it neither does.
func TestUnverified(t *testing.T) {
	r := tinyReport(t)
	u := &Unverified{Mismatches: 2, First: "comparison.verdict"}
	for _, opt := range []Options{{}, {Unverified: u}} {
		dir := t.TempDir()
		paths, err := Write(r, dir, opt)
		require.NoError(t, err)
		for _, p := range paths {
			if filepath.Ext(p) != ".svg" {
				continue
			}
			raw, err := os.ReadFile(p)
			require.NoError(t, err)
			first := regexp.MustCompile(`<text[^>]*>([^<]*)</text>`).FindStringSubmatch(string(raw))
			require.NotNil(t, first, p)
			require.Equal(t, opt.Unverified != nil, strings.HasPrefix(first[1], "UNVERIFIED: does not re-derive (2 mismatches)"), "%s opens with %q", p, first[1])
		}
		require.NoError(t, WriteHTML(r, HTMLPath(dir), opt))
		raw, err := os.ReadFile(HTMLPath(dir))
		require.NoError(t, err)
		page := string(raw)
		banner := strings.Index(page, `id="unverified">UNVERIFIED: this report does not re-derive (2 mismatches, first: comparison.verdict); its numbers may have been edited<`)
		if opt.Unverified == nil {
			require.NotContains(t, page, "UNVERIFIED")
			continue
		}
		require.Greater(t, banner, 0)
		require.Less(t, banner, strings.Index(page, "<h1"))
		require.Contains(t, page, "<title>UNVERIFIED: ")
	}
}

// TestLegendWhole: every figure's legend fits inside the figure at the
// default size, its last entry included, on the ci golden report and on
// the tiny report (the paired figure of the default run once ran its
// last entry, the interval's swatch, off the bottom: every entry takes
// the height of the tallest, and one had three lines).
func TestLegendWhole(t *testing.T) {
	ci := readReport(t, "../golden/ci_1.snap.json")
	// The default run's case: the best reference far above the arms and
	// the noise floor far below, each noted off the scale.
	off := readReport(t, "../golden/ci_1.snap.json")
	f := *off.ReferenceForecasters
	f.BestReferenceMSE, f.NoiseFloor = 40*off.Baseline.Full.Mean, off.Baseline.Full.Mean/40
	off.ReferenceForecasters = &f
	for name, r := range map[string]*report.Report{"ci": ci, "off_scale": off, "tiny": tinyReport(t)} {
		figs, err := reportFigures(r, &Unverified{Mismatches: 1, First: "comparison.verdict"})
		require.NoError(t, err)
		for _, f := range figs {
			if f.fig.legend == nil {
				continue
			}
			t.Run(name+"/"+f.name, func(t *testing.T) {
				dc := draw.New(vgimg.New(DefaultWidth, DefaultHeight))
				lc, _ := f.fig.layout(dc)
				r := f.fig.legend.Rectangle(lc)
				require.GreaterOrEqual(t, float64(r.Min.Y), float64(dc.Min.Y), "the legend's last entry is inside the figure")
				require.LessOrEqual(t, float64(r.Max.Y), float64(dc.Max.Y))
			})
		}
	}
}
