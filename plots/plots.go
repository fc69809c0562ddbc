package plots

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"github.com/ideabench/ideabench/idea"
	"image/color"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/track"
)

// Options size the figures and say whether the report verified. The
// zero value is the default.
type Options struct {
	Width, Height vg.Length // default DefaultWidth x DefaultHeight
	// Unverified, when set, says the report does not re-derive: every
	// figure's title and the page then open with Unverified.Banner. The
	// caller verifies (derive.Verify, suite.Verify, which plots does not
	// import); plots shows what it
	// is told and never verifies on its own.
	Unverified *Unverified
	// Verified, when set, is what a verification that passed checked:
	// a page says so with what made its numbers.
	Verified *Verified
}

// Verified is what a verification that passed checked.
type Verified struct {
	// Fields is the number of values re-derived and compared; Reports
	// the track reports a suite's verification covered (0 for a run's).
	Fields, Reports int
}

// pageLines are what a page adds to a reading's provenance: whether the
// report verified, and when and on what it ran (the run block), when
// known.
func pageLines(run *report.RunInfo, opt Options) []Line {
	var out []Line
	switch v := opt.Verified; {
	case opt.Unverified != nil:
		// The banner says it.
	case v != nil && v.Reports > 0:
		out = append(out, Line{Label: "verified", Text: fmt.Sprintf("yes: %d values re-derived from the track reports' inputs and compared, over %d track reports (ideabench verify)", v.Fields, v.Reports)})
	case v != nil:
		out = append(out, Line{Label: "verified", Text: fmt.Sprintf("yes: %d values re-derived from the report's inputs and compared (ideabench verify)", v.Fields)})
	default:
		out = append(out, Line{Label: "verified", Alert: true, Text: "not checked: the page was drawn without verifying the report; run ideabench verify on it"})
	}
	if run != nil {
		text := fmt.Sprintf("%.0f s at %d workers, %d trials trained and %d reused, ideabench %s (%s)", run.WallSeconds, run.Workers, run.TrialsRun, run.TrialsReused, run.Version, run.GoVersion)
		if run.Finished != "" {
			text = fmt.Sprintf("finished %s on %s; %s", run.Finished, cmp.Or(run.Machine, "a machine not recorded"), text)
		}
		out = append(out, Line{Label: "ran", Text: text})
	}
	return out
}

// Unverified is what a failed verification found, as a page and the
// figures name it.
type Unverified struct {
	// Mismatches is the number of fields that did not re-derive, First
	// the first of them (a JSON path, "comparison.verdict").
	Mismatches int
	First      string
}

// Banner is the line a page of an unverified report opens with.
func (u *Unverified) Banner() string {
	return fmt.Sprintf("UNVERIFIED: this report does not re-derive (%d mismatches, first: %s); its numbers may have been edited", u.Mismatches, u.First)
}

// figureBanner is Banner short enough for a figure's width.
func (u *Unverified) figureBanner() string {
	if u == nil {
		return ""
	}
	return fmt.Sprintf("UNVERIFIED: does not re-derive (%d mismatches); its numbers may have been edited", u.Mismatches)
}

// Default figure size: 16 cm x 10 cm, 605 x 378 pixels at DPI.
const (
	DefaultWidth  = 16 * vg.Centimeter
	DefaultHeight = 10 * vg.Centimeter
)

// maxSize bounds a figure's side: 1 m is 3780 pixels at DPI, a 57 MB
// image in memory.
const maxSize = 100 * vg.Centimeter

// DPI is the resolution of the PNG files. A figure of width w is
//
//	int(w/vg.Inch·DPI + 0.5)
//
// pixels wide (vgimg rounds so), and the same for the height.
const DPI = 96

// Pixels is the PNG size in pixels of a length at DPI.
func Pixels(l vg.Length) int { return int(l/vg.Inch*DPI + 0.5) }

// figures are the names of the figures in the order Write draws them.
var figures = []string{"paired", "sweep", "gate", "loss", "budget", "sensitivity", "solves"}

// builders build each of figures from a report: nil for a figure whose
// data the report lacks.
var builders = map[string]func(*report.Report) (*figure, error){
	"paired": paired, "sweep": sweep, "gate": gate, "loss": loss, "budget": budget,
	"sensitivity": sensitivityFigure, "solves": solvesFigure,
}

// formats are the files written per figure, NAME.FORMAT.
var formats = []string{"png", "svg"}

var (
	colBaseline = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	colIdea     = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	colGray     = color.RGBA{R: 0x99, G: 0x99, B: 0x99, A: 0xff}
	colBlack    = color.RGBA{A: 0xff}
	colAlarm    = color.RGBA{R: 0xc0, A: 0xff}                    // a banner that says the figure cannot be trusted
	colBand     = color.NRGBA{R: 0x40, G: 0x40, B: 0x40, A: 0x30} // an interval, translucent (not premultiplied)
	// Colours of the gate's blocks, then again from the first.
	colBlocks = []color.Color{colIdea, colBaseline, color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff}}
	// Thin per-seed loss curves: the arm's colour, translucent.
	// colIdeas colour further idea arms (Protocol.Ideas).
	colIdeas = []color.Color{color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff}, color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
		color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}, color.RGBA{R: 0x8c, G: 0x56, B: 0x4b, A: 0xff}}
	colSeedGray = color.NRGBA{R: 0x7f, G: 0x7f, B: 0x7f, A: 0x60}
	colSeed     = []color.Color{color.NRGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0x80}, color.NRGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0x80}}

	dashed = []vg.Length{vg.Points(5), vg.Points(3)}
	dotted = []vg.Length{vg.Points(1.5), vg.Points(2)}
)

// Write draws every figure the report has data for into dir (created if
// needed), NAME.png and NAME.svg each, and returns the paths in the order
// paired, sweep, gate, loss. A figure whose data the report lacks
// altogether is skipped and not listed: "gate" without per-position
// signatures (mechanism_signature.mechanism_signature.layers[].gain_by_position),
// "loss" without "training". Every figure is built before any file is
// written, so an odd report (empty per-seed lists, mismatched lengths,
// NaN) is an error naming the field and leaves dir as it was. Each file
// is written atomically (internal/atomicfile): a reader sees the old file
// or the whole new one; on a write error the paths already written are
// returned with it. The same report gives the same bytes.
func Write(r *report.Report, dir string, opt Options) ([]string, error) {
	if r == nil {
		return nil, errors.New("plots: no report")
	}
	if opt.Width == 0 {
		opt.Width = DefaultWidth
	}
	if opt.Height == 0 {
		opt.Height = DefaultHeight
	}
	if !(opt.Width > 0 && opt.Height > 0 && opt.Width <= maxSize && opt.Height <= maxSize) {
		return nil, fmt.Errorf("plots: figure size %.5gpt x %.5gpt; need each in (0, 1 m]", float64(opt.Width), float64(opt.Height))
	}
	figs, err := reportFigures(r, opt.Unverified)
	if err != nil {
		return nil, err
	}
	return writeFigures(dir, figs, opt)
}

// named is a figure with its file name.
type named struct {
	name string
	fig  *figure
}

// reportFigures builds every figure of figures the report has data for,
// in that order, each opening with u's banner when the report did not
// verify.
func reportFigures(r *report.Report, u *Unverified) ([]named, error) {
	var figs []named
	for _, name := range figures {
		fig, err := builders[name](r)
		if err != nil {
			return nil, fmt.Errorf("plots: %s: %w", name, err)
		}
		if fig != nil {
			fig.banner = u.figureBanner()
			figs = append(figs, named{name, fig})
		}
	}
	return figs, nil
}

// writeFigures draws each figure into dir (created if needed) as
// NAME.FORMAT for every one of formats, each file written atomically, and
// returns the paths written, also those before an error.
func writeFigures(dir string, figs []named, opt Options) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("plots: creating %s: %w", dir, err)
	}
	var paths []string
	for _, f := range figs {
		for _, format := range formats {
			c := newCanvas(format, opt.Width, opt.Height)
			f.fig.draw(draw.New(c))
			path := filepath.Join(dir, f.name+"."+format)
			if err := atomicfile.Write(path, func(w io.Writer) error { _, err := c.WriteTo(w); return err }); err != nil {
				return paths, fmt.Errorf("plots: writing %s: %w", path, err)
			}
			paths = append(paths, path)
		}
	}
	return paths, nil
}

// newCanvas is a canvas of one of formats; PNG at DPI.
func newCanvas(format string, w, h vg.Length) vg.CanvasWriterTo {
	if format == "svg" {
		return svgCanvas{vgsvg.New(w, h)}
	}
	return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(DPI))}
}

// svgCanvas names fallbacks after the Liberation Serif of every text:
// the layout is measured with Liberation Serif, and a viewer without it
// would take its default font, wider or narrower, and text would overrun
// its place. Times New Roman has the same metrics (Liberation Serif was
// made to match it). Embedding the font (vgsvg.EmbedFonts) would add
// about 0.5 MB to every file.
type svgCanvas struct{ *vgsvg.Canvas }

func (c svgCanvas) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	if _, err := c.Canvas.WriteTo(&buf); err != nil {
		return 0, err
	}
	n, err := w.Write(bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Serif;"), []byte(`font-family:'Liberation Serif','Times New Roman',Times,serif;`)))
	return int64(n), err
}

// figure is a title over a grid of panels aligned on their data areas
// (plot.Align), with one legend right of the grid, outside every data
// area so it never covers data. A banner, in red, stands above the title:
// the report did not verify (Unverified).
type figure struct {
	banner string
	title  string
	panels [][]*plot.Plot // rows of columns
	legend *plot.Legend   // nil for none
}

func textStyle(size vg.Length) text.Style {
	return text.Style{Color: colBlack, Font: font.From(plot.DefaultFont, size), Handler: plot.DefaultTextHandler}
}

func newLegend() *plot.Legend {
	l := plot.NewLegend()
	l.TextStyle = textStyle(9)
	l.Top, l.Left = true, true
	l.ThumbnailWidth = vg.Points(18)
	l.Padding = vg.Points(2)
	return &l
}

// newPanel is a plot with the figures' font sizes.
func newPanel(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = 10
	p.Title.Padding = vg.Points(4)
	p.X.Label.Text, p.Y.Label.Text = x, y
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = 10
		a.Tick.Label.Font.Size = 9
	}
	return p
}

func (f *figure) draw(dc draw.Canvas) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	lc, pc := f.layout(dc)
	if f.legend != nil {
		f.legend.Draw(lc)
	}
	rows, cols := len(f.panels), len(f.panels[0])
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Points(8), PadY: vg.Points(6)}
	cs := plot.Align(f.panels, tiles, pc)
	for j, row := range f.panels {
		for i, p := range row {
			p.Draw(cs[j][i])
		}
	}
}

// layout draws the figure's banner and title into dc and returns the
// canvases of its legend (its font fitted to the height there,
// fitLegend) and of its panels.
func (f *figure) layout(dc draw.Canvas) (legend, panels draw.Canvas) {
	pad := vg.Points(5)
	dc = draw.Crop(dc, pad, -pad, pad, -pad)
	if f.banner != "" {
		sty := textStyle(11)
		sty.Color, sty.XAlign, sty.YAlign = colAlarm, draw.XCenter, draw.YTop
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y}, f.banner)
		dc.Max.Y -= sty.Height(f.banner) + pad
	}
	if f.title != "" {
		sty := textStyle(11)
		sty.XAlign, sty.YAlign = draw.XCenter, draw.YTop
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y}, f.title)
		dc.Max.Y -= sty.Height(f.title) + pad
	}
	if f.legend == nil {
		return dc, dc
	}
	lc := dc
	lc.Max.Y -= 2 * pad // level with the panels' titles
	fitLegend(f.legend, lc)
	r := f.legend.Rectangle(lc)
	w := r.Max.X - r.Min.X
	lc.Min.X = dc.Max.X - w - pad
	lc.Max.X = dc.Max.X - pad
	dc.Max.X -= w + 3*pad
	return lc, dc
}

// minLegendFont is the smallest font fitLegend shrinks a legend to.
const minLegendFont = vg.Length(6)

// fitLegend shrinks l's font, half a point at a time down to
// minLegendFont, until the legend fits the height of c: every entry
// takes the height of the tallest, so a legend of many entries would
// otherwise run off the figure's bottom and lose its last entries.
func fitLegend(l *plot.Legend, c draw.Canvas) {
	for {
		r := l.Rectangle(c)
		if r.Max.Y-r.Min.Y <= c.Max.Y-c.Min.Y || l.TextStyle.Font.Size <= minLegendFont {
			return
		}
		l.TextStyle.Font.Size -= 0.5
	}
}

func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// checkFinite names the first non-finite value of xs, field[i].
func checkFinite(field string, xs []float64) error {
	for i, x := range xs {
		if !finite(x) {
			return fmt.Errorf("%s[%d] is %v", field, i, x)
		}
	}
	return nil
}

func line(xys plotter.XYs, c color.Color, width vg.Length, dashes []vg.Length) *plotter.Line {
	l := &plotter.Line{XYs: xys}
	l.Color, l.Width, l.Dashes = c, width, dashes
	return l
}

func dots(xys plotter.XYs, c color.Color, shape draw.GlyphDrawer, radius vg.Length) *plotter.Scatter {
	s := &plotter.Scatter{XYs: xys}
	s.GlyphStyle = draw.GlyphStyle{Color: c, Shape: shape, Radius: radius}
	return s
}

// Interval is the paired-t interval of a comparison's mean difference
// at its level, 1 - alpha:
//
//	d̄ ∓ t(1 - alpha/2, n-1) · s/√n,  s² = Σ(dᵢ - d̄)²/(n-1)
//
// the report's own (comparison.intervals, t_lo and t_hi) where it has
// one; else, for a report of the seed schema, from its per-seed
// differences with stats.MDE, the half-width above, at its alpha
// (stats' default where it records none). An error for fewer than 2
// differences.
func Interval(c report.Comparison) (lo, hi, level float64, err error) {
	if iv := c.Intervals; iv != nil {
		return iv.TLo, iv.THi, iv.Level, nil
	}
	d := c.PerSeedDiffs
	if len(d) < 2 {
		return 0, 0, 0, fmt.Errorf("%d paired differences; an interval needs at least 2", len(d))
	}
	alpha := alphaOf(c)
	mean, half := stats.Summarize(d).Mean, stats.MDE(d, alpha)
	return mean - half, mean + half, 1 - alpha, nil
}

// offScale reports where a reference level y lies against data spanning
// [lo, hi]: "" when drawing it keeps the data readable (within one span
// of the data, at least 10% of the larger end), else "above" or "below".
// A line far from the data would stretch the axis until the data sit on
// top of each other; such a level goes into the legend only, with its
// value.
func offScale(y, lo, hi float64) string {
	span := math.Max(hi-lo, 0.1*math.Max(math.Abs(lo), math.Abs(hi)))
	switch {
	case y > hi+span:
		return "above"
	case y < lo-span:
		return "below"
	}
	return ""
}

// offNote is a legend's note for a level offScale left out: "\n(above,
// off the scale)".
func offNote(where string) string {
	if where == "" {
		return ""
	}
	return "\n(" + where + ", off the scale)"
}

// headroom raises p's y maximum by frac of the data's span, room for
// labels above the data.
func headroom(p *plot.Plot, frac float64) {
	if span := p.Y.Max - p.Y.Min; span > 0 {
		p.Y.Max += frac * span
	}
}

// paired: left, both arms' test metric per seed joined by a line; right,
// the per-seed differences with their mean and its interval (Interval).
func paired(r *report.Report) (*figure, error) {
	b, x, d := r.Baseline.Full.PerSeed, r.Idea.PerSeed, r.Comparison.PerSeedDiffs
	n := len(b)
	switch {
	case n == 0:
		return nil, errors.New("baseline.full.per_seed is empty")
	case len(x) != n:
		return nil, fmt.Errorf("idea.per_seed has %d values, baseline.full.per_seed %d", len(x), n)
	case len(d) != n:
		return nil, fmt.Errorf("comparison.per_seed_diffs has %d values, baseline.full.per_seed %d", len(d), n)
	}
	for _, f := range []struct {
		name string
		xs   []float64
	}{{"baseline.full.per_seed", b}, {"idea.per_seed", x}, {"comparison.per_seed_diffs", d}} {
		if err := checkFinite(f.name, f.xs); err != nil {
			return nil, err
		}
	}
	if !finite(r.Comparison.DeltaMean) {
		return nil, fmt.Errorf("comparison.delta_mean is %v", r.Comparison.DeltaMean)
	}
	dir, err := stats.ParseDirection(r.MetricDirection)
	if err != nil {
		return nil, fmt.Errorf("metric_direction: %w", err)
	}
	better := func(k int) bool { return (dir == stats.LowerIsBetter) == (x[k] < b[k]) && x[k] != b[k] }
	c := r.Comparison
	lo, hi, level, ierr := Interval(c)
	if ierr == nil && !finite(lo, hi) {
		return nil, fmt.Errorf("comparison.intervals: t_lo %v, t_hi %v", lo, hi)
	}
	interval := "no interval (n < 2)"
	if ierr == nil {
		interval = fmt.Sprintf("%s interval [%+.3g, %+.3g]", Level(level), lo, hi)
	}
	poi := ""
	if iv := c.Intervals; iv != nil && finite(iv.PoI, iv.PoILo, iv.PoIHi) {
		poi = fmt.Sprintf(", P(idea better) %.2f [%.2f, %.2f]", iv.PoI, iv.PoILo, iv.PoIHi)
	}
	fig := &figure{
		title: fmt.Sprintf("idea vs baseline on %d seeds: p = %.3g%s, %s\nmean difference %+.3g, %s%s",
			n, c.PValue, method(c), c.VerdictTag(), c.DeltaMean, interval, poi),
		legend: newLegend(),
	}

	left := newPanel("test metric per seed ("+r.MetricDirection+")", "arm", "test "+metricAxis(r))
	cols := []string{"baseline", "idea"}
	for _, a := range r.Ideas {
		cols = append(cols, a.Name)
	}
	left.NominalX(cols...)
	left.X.Min, left.X.Max = -0.3, float64(len(cols)-1)+0.3
	if len(cols) > 2 { // slanted, so neighbouring names do not run together
		left.X.Tick.Label.Rotation = math.Pi / 6
		left.X.Tick.Label.XAlign, left.X.Tick.Label.YAlign = draw.XRight, draw.YTop
	}
	wins := 0
	for k := range b {
		col := colGray
		if better(k) {
			col, wins = colIdea, wins+1
		}
		left.Add(line(plotter.XYs{{X: 0, Y: b[k]}, {X: 1, Y: x[k]}}, col, vg.Points(1), nil))
	}
	for arm, vs := range [][]float64{b, x} {
		xys := make(plotter.XYs, n)
		for k, v := range vs {
			xys[k] = plotter.XY{X: float64(arm), Y: v}
		}
		left.Add(dots(xys, []color.Color{colBaseline, colIdea}[arm], draw.CircleGlyph{}, vg.Points(2.5)))
	}
	// Further ideas (Protocol.Ideas): a column each, joined to the
	// baseline seed by seed, and their differences beside the idea's on
	// the right.
	extra := make([][]float64, len(r.Ideas))
	for j, a := range r.Ideas {
		xs := a.Result.PerSeed
		if len(xs) != n {
			return nil, fmt.Errorf("ideas[%d].result.per_seed has %d values, baseline.full.per_seed %d", j, len(xs), n)
		}
		if err := checkFinite(fmt.Sprintf("ideas[%d].result.per_seed", j), xs); err != nil {
			return nil, err
		}
		col := colIdeas[j%len(colIdeas)]
		xys := make(plotter.XYs, n)
		for k, v := range xs {
			xys[k] = plotter.XY{X: float64(2 + j), Y: v}
			left.Add(line(plotter.XYs{{X: 0, Y: b[k]}, xys[k]}, colSeedGray, vg.Points(0.5), nil))
			extra[j] = append(extra[j], v-b[k])
		}
		left.Add(dots(xys, col, draw.CircleGlyph{}, vg.Points(2.5)))
	}

	// The data's range, against which a reference level is drawn or only
	// named (offScale).
	dlo, dhi := math.Inf(1), math.Inf(-1)
	for _, vs := range [][]float64{b, x} {
		for _, v := range vs {
			dlo, dhi = math.Min(dlo, v), math.Max(dhi, v)
		}
	}
	for _, a := range r.Ideas {
		for _, v := range a.Result.PerSeed {
			if finite(v) {
				dlo, dhi = math.Min(dlo, v), math.Max(dhi, v)
			}
		}
	}
	var ref *plotter.Line
	refOff := ""
	if f := r.ReferenceForecasters; f != nil && f.BestReference != "" {
		if !finite(f.BestReferenceMSE) {
			return nil, fmt.Errorf("reference_forecasters.best_reference_mse is %v", f.BestReferenceMSE)
		}
		ref = line(plotter.XYs{{X: left.X.Min, Y: f.BestReferenceMSE}, {X: left.X.Max, Y: f.BestReferenceMSE}}, colBlack, vg.Points(1), dotted)
		if refOff = offScale(f.BestReferenceMSE, dlo, dhi); refOff == "" {
			left.Add(ref)
		}
	}
	// The noise floor, where the track has one: how far both arms are
	// from the best possible forecast.
	var floor *plotter.Line
	floorOff := ""
	if f := r.ReferenceForecasters; f != nil && f.NoiseFloor > 0 && finite(f.NoiseFloor) {
		floor = line(plotter.XYs{{X: left.X.Min, Y: f.NoiseFloor}, {X: left.X.Max, Y: f.NoiseFloor}}, colSeedGray, vg.Points(1), dashed)
		if floorOff = offScale(f.NoiseFloor, dlo, dhi); floorOff == "" {
			left.Add(floor)
		}
	}

	right := newPanel("idea − baseline per seed", "seed", "difference of test "+metricName(r))
	seeds := r.MechanismSignature.Protocol.Seeds
	if len(seeds) == n && n <= 16 {
		names := make([]string, n)
		for k, s := range seeds {
			names[k] = fmt.Sprint(s)
		}
		right.NominalX(names...)
	} else {
		right.X.Label.Text = "seed (index)"
	}
	right.X.Min, right.X.Max = -0.6, float64(n)-0.4
	right.Add(line(plotter.XYs{{X: right.X.Min, Y: 0}, {X: right.X.Max, Y: 0}}, colBlack, vg.Points(0.5), nil))
	var band *plotter.Polygon
	if ierr == nil {
		band = &plotter.Polygon{XYs: []plotter.XYs{{{X: right.X.Min, Y: lo}, {X: right.X.Max, Y: lo}, {X: right.X.Max, Y: hi}, {X: right.X.Min, Y: hi}}}, Color: colBand}
		right.Add(band)
	}
	// The bootstrap interval of the report, as two dotted edges.
	var boot *plotter.Line
	if iv := c.Intervals; iv != nil && finite(iv.BootLo, iv.BootHi) {
		for _, y := range []float64{iv.BootLo, iv.BootHi} {
			boot = line(plotter.XYs{{X: right.X.Min, Y: y}, {X: right.X.Max, Y: y}}, colBlack, vg.Points(0.75), dotted)
			right.Add(boot)
		}
	}
	mean := line(plotter.XYs{{X: right.X.Min, Y: c.DeltaMean}, {X: right.X.Max, Y: c.DeltaMean}}, colBlack, vg.Points(1.5), dashed)
	right.Add(mean)
	off := 0.6 / float64(1+len(extra)) // stems of one seed side by side
	for k, v := range d {
		col := colGray
		if better(k) {
			col = colIdea
		}
		x0 := float64(k) - off*float64(len(extra))/2
		right.Add(line(plotter.XYs{{X: x0, Y: 0}, {X: x0, Y: v}}, col, vg.Points(1.5), nil),
			dots(plotter.XYs{{X: x0, Y: v}}, col, draw.CircleGlyph{}, vg.Points(2.5)))
		for j, e := range extra {
			xj := x0 + off*float64(j+1)
			right.Add(line(plotter.XYs{{X: xj, Y: 0}, {X: xj, Y: e[k]}}, colIdeas[j%len(colIdeas)], vg.Points(1), nil),
				dots(plotter.XYs{{X: xj, Y: e[k]}}, colIdeas[j%len(colIdeas)], draw.CircleGlyph{}, vg.Points(2)))
		}
	}
	// Margins above and below, so the interval's edges show even where it
	// spans every difference.
	if span := right.Y.Max - right.Y.Min; span > 0 {
		right.Y.Min, right.Y.Max = right.Y.Min-0.08*span, right.Y.Max+0.08*span
	}
	fig.panels = [][]*plot.Plot{{left, right}}

	fig.legend.Add("baseline", dots(nil, colBaseline, draw.CircleGlyph{}, vg.Points(2.5)))
	fig.legend.Add("idea", dots(nil, colIdea, draw.CircleGlyph{}, vg.Points(2.5)))
	fig.legend.Add(fmt.Sprintf("idea better: %d of %d", wins, n), line(nil, colIdea, vg.Points(1.5), nil))
	fig.legend.Add("idea not better", line(nil, colGray, vg.Points(1.5), nil))
	for j, a := range r.Ideas {
		label := a.Name
		if q := a.Comparison.PValueHolm; q != nil {
			label += fmt.Sprintf(" (Holm p %.3g)", *q)
		}
		fig.legend.Add(label, dots(nil, colIdeas[j%len(colIdeas)], draw.CircleGlyph{}, vg.Points(2.5)))
	}
	if ref != nil {
		f := r.ReferenceForecasters
		fig.legend.Add(fmt.Sprintf("best reference: %s %.4g%s", f.BestReference, f.BestReferenceMSE, offNote(refOff)), ref)
	}
	if floor != nil {
		fig.legend.Add(fmt.Sprintf("noise floor %.4g%s", r.ReferenceForecasters.NoiseFloor, offNote(floorOff)), floor)
	}
	fig.legend.Add("mean difference", mean)
	if band != nil {
		fig.legend.Add(Level(level)+" interval (t)", band)
	}
	if boot != nil {
		fig.legend.Add(Level(c.Intervals.Level)+" bootstrap", boot)
	}
	return fig, nil
}

// method names the test that decided and its p-value method for the
// title, " (selection-aware test, exact)"; "" for a report without them.
func method(c report.Comparison) string {
	var parts []string
	if c.Test != "" {
		parts = append(parts, c.Test+" test")
	}
	if c.PValueMethod != "" {
		parts = append(parts, c.PValueMethod)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// sweepRow is one cfg of an arm's sweep as drawn.
type sweepRow struct {
	cfg       protocol.Cfg
	mean, std float64
	chosen    bool
}

// sweep: each arm's learning rate against the validation metric, one
// panel per arm on a shared y range.
func sweep(r *report.Report) (*figure, error) {
	// A report without validation summaries (the seed report's schema)
	// draws the test means it selected on.
	useVal := false
	for _, s := range r.Baseline.Sweep {
		useVal = useVal || s.Val != nil
	}
	for _, s := range r.MechanismSignature.IdeaSweep {
		useVal = useVal || s.Val != nil
	}
	var arms [2][]sweepRow
	spread := useVal // the baseline rows have a std to draw
	for i, s := range r.Baseline.Sweep {
		spread = spread || len(s.PerSeed) > 0
		row := sweepRow{cfg: s.Cfg, mean: s.Mean, std: stats.Summarize(s.PerSeed).Std, chosen: s.Cfg == r.Baseline.BestCfg}
		if useVal {
			if s.Val == nil {
				return nil, fmt.Errorf("baseline.sweep[%d].val is missing", i)
			}
			row.mean, row.std = s.Val.Mean, s.Val.Std
		}
		if err := checkRow(fmt.Sprintf("baseline.sweep[%d]", i), row); err != nil {
			return nil, err
		}
		arms[0] = append(arms[0], row)
	}
	for i, s := range r.MechanismSignature.IdeaSweep {
		row := sweepRow{cfg: s.Cfg, mean: s.Result.Mean, std: s.Result.Std, chosen: s.Cfg == r.MechanismSignature.ObservedBestCfg}
		if useVal {
			if s.Val == nil {
				return nil, fmt.Errorf("mechanism_signature.idea_sweep[%d].val is missing", i)
			}
			row.mean, row.std = s.Val.Mean, s.Val.Std
		}
		if err := checkRow(fmt.Sprintf("mechanism_signature.idea_sweep[%d]", i), row); err != nil {
			return nil, err
		}
		arms[1] = append(arms[1], row)
	}
	switch {
	case len(arms[0]) == 0:
		return nil, errors.New("baseline.sweep is empty")
	case len(arms[1]) == 0:
		return nil, errors.New("mechanism_signature.idea_sweep is empty")
	}

	split, yLabel := "validation metric", "validation "+metricAxis(r)
	if !useVal {
		split, yLabel = "test metric (no validation in the report)", "test "+metricAxis(r)
	}
	fig := &figure{
		title:  fmt.Sprintf("learning-rate sweep: %s, mean ± std over %d seeds", split, r.NSeeds),
		legend: newLegend(),
	}
	lrs := map[float64]bool{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, rows := range arms {
		for _, rw := range rows {
			lrs[rw.cfg.LR] = true
			lo, hi = min(lo, rw.cfg.LR), max(hi, rw.cfg.LR)
		}
	}
	var ticks plot.Ticker = plot.LogTicks{Prec: -1}
	if len(lrs) <= 6 {
		var ts plot.ConstantTicks
		for _, rows := range arms {
			for _, rw := range rows {
				if lrs[rw.cfg.LR] {
					ts = append(ts, plot.Tick{Value: rw.cfg.LR, Label: fmt.Sprintf("%g", rw.cfg.LR)})
					delete(lrs, rw.cfg.LR)
				}
			}
		}
		ticks = ts
	}
	ring := dots(nil, colBlack, draw.RingGlyph{}, vg.Points(6))
	// The best reference forecaster's metric on the split drawn, a
	// dotted line across both panels.
	var ref *plotter.Line
	refY, refName, refSplit := 0.0, "", "test"
	if f := r.ReferenceForecasters; f != nil && f.BestReference != "" {
		y, ok := f.BestReferenceMSE, true
		if useVal {
			y, ok = f.ValMSE(f.BestReference)
			refSplit = "val"
		}
		if ok && finite(y) {
			refY, refName = y, f.BestReference
			ref = line(plotter.XYs{{X: lo / 1.6, Y: y}, {X: hi * 1.6, Y: y}}, colBlack, vg.Points(1), dotted)
		}
	}
	// The sweep's range (mean ± std of every cfg): a reference far from
	// it is named in the legend only (offScale).
	refOff := ""
	if ref != nil {
		dlo, dhi := math.Inf(1), math.Inf(-1)
		for _, rows := range arms {
			for _, rw := range rows {
				dlo, dhi = math.Min(dlo, rw.mean-rw.std), math.Max(dhi, rw.mean+rw.std)
			}
		}
		refOff = offScale(refY, dlo, dhi)
	}
	var panels []*plot.Plot
	for a, rows := range arms {
		var cfgs []protocol.Cfg
		for _, rw := range rows {
			cfgs = append(cfgs, rw.cfg)
		}
		label, fixed := cfgLabels(cfgs)
		name := []string{"baseline", "idea"}[a]
		if a == 1 && fixed != "" {
			name += ": " + fixed
		}
		if a == 0 && !spread {
			name = "baseline (no per-seed values: no std)"
		}
		col := []color.Color{colBaseline, colIdea}[a]
		p := newPanel(name, "learning rate (log scale)", yLabel)
		if a == 1 {
			p.Y.Label.Text = ""
		}
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = ticks
		p.X.Min, p.X.Max = lo/1.6, hi*1.6
		// Cfgs that differ in more than lr form groups, each drawn a
		// little to the side (a factor dodge^(g - (G-1)/2) in lr), so that
		// points at one lr do not hide each other.
		group, groups := lrGroups(cfgs)
		x := func(k int) float64 {
			return rows[k].cfg.LR * math.Pow(dodge, float64(group[k])-float64(groups-1)/2)
		}
		var pts struct {
			plotter.XYs
			plotter.YErrors
		}
		var chosen plotter.XYs
		for k, rw := range rows {
			pts.XYs = append(pts.XYs, plotter.XY{X: x(k), Y: rw.mean})
			pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{rw.std, rw.std})
			if rw.chosen {
				chosen = append(chosen, plotter.XY{X: x(k), Y: rw.mean})
			}
		}
		// Join cfgs that differ in lr only: a line across other changes
		// (ρ, β, epochs) would read as a trend in lr.
		for g := range groups {
			var xys plotter.XYs
			for k, rw := range rows {
				if group[k] == g {
					xys = append(xys, plotter.XY{X: x(k), Y: rw.mean})
				}
			}
			if len(xys) > 1 {
				sortXY(xys)
				p.Add(line(xys, col, vg.Points(1), nil))
			}
		}
		eb, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, err
		}
		eb.Color, eb.Width = col, vg.Points(1)
		p.Add(eb, dots(pts.XYs, col, draw.CircleGlyph{}, vg.Points(2.5)))
		if len(chosen) > 0 {
			p.Add(dots(chosen, colBlack, draw.RingGlyph{}, vg.Points(6)))
		}
		if label != nil {
			// Above each error bar: the fields that vary besides lr, one
			// per line, narrow enough for neighbouring lrs.
			lb := &plotter.Labels{}
			for k, rw := range rows {
				lb.XYs = append(lb.XYs, plotter.XY{X: x(k), Y: rw.mean + rw.std})
				lb.Labels = append(lb.Labels, label(rw.cfg))
				sty := textStyle(8)
				sty.Color, sty.XAlign, sty.YAlign = col, draw.XCenter, draw.YBottom
				lb.TextStyle = append(lb.TextStyle, sty)
			}
			lb.Offset = vg.Point{Y: vg.Points(2)}
			p.Add(lb)
		}
		fig.legend.Add([]string{"baseline", "idea"}[a], dots(nil, col, draw.CircleGlyph{}, vg.Points(2.5)))
		if ref != nil && refOff == "" {
			p.Add(ref)
		}
		panels = append(panels, p)
	}
	fig.legend.Add("chosen cfg", ring)
	if ref != nil {
		fig.legend.Add(fmt.Sprintf("best reference, %s:\n%s %.4g%s", refSplit, refName, refY, offNote(refOff)), ref)
	}
	// One y range for both panels, with room above for the labels.
	ymin, ymax := math.Inf(1), math.Inf(-1)
	for _, p := range panels {
		ymin, ymax = min(ymin, p.Y.Min), max(ymax, p.Y.Max)
	}
	for _, p := range panels {
		p.Y.Min, p.Y.Max = ymin, ymax
		headroom(p, 0.25)
	}
	fig.panels = [][]*plot.Plot{panels}
	return fig, nil
}

// dodge is the factor in lr between neighbouring groups of a sweep panel.
const dodge = 1.08

// lrGroups numbers the cfgs by what they are besides lr, in order of
// first appearance: cfgs of one group differ in lr only.
func lrGroups(cs []protocol.Cfg) (group []int, n int) {
	key := map[protocol.Cfg]int{}
	for _, c := range cs {
		c.LR = 0
		g, ok := key[c]
		if !ok {
			g = len(key)
			key[c] = g
		}
		group = append(group, g)
	}
	return group, len(key)
}

// cfgLabels returns a label of a cfg by the fields that vary over cs
// besides lr (nil when none does), and a description of the idea they
// share when they share one ("gate ρ 0.8, β 0.5"; "" for none).
func cfgLabels(cs []protocol.Cfg) (label func(protocol.Cfg) string, fixed string) {
	short := map[string]string{"rho": "ρ", "beta": "β", "weight_decay": "wd"}
	var vary []protocol.CfgField
	for _, f := range protocol.FieldsOf(cs) {
		if f.Key != "lr" && f.Varies(cs) {
			vary = append(vary, f)
		}
	}
	ideaVaries, schedVaries := false, false
	for _, c := range cs {
		ideaVaries = ideaVaries || c.Idea != cs[0].Idea
		schedVaries = schedVaries || c.Schedule != cs[0].Schedule
	}
	if len(cs) > 0 && !ideaVaries {
		fixed = describeIdea(cs[0])
	}
	if len(vary) == 0 && !ideaVaries && !schedVaries {
		return nil, fixed
	}
	return func(c protocol.Cfg) string {
		var parts []string
		if ideaVaries {
			parts = append(parts, cmp.Or(c.IdeaConfig().Name, "none"))
		}
		for _, f := range vary {
			k := strings.TrimPrefix(f.Key, "params.")
			parts = append(parts, fmt.Sprintf("%s %g", cmp.Or(short[k], k), f.Value(c)))
		}
		if schedVaries {
			parts = append(parts, cmp.Or(c.Schedule, protocol.ScheduleConstant))
		}
		return strings.Join(parts, "\n")
	}, fixed
}

// describeIdea is a cfg's idea in a few words: "gate ρ 0.8, β 0.5",
// "ema lambda 0.8"; "" for none.
func describeIdea(c protocol.Cfg) string {
	ic := c.IdeaConfig()
	if ic.IsZero() {
		return ""
	}
	if ic.Name == "gate" {
		return fmt.Sprintf("gate ρ %g, β %g", c.Rho, c.Beta)
	}
	var parts []string
	m := ic.Params.Map()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %g", k, m[k]))
	}
	return strings.TrimSpace(ic.Name + " " + strings.Join(parts, ", "))
}

// budget draws the tuning-budget curves: per arm, the expected best
// validation metric (left) and the expected test metric of the pick
// (right) against the number of cfgs tried.
func budget(r *report.Report) (*figure, error) {
	tb := r.TuningBudget
	if tb == nil {
		return nil, nil // an older report
	}
	type arm struct {
		name  string
		curve []stats.BudgetPoint
		col   color.Color
		dash  []vg.Length
	}
	arms := []arm{{"baseline", tb.Baseline, colBaseline, nil}, {"idea", tb.Idea, colIdea, dashed}}
	for j, a := range tb.Ideas {
		arms = append(arms, arm{a.Name, a.Curve, colIdeas[j%len(colIdeas)], dotted})
	}
	left := newPanel("expected best validation metric", "cfgs tried (k)", metricAxis(r))
	right := newPanel("expected test metric of the pick", "cfgs tried (k)", "")
	kmax := 1
	fig := &figure{legend: newLegend()}
	for i, a := range arms {
		if len(a.curve) == 0 {
			return nil, fmt.Errorf("tuning_budget: arm %s has no curve", a.name)
		}
		var val, test plotter.XYs
		for _, pt := range a.curve {
			if !finite(pt.Val, pt.Test) {
				return nil, fmt.Errorf("tuning_budget: arm %s at k = %d: val %v, test %v", a.name, pt.K, pt.Val, pt.Test)
			}
			val = append(val, plotter.XY{X: float64(pt.K), Y: pt.Val})
			test = append(test, plotter.XY{X: float64(pt.K), Y: pt.Test})
		}
		kmax = max(kmax, len(a.curve))
		l := line(val, a.col, vg.Points(1.5), a.dash)
		left.Add(l, dots(val, a.col, draw.CircleGlyph{}, vg.Points(2.5)))
		right.Add(line(test, a.col, vg.Points(1.5), a.dash), dots(test, a.col, draw.CircleGlyph{}, vg.Points(2.5)))
		fig.legend.Add(arms[i].name, l)
	}
	var ts plot.ConstantTicks
	for k := 1; k <= kmax; k++ {
		ts = append(ts, plot.Tick{Value: float64(k), Label: fmt.Sprint(k)})
	}
	for _, p := range []*plot.Plot{left, right} {
		p.X.Min, p.X.Max = 0.7, float64(kmax)+0.3
		p.X.Tick.Marker = ts
		headroom(p, 0.1)
	}
	verdict := "the same arm leads at every k"
	if tb.WinnerChanges {
		verdict = "WHICH ARM LEADS DEPENDS ON k: the win may be the grid's, not the idea's"
	}
	fig.title = fmt.Sprintf("tuning budget (Dodge et al. 2019): k cfgs drawn from each grid\n%s", verdict)
	fig.panels = [][]*plot.Plot{{left, right}}
	return fig, nil
}

// sensitivityFigure: each tuned idea arm's effect at every setting its
// tuner drew (comparison.sensitivity), one panel a parameter of its
// space: the setting's value across, the improvement over the baseline's
// cfg at the same rate as a percent of the baseline's mean up (positive:
// the idea better), with its interval; the chosen setting ringed. nil
// for a report without a tuned arm.
func sensitivityFigure(r *report.Report) (*figure, error) {
	type arm struct {
		name, key string
		c         report.Comparison
	}
	arms := []arm{{"idea", "idea", r.Comparison}}
	if p := r.Setup; p != nil && len(p.Protocol.Idea) > 0 {
		arms[0].name = "idea " + p.Protocol.Idea[0].IdeaConfig().Name
	}
	for k, a := range r.Ideas {
		arms = append(arms, arm{a.Name, protocol.IdeasArm(k), a.Comparison})
	}
	if r.Setup == nil || r.Setup.Protocol.Tune == nil || r.Baseline.Full.Mean == 0 {
		return nil, nil
	}
	sign := -1.0
	if r.MetricDirection == stats.HigherIsBetter.String() {
		sign = 1
	}
	pct := func(d float64) float64 { return sign * 100 * d / math.Abs(r.Baseline.Full.Mean) }
	var panels []*plot.Plot
	for i, a := range arms {
		sn := a.c.Sensitivity
		if sn == nil {
			continue
		}
		space := r.Setup.Protocol.Tune.Spaces[a.key]
		var col color.Color = colIdea
		if i > 0 {
			col = colIdeas[(i-1)%len(colIdeas)]
		}
		for _, name := range slices.Sorted(maps.Keys(space)) {
			if len(panels) == 4 {
				break // a figure of four panels at most
			}
			var pts struct {
				plotter.XYs
				plotter.YErrors
			}
			var chosen plotter.XYs
			for j, e := range sn.Settings {
				v, _ := e.Cfg.IdeaConfig().WithDefaults().Params.Get(name)
				y, lo, hi := pct(e.DeltaMean), pct(e.Lo), pct(e.Hi)
				if lo > hi {
					lo, hi = hi, lo
				}
				if !finite(v, y, lo, hi) {
					return nil, fmt.Errorf("comparison.sensitivity.settings[%d]: %s %v, effect %v [%v, %v]", j, name, v, y, lo, hi)
				}
				pts.XYs = append(pts.XYs, plotter.XY{X: v, Y: y})
				pts.YErrors = append(pts.YErrors, struct{ Low, High float64 }{y - lo, hi - y})
				if e.Chosen {
					chosen = append(chosen, plotter.XY{X: v, Y: y})
				}
			}
			p := newPanel(a.name, name+" (drawn by the tuner)", "idea better by (% of the baseline's mean)")
			eb, err := plotter.NewYErrorBars(pts)
			if err != nil {
				return nil, err
			}
			eb.Color, eb.Width = col, vg.Points(1)
			zero := line(plotter.XYs{{X: minX(pts.XYs), Y: 0}, {X: maxX(pts.XYs), Y: 0}}, colGray, vg.Points(1), dashed)
			p.Add(zero, eb, dots(pts.XYs, col, draw.CircleGlyph{}, vg.Points(2.5)))
			if len(chosen) > 0 {
				p.Add(dots(chosen, colBlack, draw.RingGlyph{}, vg.Points(6)))
			}
			if space[name].Scale == idea.ScaleLog && minX(pts.XYs) > 0 {
				p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
			}
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return nil, nil
	}
	return &figure{
		title:  "the idea's effect at each setting drawn (each cfg against the baseline's at its rate,\nseed by seed, unadjusted intervals; ringed: the setting chosen on validation)",
		panels: [][]*plot.Plot{panels},
	}, nil
}

// solvesFigure draws, on a token track where some arm's seeds end in two
// clusters (accuracy.solves), every arm's test accuracy seed by seed
// beside the solve target, so that a mean difference that is one of
// solve rates is seen as one: nil where no arm is bimodal.
func solvesFigure(r *report.Report) (*figure, error) {
	a := r.Accuracy
	if a == nil || a.Solves == nil {
		return nil, nil
	}
	s := a.Solves
	bimodal := s.Baseline.Bimodal
	for _, x := range a.Arms {
		bimodal = bimodal || x.Solves != nil && x.Solves.Bimodal
	}
	if !bimodal {
		return nil, nil
	}
	if !finite(s.Target, s.Floor, s.Ceiling) {
		return nil, fmt.Errorf("accuracy.solves: target %v, floor %v, ceiling %v", s.Target, s.Floor, s.Ceiling)
	}
	cols := []string{"baseline"}
	per := [][]float64{a.Baseline.PerSeed}
	counts := []string{fmt.Sprintf("baseline %d/%d", s.Baseline.Solved, s.Baseline.N)}
	for _, x := range a.Arms {
		cols, per = append(cols, x.Name), append(per, x.Result.PerSeed)
		if x.Solves != nil {
			counts = append(counts, fmt.Sprintf("%s %d/%d (McNemar p %.2g)", x.Name, x.Solves.Solved, x.Solves.N, x.Solves.PValue))
		}
	}
	p := newPanel("", "arm", "test accuracy per seed")
	p.NominalX(cols...)
	p.X.Min, p.X.Max = -0.5, float64(len(cols))-0.5
	if len(cols) > 2 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YTop
	}
	p.Y.Min, p.Y.Max = math.Min(s.Floor, 0), s.Ceiling
	p.Add(line(plotter.XYs{{X: p.X.Min, Y: s.Target}, {X: p.X.Max, Y: s.Target}}, colBlack, vg.Points(1), dashed))
	p.Add(line(plotter.XYs{{X: p.X.Min, Y: s.Floor}, {X: p.X.Max, Y: s.Floor}}, colGray, vg.Points(1), dashed))
	for j, vs := range per {
		if err := checkFinite(fmt.Sprintf("accuracy per_seed of %s", cols[j]), vs); err != nil {
			return nil, err
		}
		var col color.Color = colBaseline
		if j > 0 {
			col = colIdea
			if j > 1 {
				col = colIdeas[(j-2)%len(colIdeas)]
			}
		}
		xys := make(plotter.XYs, len(vs))
		for k, v := range vs {
			// Seeds side by side within the arm's column, so that equal
			// accuracies do not hide each other.
			off := 0.0
			if len(vs) > 1 {
				off = 0.5 * (float64(k)/float64(len(vs)-1) - 0.5)
			}
			xys[k] = plotter.XY{X: float64(j) + off, Y: v}
		}
		p.Add(dots(xys, col, draw.CircleGlyph{}, vg.Points(2.5)))
	}
	return &figure{
		title: fmt.Sprintf("seeds solved (test accuracy >= %.3g, dashed; the best reference's %.3g, gray):\n%s",
			s.Target, s.Floor, strings.Join(counts, ", ")),
		panels: [][]*plot.Plot{{p}},
	}, nil
}

// minX and maxX are the smallest and largest x of xys.
func minX(xys plotter.XYs) float64 {
	m := math.Inf(1)
	for _, p := range xys {
		m = min(m, p.X)
	}
	return m
}

func maxX(xys plotter.XYs) float64 {
	m := math.Inf(-1)
	for _, p := range xys {
		m = max(m, p.X)
	}
	return m
}

func checkRow(field string, rw sweepRow) error {
	switch {
	case !(rw.cfg.LR > 0) || !finite(rw.cfg.LR):
		return fmt.Errorf("%s.cfg.lr is %v; the log axis needs a positive lr", field, rw.cfg.LR)
	case !finite(rw.mean, rw.std):
		return fmt.Errorf("%s: mean %v, std %v; need finite", field, rw.mean, rw.std)
	}
	return nil
}

// sortXY sorts by x (insertion sort: a handful of points).
func sortXY(xys plotter.XYs) {
	for i := 1; i < len(xys); i++ {
		for j := i; j > 0 && xys[j].X < xys[j-1].X; j-- {
			xys[j], xys[j-1] = xys[j-1], xys[j]
		}
	}
}

// noLabels keeps a ticker's marks and drops its labels, for a panel that
// shares the x axis of the panel below.
type noLabels struct{ plot.Ticker }

func (t noLabels) Ticks(lo, hi float64) []plot.Tick {
	ts := t.Ticker.Ticks(lo, hi)
	for i := range ts {
		ts[i].Label = ""
	}
	return ts
}

// gate: the gain (top) and state (bottom) by position of every block of
// the mechanism-signature model, with each block's predicted steady gain.
func gate(r *report.Report) (*figure, error) {
	s := r.MechanismSignature.MechanismSignature
	if len(s.Layers) == 0 {
		return nil, nil // an older report: no per-position signature
	}
	const field = "mechanism_signature.mechanism_signature.layers"
	t := len(s.Layers[0].GainByPosition)
	for l, ls := range s.Layers {
		if len(ls.GainByPosition) != t || len(ls.StateByPosition) != t {
			return nil, fmt.Errorf("%s[%d] has %d gains and %d states by position, %s[0] %d", field, l, len(ls.GainByPosition), len(ls.StateByPosition), field, t)
		}
		for _, f := range []struct {
			name string
			xs   []float64
		}{{"gain_by_position", ls.GainByPosition}, {"state_by_position", ls.StateByPosition}} {
			if err := checkFinite(fmt.Sprintf("%s[%d].%s", field, l, f.name), f.xs); err != nil {
				return nil, err
			}
		}
		if !finite(ls.PredictedSteadyGain) {
			return nil, fmt.Errorf("%s[%d].predicted_steady_gain is %v", field, l, ls.PredictedSteadyGain)
		}
	}
	if t == 0 {
		return nil, nil // layers from before per-position signatures
	}
	fig := &figure{
		title:  fmt.Sprintf("gate of the idea's chosen cfg (ρ %g, β %g), seed %d: mean over test windows", s.Rho, s.Beta, s.TrainedModelSeed),
		legend: newLegend(),
	}
	gain := newPanel("gain by position (dotted: predicted steady gain)", "", "gain g (1 = open)")
	xLabel := "token t in the window"
	if r.Setup != nil {
		if pl := r.Setup.Protocol.Arch.Patch; pl > 1 {
			xLabel = fmt.Sprintf("token t in the window (a token is %d positions)", pl)
		}
	}
	state := newPanel("", xLabel, "state s (attention energy)")
	for _, p := range []*plot.Plot{gain, state} {
		p.X.Min, p.X.Max = 0, max(1, float64(t-1))
	}
	gain.X.Tick.Marker = noLabels{plot.DefaultTicks{}}
	for l, ls := range s.Layers {
		col := colBlocks[l%len(colBlocks)]
		xy := func(ys []float64) plotter.XYs {
			xys := make(plotter.XYs, len(ys))
			for k, y := range ys {
				xys[k] = plotter.XY{X: float64(k), Y: y}
			}
			return xys
		}
		g := line(xy(ls.GainByPosition), col, vg.Points(1.5), nil)
		ref := line(plotter.XYs{{X: gain.X.Min, Y: ls.PredictedSteadyGain}, {X: gain.X.Max, Y: ls.PredictedSteadyGain}}, col, vg.Points(1), dotted)
		gain.Add(ref, g)
		state.Add(line(xy(ls.StateByPosition), col, vg.Points(1.5), nil))
		fig.legend.Add(fmt.Sprintf("block %d", ls.Layer), g)
		fig.legend.Add(fmt.Sprintf("  steady %.5g", ls.PredictedSteadyGain), ref)
	}
	fig.panels = [][]*plot.Plot{{gain}, {state}}
	return fig, nil
}

// loss: each arm's chosen cfg, per epoch: the training loss (left) and the
// val metric (right, from epoch 0, the model before training), each seed
// thin and the mean over seeds thick; on the right a ring marks the epoch
// whose weights each seed kept (the best val epoch under early stopping,
// the start included, else the last). Reports from before per-epoch
// validation draw the left panel only.
func loss(r *report.Report) (*figure, error) {
	tr := r.Training
	if tr == nil {
		return nil, nil // an older report: no loss curves
	}
	fig := &figure{legend: newLegend()}
	left := newPanel("training loss", "epoch", lossName(r)+" of the trained tokens (normalized)")
	right := newPanel("validation", "epoch", "val "+metricName(r)+", last token (normalized)")
	arms := []report.ArmCurves{tr.Baseline, tr.Idea}
	names := []string{"baseline", "idea"}
	hasVal := tr.Baseline.ValCurves != nil && tr.Idea.ValCurves != nil
	epochs, seeds := 0, 0
	var means [2][]plot.Plotter // left, right
	withStart := hasVal && tr.Baseline.StartVals != nil && tr.Idea.StartVals != nil
	for a, ac := range arms {
		m, err := curvePanel(left, fmt.Sprintf("training.%s.epoch_losses", names[a]), ac.EpochLosses, nil, a)
		if err != nil {
			return nil, err
		}
		means[0] = append(means[0], m)
		epochs, seeds = max(epochs, len(m.XYs)), max(seeds, len(ac.EpochLosses))
		if !hasVal {
			continue
		}
		var start []float64
		if withStart {
			start = ac.StartVals
		}
		m, err = curvePanel(right, fmt.Sprintf("training.%s.val_curves", names[a]), ac.ValCurves, start, a)
		if err != nil {
			return nil, err
		}
		means[1] = append(means[1], m)
		epochs = max(epochs, int(m.XYs[len(m.XYs)-1].X)) // the last epoch drawn (the start is epoch 0)
		var kept plotter.XYs
		for k, e := range ac.BestEpochs {
			switch {
			case e == 0 && k < len(start):
				kept = append(kept, plotter.XY{X: 0, Y: start[k]})
			case k < len(ac.ValCurves) && e >= 1 && e <= len(ac.ValCurves[k]):
				kept = append(kept, plotter.XY{X: float64(e), Y: ac.ValCurves[k][e-1]})
			}
		}
		if len(kept) > 0 {
			right.Add(dots(kept, []color.Color{colBaseline, colIdea}[a], draw.RingGlyph{}, vg.Points(3)))
		}
	}
	// The means last, over the thin lines; the idea's dashed so the
	// baseline's shows beneath it. An epoch's mean is over the seeds that
	// reached it (a diverged or early-stopped seed's curve ends early).
	left.Add(means[0]...)
	right.Add(means[1]...)
	for a := range arms {
		fig.legend.Add(names[a]+" mean", line(nil, []color.Color{colBaseline, colIdea}[a], vg.Points(2.5), [][]vg.Length{nil, dashed}[a]))
	}
	fig.legend.Add("baseline, a seed", line(nil, colSeed[0], vg.Points(1), nil))
	fig.legend.Add("idea, a seed", line(nil, colSeed[1], vg.Points(1), dotted))
	if hasVal {
		fig.legend.Add("epoch kept", dots(nil, colBlack, draw.RingGlyph{}, vg.Points(3)))
	}
	b, x := tr.Baseline.Cfg, tr.Idea.Cfg
	fig.title = fmt.Sprintf("training of each arm's chosen cfg, %d seeds: baseline lr %g; idea lr %g, %s", seeds, b.LR, x.LR, cmp.Or(describeIdea(x), "no idea"))
	panels := []*plot.Plot{left}
	if hasVal {
		panels = append(panels, right)
	}
	for i, p := range panels {
		first := 1
		if i == 1 && withStart {
			first = 0 // epoch 0: the model before training
		}
		p.X.Min, p.X.Max = float64(first), max(2, float64(epochs))
		if epochs <= 12 {
			var ts plot.ConstantTicks
			for e := first; e <= epochs; e++ {
				ts = append(ts, plot.Tick{Value: float64(e), Label: fmt.Sprint(e)})
			}
			p.X.Tick.Marker = ts
		}
	}
	fig.panels = [][]*plot.Plot{panels}
	return fig, nil
}

// curvePanel draws per-seed curves of arm a (thin) into p and returns
// their mean over the seeds that reached each epoch (thick), for the
// caller to draw over every arm's thin lines. start, when not nil, holds
// each seed's value before training, drawn at epoch 0.
func curvePanel(p *plot.Plot, field string, curves [][]float64, start []float64, a int) (*plotter.Line, error) {
	var sum []float64
	var cnt []int
	first := 1
	if start != nil {
		if err := checkFinite(field, start); err != nil {
			return nil, err
		}
		first = 0
	}
	for k, curve := range curves {
		if err := checkFinite(fmt.Sprintf("%s[%d]", field, k), curve); err != nil {
			return nil, err
		}
		if start != nil && k < len(start) {
			curve = append([]float64{start[k]}, curve...)
		}
		if len(curve) == 0 {
			continue // a seed that diverged in its first epoch
		}
		xys := make(plotter.XYs, len(curve))
		for e, v := range curve {
			xys[e] = plotter.XY{X: float64(e + first), Y: v}
			if e == len(sum) {
				sum, cnt = append(sum, 0), append(cnt, 0)
			}
			sum[e] += v
			cnt[e]++
		}
		p.Add(line(xys, colSeed[a], vg.Points(0.75), [][]vg.Length{nil, dotted}[a]))
	}
	if len(sum) == 0 {
		return nil, fmt.Errorf("%s has no epoch", field)
	}
	mean := make(plotter.XYs, len(sum))
	for e := range sum {
		mean[e] = plotter.XY{X: float64(e + first), Y: sum[e] / float64(cnt[e])}
	}
	return line(mean, []color.Color{colBaseline, colIdea}[a], vg.Points(2.5), [][]vg.Length{nil, dashed}[a]), nil
}

// metricName is the name of the report's test metric in labels: its
// track kind's (track.Kind.Metric), "MSE" for a track no kind is
// registered under.
func metricName(r *report.Report) string {
	if k, ok := track.LookupKind(r.Track); ok {
		return k.Metric()
	}
	return "MSE"
}

// metricScope says what the report's metric is taken over
// (track.Kind.MetricScope); the last position's on an unknown track.
func metricScope(r *report.Report) string {
	if k, ok := track.LookupKind(r.Track); ok {
		return k.MetricScope()
	}
	return "of the last position"
}

// metricAxis is the metric's name with its unit, for an axis: a
// forecasting track's MSE is on the normalized scale, a token track's
// cross-entropy in nats per labelled position.
func metricAxis(r *report.Report) string {
	if f := r.ReferenceForecasters; f != nil && f.Tokens != nil {
		return metricName(r) + " (nats per labelled position)"
	}
	return metricName(r) + " (normalized scale)"
}

// lossName is the name of the training loss of the report's track kind
// (track.Kind.Loss), "MSE" for a track no kind is registered under.
func lossName(r *report.Report) string {
	if k, ok := track.LookupKind(r.Track); ok {
		return k.Loss()
	}
	return "MSE"
}
