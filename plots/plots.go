package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/stats"
)

// Options size the figures.
type Options struct {
	Width, Height vg.Length // default 16 cm x 10 cm
}

// DPI is the resolution of the PNG files: a figure of width w is
// round(w/vg.Inch·DPI) pixels wide.
const DPI = 96

// Formats are the files written per figure.
var Formats = []string{"png", "svg"}

var (
	colBaseline = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	colIdea     = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	colGray     = color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}
)

// Write draws every figure the report has data for into dir (created if
// needed), NAME.png and NAME.svg each, written atomically, and returns
// the paths in order.
func Write(r *harness.Report, dir string, opt Options) ([]string, error) {
	if r == nil {
		return nil, errors.New("plots: no report")
	}
	if opt.Width == 0 {
		opt.Width = 16 * vg.Centimeter
	}
	if opt.Height == 0 {
		opt.Height = 10 * vg.Centimeter
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plots: %w", err)
	}
	var paths []string
	for _, f := range []struct {
		name string
		draw func(*harness.Report) (*plot.Plot, error)
	}{{"paired", paired}, {"sweep", sweep}, {"gate", gate}, {"loss", loss}} {
		p, err := f.draw(r)
		if err != nil {
			return paths, fmt.Errorf("plots: %s: %w", f.name, err)
		}
		if p == nil {
			continue
		}
		for _, format := range Formats {
			wt, err := p.WriterTo(opt.Width, opt.Height, format)
			if err != nil {
				return paths, fmt.Errorf("plots: %s.%s: %w", f.name, format, err)
			}
			path := filepath.Join(dir, f.name+"."+format)
			if err := atomicfile.Write(path, func(w io.Writer) error { _, err := wt.WriteTo(w); return err }); err != nil {
				return paths, fmt.Errorf("plots: writing %s: %w", path, err)
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

func line(xys plotter.XYs, c color.Color, width vg.Length) (*plotter.Line, error) {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.Color, l.Width = c, width
	return l, nil
}

// Interval is the 95% interval of the mean paired difference:
//
//	d̄ ± t(0.975, n-1) · s/√n,  s² = Σ(dᵢ - d̄)²/(n-1)
//
// (Student t; the sample std with n-1, unlike the report's population std).
func Interval(diffs []float64) (lo, hi float64, err error) {
	n := len(diffs)
	if n < 2 {
		return 0, 0, fmt.Errorf("%d paired differences; an interval needs at least 2", n)
	}
	var m float64
	for _, d := range diffs {
		m += d
	}
	m /= float64(n)
	var ss float64
	for _, d := range diffs {
		ss += (d - m) * (d - m)
	}
	half := stats.TQuantile(0.975, float64(n-1)) * math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	return m - half, m + half, nil
}

// paired: one column per arm, one line per seed.
func paired(r *harness.Report) (*plot.Plot, error) {
	b, i := r.Baseline.Full.PerSeed, r.Idea.PerSeed
	if len(b) == 0 || len(b) != len(i) {
		return nil, fmt.Errorf("baseline.full.per_seed has %d values and idea.per_seed %d; need equal, non-empty", len(b), len(i))
	}
	if !finite(b...) || !finite(i...) {
		return nil, errors.New("per-seed metrics are not finite")
	}
	c := r.Comparison
	p := plot.New()
	lo, hi, err := Interval(c.PerSeedDiffs)
	if err == nil {
		p.Title.Text = fmt.Sprintf("idea - baseline: %+.4g, 95%% CI [%+.4g, %+.4g], p = %.3g (%s)", c.DeltaMean, lo, hi, c.PValue, c.Verdict)
	} else {
		p.Title.Text = fmt.Sprintf("idea - baseline: %+.4g, p = %.3g (%s)", c.DeltaMean, c.PValue, c.Verdict)
	}
	p.Y.Label.Text = "test metric (MSE, normalized)"
	p.X.Label.Text = "arm (one line per seed)"
	p.NominalX("baseline", "idea")
	for k := range b {
		col := colGray
		if i[k] < b[k] {
			col = colIdea
		}
		l, err := line(plotter.XYs{{X: 0, Y: b[k]}, {X: 1, Y: i[k]}}, col, vg.Points(1))
		if err != nil {
			return nil, err
		}
		p.Add(l)
	}
	for arm, vs := range [][]float64{b, i} {
		xys := make(plotter.XYs, len(vs))
		for k, v := range vs {
			xys[k] = plotter.XY{X: float64(arm), Y: v}
		}
		s, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle.Color = []color.Color{colBaseline, colIdea}[arm]
		s.GlyphStyle.Shape = draw.CircleGlyph{}
		s.GlyphStyle.Radius = vg.Points(3)
		p.Add(s)
	}
	win, _ := line(nil, colIdea, vg.Points(1))
	lose, _ := line(nil, colGray, vg.Points(1))
	p.Legend.Add(fmt.Sprintf("idea better (%d of %d seeds)", c.IdeaWins, len(b)), win)
	p.Legend.Add("idea not better", lose)
	p.Legend.Top = true
	p.X.Min, p.X.Max = -0.3, 1.9 // room on the right for the legend
	return p, nil
}

// errPoints are points with symmetric y error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

// sweep: lr vs validation mean per arm.
func sweep(r *harness.Report) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = "learning-rate sweep (validation, mean ± std over seeds; ringed: chosen)"
	p.X.Label.Text = "learning rate"
	p.Y.Label.Text = "validation metric (MSE, normalized)"
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	type row struct {
		cfg    harness.Cfg
		val    *harness.Summary
		chosen bool
	}
	// A report without validation summaries (the seed report's schema)
	// selected on test means: draw those, without error bars.
	noVal := true
	var arms [2][]row
	for _, s := range r.Baseline.Sweep {
		v := s.Val
		if v == nil {
			v = &harness.Summary{Mean: s.Mean}
		} else {
			noVal = false
		}
		arms[0] = append(arms[0], row{s.Cfg, v, s.Cfg == r.Baseline.BestCfg})
	}
	for _, s := range r.MechanismSignature.IdeaSweep {
		v := s.Val
		if v == nil {
			v = &harness.Summary{Mean: s.Result.Mean, Std: s.Result.Std}
		} else {
			noVal = false
		}
		arms[1] = append(arms[1], row{s.Cfg, v, s.Cfg == r.MechanismSignature.ObservedBestCfg})
	}
	if noVal {
		p.Title.Text = "learning-rate sweep (test mean; the report has no validation summaries; ringed: chosen)"
		p.Y.Label.Text = "test metric"
	}
	n := 0
	for a, rows := range arms {
		var pts errPoints
		var labels []string
		var best plotter.XYs
		for _, rw := range rows {
			if rw.val == nil || !(rw.cfg.LR > 0) || !finite(rw.val.Mean, rw.val.Std) {
				continue
			}
			pts.XYs = append(pts.XYs, plotter.XY{X: rw.cfg.LR, Y: rw.val.Mean})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{rw.val.Std, rw.val.Std})
			if a == 1 {
				labels = append(labels, fmt.Sprintf(" ρ=%g β=%g", rw.cfg.Rho, rw.cfg.Beta))
			}
			if rw.chosen {
				best = append(best, plotter.XY{X: rw.cfg.LR, Y: rw.val.Mean})
			}
		}
		if len(pts.XYs) == 0 {
			continue
		}
		n++
		col := []color.Color{colBaseline, colIdea}[a]
		l, err := line(pts.XYs, col, vg.Points(1.5))
		if err != nil {
			return nil, err
		}
		l.Dashes = [][]vg.Length{nil, {vg.Points(4), vg.Points(2)}}[a]
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		eb.Color = col
		sc, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return nil, err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Shape, sc.GlyphStyle.Radius = col, draw.CircleGlyph{}, vg.Points(2.5)
		p.Add(l, eb, sc)
		if len(best) > 0 {
			ring, err := plotter.NewScatter(best)
			if err != nil {
				return nil, err
			}
			ring.GlyphStyle.Color, ring.GlyphStyle.Shape, ring.GlyphStyle.Radius = col, draw.RingGlyph{}, vg.Points(6)
			p.Add(ring)
		}
		if labels != nil {
			lb, err := plotter.NewLabels(plotter.XYLabels{XYs: pts.XYs, Labels: labels})
			if err != nil {
				return nil, err
			}
			for k := range lb.TextStyle {
				lb.TextStyle[k].Color = col
			}
			p.Add(lb)
		}
		p.Legend.Add([]string{"baseline", "idea"}[a], l, sc)
	}
	if n == 0 {
		return nil, errors.New("no sweep row with a positive lr and a finite metric")
	}
	p.Legend.Top = true
	// Room on the right for the legend and the idea's labels.
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, rows := range arms {
		for _, rw := range rows {
			if rw.cfg.LR > 0 {
				lo, hi = min(lo, rw.cfg.LR), max(hi, rw.cfg.LR)
			}
		}
	}
	p.X.Min, p.X.Max = lo/1.5, hi*4
	return p, nil
}

// gate: gain and state over positions, every block.
func gate(r *harness.Report) (*plot.Plot, error) {
	s := r.MechanismSignature.MechanismSignature
	if len(s.Layers) == 0 || len(s.Layers[0].GainByPosition) == 0 {
		return nil, nil // an older report: no per-position signature
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("gate of the idea's best cfg (ρ=%g, β=%g), seed %d, mean over test windows", s.Rho, s.Beta, s.TrainedModelSeed)
	p.X.Label.Text = "position t"
	p.Y.Label.Text = "gain g_t (solid), state s_t (dashed)"
	for l, ls := range s.Layers {
		col := []color.Color{colIdea, colBaseline, color.RGBA{G: 0x80, A: 0xff}, color.RGBA{R: 0x80, B: 0x80, A: 0xff}}[l%4]
		for k, ys := range [][]float64{ls.GainByPosition, ls.StateByPosition} {
			if !finite(ys...) {
				return nil, fmt.Errorf("layers[%d] has a non-finite value", l)
			}
			xys := make(plotter.XYs, len(ys))
			for t, y := range ys {
				xys[t] = plotter.XY{X: float64(t), Y: y}
			}
			ln, err := line(xys, col, vg.Points(1.5))
			if err != nil {
				return nil, err
			}
			if k == 1 {
				ln.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
			}
			p.Add(ln)
			p.Legend.Add(fmt.Sprintf("block %d %s", ls.Layer, []string{"gain", "state"}[k]), ln)
		}
		if finite(ls.PredictedSteadyGain) {
			g := ls.PredictedSteadyGain
			ref := plotter.NewFunction(func(float64) float64 { return g })
			ref.Color, ref.Width, ref.Dashes = col, vg.Points(0.75), []vg.Length{vg.Points(1), vg.Points(2)}
			p.Add(ref)
			p.Legend.Add(fmt.Sprintf("block %d predicted steady gain %.3f", ls.Layer, g), ref)
		}
	}
	// Gains sit near 1 and states near 0: the legend goes in between.
	p.Legend.Top = false
	p.Legend.YOffs = 2.5 * vg.Centimeter
	p.X.Min = 0
	p.X.Max = float64(len(s.Layers[0].GainByPosition) - 1)
	return p, nil
}

// loss: epoch losses per seed (thin) and the mean (thick) for each arm.
func loss(r *harness.Report) (*plot.Plot, error) {
	tr := r.Training
	if tr == nil {
		return nil, nil
	}
	p := plot.New()
	p.Title.Text = "training loss of each arm's chosen cfg (thin: seeds, thick: mean)"
	p.X.Label.Text = "epoch"
	p.Y.Label.Text = "mean training loss (MSE, normalized)"
	for a, ac := range []harness.ArmCurves{tr.Baseline, tr.Idea} {
		col := []color.Color{colBaseline, colIdea}[a]
		var sum []float64
		var cnt []int
		for _, curve := range ac.EpochLosses {
			if len(curve) == 0 || !finite(curve...) {
				continue
			}
			xys := make(plotter.XYs, len(curve))
			for e, v := range curve {
				xys[e] = plotter.XY{X: float64(e + 1), Y: v}
				if e >= len(sum) {
					sum, cnt = append(sum, 0), append(cnt, 0)
				}
				sum[e] += v
				cnt[e]++
			}
			ln, err := line(xys, col, vg.Points(0.5))
			if err != nil {
				return nil, err
			}
			p.Add(ln)
		}
		if len(sum) == 0 {
			continue
		}
		mean := make(plotter.XYs, len(sum))
		for e := range sum {
			mean[e] = plotter.XY{X: float64(e + 1), Y: sum[e] / float64(cnt[e])}
		}
		ln, err := line(mean, col, vg.Points(2.5))
		if err != nil {
			return nil, err
		}
		p.Add(ln)
		p.Legend.Add(fmt.Sprintf("%s (lr %g, ρ %g, β %g)", []string{"baseline", "idea"}[a], ac.Cfg.LR, ac.Cfg.Rho, ac.Cfg.Beta), ln)
	}
	p.Legend.Top = true
	return p, nil
}
