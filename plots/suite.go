package plots

import (
	"cmp"
	"errors"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/suitereport"
	"github.com/ideabench/ideabench/track"
)

// WriteSuite draws a suite report's forest plot into dir, forest.png and
// forest.svg, and returns their paths: one row a track (its mean effect,
// the idea's improvement in percent, with its paired-t interval; gray
// when it is not in an aggregate), then a row for each aggregate (its
// effect with the stratified bootstrap interval, a square), around zero
// and the region of practical equivalence (shaded). The title carries
// the suite's verdict.
func WriteSuite(r *suitereport.Report, dir string, opt Options) ([]string, error) {
	if r == nil {
		return nil, errors.New("plots: no suite report")
	}
	if opt.Width == 0 {
		opt.Width = DefaultWidth
	}
	if opt.Height == 0 {
		opt.Height = DefaultHeight
	}
	figs, err := suiteFigures(r, opt.Unverified)
	if err != nil {
		return nil, err
	}
	return writeFigures(dir, figs, opt)
}

// suiteFigures builds a suite report's figures: the forest plot, the
// performance profile where there is one, and the ranks of each
// aggregate of several idea arms; each opens with u's banner when the
// report did not verify.
func suiteFigures(r *suitereport.Report, u *Unverified) ([]named, error) {
	fig, err := forest(r)
	if err != nil {
		return nil, fmt.Errorf("plots: forest: %w", err)
	}
	figs := []named{{"forest", fig}}
	if prof, err := profile(r); err != nil {
		return nil, fmt.Errorf("plots: profile: %w", err)
	} else if prof != nil {
		figs = append(figs, named{"profile", prof})
	}
	for _, g := range r.Aggregates() {
		if g.Ideas == nil {
			continue
		}
		name := "ranks" // the development aggregate's
		if g.Name != "development" {
			name += "-" + g.Name
		}
		fig, err := ranks(r.Name, g.Aggregate)
		if err != nil {
			return nil, fmt.Errorf("plots: %s: %w", name, err)
		}
		figs = append(figs, named{name, fig})
	}
	for _, f := range figs {
		f.fig.banner = u.figureBanner()
	}
	return figs, nil
}

// ranks is the critical-difference figure of an aggregate's arms: each
// arm's average rank over the tracks (1 the best) with a bar of half the
// Nemenyi critical difference either side, so two arms whose bars do not
// overlap differ at level 0.05 (Demšar 2006, §3.2.2).
func ranks(name string, g *suitereport.Aggregate) (*figure, error) {
	ia := g.Ideas
	f := ia.Friedman
	if len(f.Ranks) != len(ia.Arms) {
		return nil, fmt.Errorf("ideas.friedman.ranks has %d ranks for %d arms", len(f.Ranks), len(ia.Arms))
	}
	if !finite(append([]float64{f.CD, f.PValue}, f.Ranks...)...) {
		return nil, errors.New("ideas.friedman holds a value that is not finite")
	}
	p := newPanel("", "average rank over the tracks (1 the best)", "")
	k := len(ia.Arms)
	var ticks []plot.Tick
	for a, arm := range ia.Arms {
		y := float64(k - a)
		ticks = append(ticks, plot.Tick{Value: y, Label: arm})
		c := color.Color(colIdea)
		if a == 0 {
			c = colBaseline
		}
		if f.CD > 0 {
			e := xErr{XYs: plotter.XYs{{X: f.Ranks[a], Y: y}}, XErrors: plotter.XErrors{{Low: f.CD / 2, High: f.CD / 2}}}
			bars, err := plotter.NewXErrorBars(e)
			if err != nil {
				return nil, err
			}
			bars.LineStyle.Color, bars.LineStyle.Width = c, vg.Points(1.2)
			p.Add(bars)
		}
		p.Add(dots(plotter.XYs{{X: f.Ranks[a], Y: y}}, c, draw.CircleGlyph{}, vg.Points(3)))
	}
	p.X.Min, p.X.Max = 1-f.CD/2-0.1, float64(k)+f.CD/2+0.1
	p.Y.Min, p.Y.Max = 0.4, float64(k)+0.6
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	tracks := fmt.Sprintf("%d tracks", len(ia.Tracks))
	if len(ia.Tracks) == 1 {
		tracks = "1 track"
	}
	title := fmt.Sprintf("suite %s, %s: Friedman p = %.3g; bars ± CD/2 = %.2f (no overlap: different at 0.05)", name, tracks, f.PValue, f.CD/2)
	return &figure{title: title, panels: [][]*plot.Plot{{p}}}, nil
}

// xErr is points with horizontal error bars.
type xErr struct {
	plotter.XYs
	plotter.XErrors
}

func (e xErr) Len() int { return len(e.XYs) }

// forest builds the forest plot of r.
func forest(r *suitereport.Report) (*figure, error) {
	type row struct {
		label        string
		mid, lo, hi  float64
		in, agg, two bool
	}
	var rows []row
	for i, t := range r.Tracks {
		if !finite(t.EffectPct, t.EffectLoPct, t.EffectHiPct) {
			return nil, fmt.Errorf("tracks[%d] (%s): effect %v [%v, %v] is not finite", i, t.Name, t.EffectPct, t.EffectLoPct, t.EffectHiPct)
		}
		label := t.Name
		if t.Confirm {
			label += " (held out)"
		}
		if !t.InAggregate {
			label += " (cannot judge)"
		}
		rows = append(rows, row{label: label, mid: t.EffectPct, lo: t.EffectLoPct, hi: t.EffectHiPct, in: t.InAggregate})
	}
	var rope float64
	for _, g := range r.Aggregates() {
		if g.SuiteResult == nil {
			continue // the idea inert on every track that can judge: no effect to draw
		}
		if !finite(g.Mean, g.Lo, g.Hi) {
			return nil, fmt.Errorf("%s: effect %v [%v, %v] is not finite", g.Name, g.Mean, g.Lo, g.Hi)
		}
		rows = append(rows, row{label: fmt.Sprintf("%s: %s", g.Name, g.Verdict), mid: stats.Pct(g.Mean), lo: stats.Pct(g.Lo), hi: stats.Pct(g.Hi), in: true, agg: true})
		rope = stats.Pct(g.ROPE)
	}
	if len(rows) == 0 {
		return nil, errors.New("the report has no tracks")
	}
	p := newPanel("", fmt.Sprintf("idea better than the baseline by (%% of test %s, %s interval)", suiteMetric(r), Level(1-r.Alpha)), "")
	n := len(rows)
	y := func(i int) float64 { return float64(n - i) }
	lo, hi := 0.0, 0.0
	var ticks []plot.Tick
	for i, rw := range rows {
		lo, hi = math.Min(lo, rw.lo), math.Max(hi, rw.hi)
		ticks = append(ticks, plot.Tick{Value: y(i), Label: rw.label})
	}
	if rope > 0 {
		lo, hi = math.Min(lo, -rope), math.Max(hi, rope)
		band, err := plotter.NewPolygon(plotter.XYs{{X: -rope, Y: 0.3}, {X: rope, Y: 0.3}, {X: rope, Y: float64(n) + 0.7}, {X: -rope, Y: float64(n) + 0.7}})
		if err != nil {
			return nil, err
		}
		band.Color, band.LineStyle.Width = colBand, 0
		p.Add(band)
	}
	p.Add(line(plotter.XYs{{X: 0, Y: 0.3}, {X: 0, Y: float64(n) + 0.7}}, colBlack, vg.Points(0.8), dashed))
	for i, rw := range rows {
		c := color.Color(colIdea)
		switch {
		case rw.agg:
			c = colBlack
		case !rw.in:
			c = colGray
		}
		e := xErr{XYs: plotter.XYs{{X: rw.mid, Y: y(i)}}, XErrors: plotter.XErrors{{Low: rw.mid - rw.lo, High: rw.hi - rw.mid}}}
		bars, err := plotter.NewXErrorBars(e)
		if err != nil {
			return nil, err
		}
		bars.LineStyle.Color, bars.LineStyle.Width = c, vg.Points(1.2)
		var shape draw.GlyphDrawer = draw.CircleGlyph{}
		radius := vg.Points(3)
		if rw.agg {
			shape, radius = draw.BoxGlyph{}, vg.Points(4)
		}
		p.Add(bars, dots(plotter.XYs{{X: rw.mid, Y: y(i)}}, c, shape, radius))
	}
	pad := 0.05 * (hi - lo)
	if pad == 0 {
		pad = 1
	}
	p.X.Min, p.X.Max = lo-pad, hi+pad
	p.Y.Min, p.Y.Max = 0.3, float64(n)+0.7
	p.Y.Tick.Marker = plot.ConstantTicks(ticks)
	title := fmt.Sprintf("suite %s: %s", r.Name, r.Verdict)
	if rope > 0 {
		title += fmt.Sprintf(" (shaded: effects within ±%.2g%% do not matter)", rope)
	}
	return &figure{title: title, panels: [][]*plot.Plot{{p}}}, nil
}

// profile is the performance profile of both arms over the development
// aggregate's tracks (Agarwal et al. 2021, §4.2): for each threshold τ,
// the share of runs (a track's seed, each track weighing the same) whose
// test metric beats the track's best reference forecaster by at least τ
// percent, 100·(1 - mse/reference). nil without a development aggregate
// or a reference on its tracks.
func profile(r *suitereport.Report) (*figure, error) {
	if r.Development == nil || len(r.Development.Tracks) == 0 {
		return nil, nil
	}
	in := map[string]bool{}
	for _, name := range r.Development.Tracks {
		in[name] = true
	}
	type run struct{ score, weight float64 }
	var arms [2][]run
	for i, t := range r.Tracks {
		if !in[t.Name] || t.Confirm {
			continue
		}
		if !(t.BestReferenceMSE > 0) {
			return nil, nil
		}
		for a, test := range [][]float64{t.BaselineTest, t.IdeaTest} {
			if len(test) == 0 {
				return nil, fmt.Errorf("tracks[%d] (%s): no per-seed test metrics", i, t.Name)
			}
			if err := checkFinite(fmt.Sprintf("tracks[%d].%s_test", i, []string{"baseline", "idea"}[a]), test); err != nil {
				return nil, err
			}
			for _, v := range test {
				arms[a] = append(arms[a], run{100 * (1 - v/t.BestReferenceMSE), 1 / float64(len(r.Development.Tracks)*len(test))})
			}
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, a := range arms {
		for _, x := range a {
			lo, hi = math.Min(lo, x.score), math.Max(hi, x.score)
		}
	}
	pad := 0.05 * (hi - lo)
	if pad == 0 {
		pad = 1
	}
	lo, hi = lo-pad, hi+pad
	p := newPanel("", "τ: better than the track's best reference by at least (% of its test "+suiteMetric(r)+")", "share of runs (tracks weigh the same)")
	leg := newLegend()
	for a, name := range []string{"baseline", "idea"} {
		var scores, weights []float64
		for _, x := range arms[a] {
			scores, weights = append(scores, x.score), append(weights, x.weight)
		}
		xys := profileSteps(scores, weights, lo, hi)
		c := color.Color(colBaseline)
		if a == 1 {
			c = colIdea
		}
		l := line(xys, c, vg.Points(1.5), nil)
		if a == 1 {
			l.Dashes = dashed
		}
		p.Add(l)
		leg.Add(name, l)
	}
	p.Add(line(plotter.XYs{{X: 0, Y: 0}, {X: 0, Y: 1}}, colGray, vg.Points(0.8), dotted))
	p.X.Min, p.X.Max = lo, hi
	p.Y.Min, p.Y.Max = 0, 1.02
	title := fmt.Sprintf("suite %s, development tracks %s: performance profile", r.Name, strings.Join(r.Development.Tracks, ", "))
	return &figure{title: title, panels: [][]*plot.Plot{{p}}, legend: leg}, nil
}

// profileSteps is the step curve of a performance profile on [lo, hi]:
// F(τ) = Σ weights of the scores >= τ, which falls by a score's weight at
// that score.
func profileSteps(scores, weights []float64, lo, hi float64) plotter.XYs {
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[a], scores[b]) })
	xys := plotter.XYs{{X: lo, Y: 1}}
	left := 1.0
	for _, i := range idx {
		xys = append(xys, plotter.XY{X: scores[i], Y: left})
		left = math.Max(left-weights[i], 0)
		xys = append(xys, plotter.XY{X: scores[i], Y: left})
	}
	return append(xys, plotter.XY{X: hi, Y: left})
}

// suiteMetric is the name of the test metric of a suite's tracks in
// labels: their kinds' (track.Kind.Metric, a data set's track is csv)
// when they agree, else "metric".
func suiteMetric(r *suitereport.Report) string {
	name := ""
	for _, t := range r.Spec.Tracks {
		m := "MSE"
		if k, ok := track.LookupKind(cmp.Or(t.Track, track.KnownKind)); ok {
			m = k.Metric()
		}
		if name != "" && m != name {
			return "metric"
		}
		name = m
	}
	return cmp.Or(name, "MSE")
}
