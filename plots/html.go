package plots

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"

	"gonum.org/v1/plot/vg/draw"

	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/suitereport"
)

// WriteHTML writes one self-contained HTML page of the report to path:
// the verdict and what to trust it by first (competence against the
// reference forecasters, whether the track can judge an idea, power, the
// warnings), then the sweeps, the reference forecasters and every figure
// of Write inline as SVG. It loads nothing from a network and runs no
// script; it prints as it shows. The same report gives the same bytes.
// A report that did not verify (opt.Unverified) gets a banner that says
// so above everything else, and so does every figure.
func WriteHTML(r *report.Report, path string, opt Options) error {
	if r == nil {
		return errors.New("plots: no report")
	}
	figs, err := reportFigures(r, opt.Unverified)
	if err != nil {
		return err
	}
	inline, err := inlineFigures(figs)
	if err != nil {
		return err
	}
	page, err := htmlPage(r, inline, opt.Unverified)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(page); return err }); err != nil {
		return fmt.Errorf("plots: writing %s: %w", path, err)
	}
	return nil
}

// inlineFigures draws each figure as SVG at the default size, for a page:
// the XML declaration dropped, the SVG sits inside HTML.
func inlineFigures(figs []named) ([]htmlFigure, error) {
	var out []htmlFigure
	for _, f := range figs {
		c := newCanvas("svg", DefaultWidth, DefaultHeight)
		f.fig.draw(draw.New(c))
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("plots: %s: %w", f.name, err)
		}
		svg := buf.String()
		if i := strings.Index(svg, "<svg"); i > 0 {
			svg = svg[i:]
		}
		out = append(out, htmlFigure{Name: f.name, SVG: template.HTML(svg)})
	}
	return out, nil
}

// htmlFigure is one figure of the page, its SVG inline.
type htmlFigure struct {
	Name string
	SVG  template.HTML
}

// htmlRow is a row of one of the page's tables.
type htmlRow struct{ Cells []string }

// htmlPage renders the page.
func htmlPage(r *report.Report, figs []htmlFigure, u *Unverified) ([]byte, error) {
	c := r.Comparison
	data := struct {
		Unverified               string
		Title, Verdict, Headline string
		Trust                    []string
		Warnings                 []string
		Sweep, References        []htmlRow
		Figures                  []htmlFigure
	}{
		Title:   fmt.Sprintf("ideabench: %s on the %s track", ideaName(r), r.Track),
		Verdict: c.VerdictLine(),
		Headline: fmt.Sprintf("p = %.3g (%s test, %s, alpha %g); idea - baseline %+.4g on test over %d seeds, the idea better on %d; minimum detectable effect %.3g (%.1f%%)",
			c.PValue, c.Test, c.PValueMethod, c.Alpha, c.DeltaMean, c.NPairs, c.IdeaWins, c.MDE, c.MDERelPct),
		Warnings: c.Warnings,
		Figures:  figs,
	}
	if u != nil {
		data.Unverified = u.Banner()
	}
	if f := r.ReferenceForecasters; f != nil {
		name, mse := f.Best()
		verdict := "competent: the baseline beats"
		if !f.BaselineCompetent {
			verdict = "NOT competent: the baseline does not beat"
		}
		data.Trust = append(data.Trust, fmt.Sprintf("Baseline %s the best reference forecaster, %s (test %.4g against the baseline's %.4g).", verdict, name, mse, r.Baseline.Full.Mean))
		data.References = append(data.References, htmlRow{[]string{"persistence", fmt.Sprintf("%.4g", f.Persistence)}}, htmlRow{[]string{"linear_ar", fmt.Sprintf("%.4g", f.LinearAR)}})
		for _, o := range []struct {
			name string
			v    *float64
		}{{"seasonal_persistence", f.SeasonalPersistence}, {"linear_centred", f.LinearCentred},
			{"linear_ar_per_channel", f.LinearARPerChannel}, {"linear_centred_per_channel", f.LinearCentredPerChannel}} {
			if o.v != nil {
				data.References = append(data.References, htmlRow{[]string{o.name, fmt.Sprintf("%.4g", *o.v)}})
			}
		}
		if f.NoiseFloor > 0 {
			data.References = append(data.References, htmlRow{[]string{"noise floor", fmt.Sprintf("%.4g", f.NoiseFloor)}})
		}
	}
	if inf := r.Informativeness; inf != nil {
		if inf.CanJudge {
			data.Trust = append(data.Trust, "This track can judge an idea: the baseline beats its best reference, its starting model and its linear part by more than seed noise.")
		} else {
			data.Trust = append(data.Trust, "This track CANNOT judge an idea: "+strings.Join(inf.Reasons, "; ")+".")
		}
	}
	if p := c.Power; p != nil && p.Min != nil {
		data.Trust = append(data.Trust, fmt.Sprintf("Power at the protocol's minimum effect (%+.3g): %.2f with these seeds; %d seeds for %.0f%% (0: more than %d).",
			p.Min.Effect, p.Min.PowerNow, p.Min.SeedsNeeded, 100*p.Target, p.MaxSeeds))
	}
	for _, row := range r.Baseline.Sweep {
		data.Sweep = append(data.Sweep, htmlRow{[]string{"baseline", cfgText(row.Cfg), fmt.Sprintf("%.4g", valMean(row.Val)), fmt.Sprintf("%.4g", row.Mean), chosen(row.Cfg == r.Baseline.BestCfg)}})
	}
	for _, row := range r.MechanismSignature.IdeaSweep {
		data.Sweep = append(data.Sweep, htmlRow{[]string{"idea", cfgText(row.Cfg), fmt.Sprintf("%.4g", valMean(row.Val)), fmt.Sprintf("%.4g", row.Result.Mean), chosen(row.Cfg == r.MechanismSignature.ObservedBestCfg)}})
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("plots: html: %w", err)
	}
	return buf.Bytes(), nil
}

func ideaName(r *report.Report) string {
	if c := r.MechanismSignature.ObservedBestCfg; c.Idea != "" {
		return "idea " + c.Idea
	}
	return "the gate"
}

func cfgText(c protocol.Cfg) string {
	s := fmt.Sprintf("lr %g, %d epochs", c.LR, c.Epochs)
	if c.Idea != "" {
		s += ", " + c.Idea
		if !c.Params.IsZero() {
			s += " " + c.Params.String()
		}
	} else if c.Beta != 0 {
		s += fmt.Sprintf(", ρ %g, β %g", c.Rho, c.Beta)
	}
	return s
}

func valMean(s *report.Summary) float64 {
	if s == nil {
		return 0
	}
	return s.Mean
}

func chosen(b bool) string {
	if b {
		return "chosen"
	}
	return ""
}

// HTMLName is the page's file name in a plot directory.
const HTMLName = "report.html"

// HTMLPath is the page's path in dir.
func HTMLPath(dir string) string { return filepath.Join(dir, HTMLName) }

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Unverified}}UNVERIFIED: {{end}}{{.Title}}</title>
<style>
body { font-family: 'Liberation Serif', 'Times New Roman', Times, serif; max-width: 52rem; margin: 1.5rem auto; padding: 0 1rem; color: #111; }
.unverified { background: #b00000; color: #fff; font-size: 1.3rem; font-weight: bold; padding: 0.6rem 0.8rem; margin: 0 0 1rem 0; }
.verdict { font-size: 1.6rem; font-weight: bold; margin: 0.3rem 0; }
.headline { margin: 0 0 1rem 0; }
.trust li, .warnings li { margin: 0.25rem 0; }
.warnings { color: #8a1c1c; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem 0; }
td, th { border-bottom: 1px solid #ccc; padding: 0.2rem 0.6rem; text-align: left; }
figure { margin: 1rem 0; page-break-inside: avoid; }
figure svg { width: 100%; height: auto; }
@media print { body { max-width: none; } }
</style>
</head>
<body>
{{if .Unverified}}<p class="unverified" id="unverified">{{.Unverified}}</p>
{{end}}<h1>{{.Title}}</h1>
<p class="verdict" id="verdict">{{.Verdict}}</p>
<p class="headline">{{.Headline}}</p>
<h2>How far to trust it</h2>
<ul class="trust">{{range .Trust}}<li>{{.}}</li>{{end}}</ul>
{{if .Warnings}}<h2>Warnings</h2>
<ul class="warnings">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
<h2>Sweeps (each arm chooses its cfg on validation)</h2>
<table><tr><th>arm</th><th>cfg</th><th>val mean</th><th>test mean</th><th></th></tr>
{{range .Sweep}}<tr>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>
{{if .References}}<h2>Reference forecasters (test)</h2>
<table><tr><th>forecaster</th><th>test MSE</th></tr>
{{range .References}}<tr>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>{{end}}
<h2>Figures</h2>
{{range .Figures}}<figure id="{{.Name}}">{{.SVG}}<figcaption>{{.Name}}</figcaption></figure>
{{end}}</body>
</html>
`))

// WriteSuiteHTML writes one self-contained HTML page of a suite report
// to path, as WriteHTML does for a track's: the suite's verdict and its
// warnings first, then each aggregate's statistics (and its idea arms),
// every track's row with why it is in an aggregate or not, and the
// figures of WriteSuite inline as SVG. A report that did not verify
// (opt.Unverified) gets a banner that says so above everything else, and
// so does every figure.
func WriteSuiteHTML(r *suitereport.Report, path string, opt Options) error {
	if r == nil {
		return errors.New("plots: no suite report")
	}
	built, err := suiteFigures(r, opt.Unverified)
	if err != nil {
		return err
	}
	figs, err := inlineFigures(built)
	if err != nil {
		return err
	}
	pc := func(e float64) string { return fmt.Sprintf("%+.2f%%", stats.Pct(e)) }
	type agg struct {
		Name, Verdict string
		Rows          []htmlRow
		Ideas         []htmlRow
	}
	data := struct {
		Unverified     string
		Title, Verdict string
		Warnings       []string
		Notes          []string
		Aggregates     []agg
		Tracks         []htmlRow
		Figures        []htmlFigure
	}{Title: "ideabench suite " + r.Name, Verdict: r.Verdict, Warnings: r.Warnings, Figures: figs}
	if u := opt.Unverified; u != nil {
		data.Unverified = u.Banner()
	}
	for _, s := range r.Skipped {
		data.Notes = append(data.Notes, "skipped "+s.Name+": "+s.Reason)
	}
	if len(r.HeldOut) > 0 {
		data.Notes = append(data.Notes, "held out, not yet run (ideabench suite --confirm): "+strings.Join(r.HeldOut, ", "))
	}
	for _, g := range r.Aggregates() {
		x := agg{Name: fmt.Sprintf("%s (%s)", g.Name, strings.Join(g.Tracks, ", ")), Verdict: g.Verdict}
		x.Rows = []htmlRow{
			{[]string{"idea better by (mean log ratio over tracks)", fmt.Sprintf("%s, 95%% interval [%s, %s]", pc(g.Mean), pc(g.Lo), pc(g.Hi))}},
			{[]string{"p (stratified, selection-aware)", fmt.Sprintf("%.3g (%s)", g.PValue, g.Method)}},
			{[]string{"practically equivalent within", fmt.Sprintf("±%s: 90%% interval [%s, %s]", strings.TrimPrefix(pc(g.ROPE), "+"), pc(g.EqLo), pc(g.EqHi))}},
			{[]string{"interquartile mean", fmt.Sprintf("%s [%s, %s]", pc(g.IQM), pc(g.IQMLo), pc(g.IQMHi))}},
			{[]string{"probability of improvement", fmt.Sprintf("%.2f [%.2f, %.2f]", g.PoI, g.PoILo, g.PoIHi)}},
			{[]string{"Bayesian signed-rank: P(worse, equivalent, better)", fmt.Sprintf("%.2f, %.2f, %.2f", g.PWorse, g.PEquivalent, g.PBetter)}},
		}
		if h := g.Hierarchical; h != nil {
			x.Rows = append(x.Rows, htmlRow{[]string{"hierarchical model, next track: P(worse, equivalent, better)", fmt.Sprintf("%.2f, %.2f, %.2f; mean effect %s", h.PWorse, h.PEquivalent, h.PBetter, pc(h.Delta0))}})
		}
		if ia := g.Ideas; ia != nil {
			for _, c := range ia.Comparisons {
				x.Ideas = append(x.Ideas, htmlRow{[]string{c.Name, fmt.Sprintf("%+.2f%%", c.MeanPct), fmt.Sprintf("%.3g", c.PValue), fmt.Sprintf("%.3g", c.PValueHolm), c.VerdictHolm}})
			}
		}
		data.Aggregates = append(data.Aggregates, x)
	}
	for _, t := range r.Tracks {
		in := "no: " + strings.Join(t.Reasons, "; ")
		switch {
		case t.InAggregate && t.Confirm:
			in = "confirmation"
		case t.InAggregate:
			in = "development"
		}
		data.Tracks = append(data.Tracks, htmlRow{[]string{t.Name, fmt.Sprintf("%.4g", t.Baseline), fmt.Sprintf("%.4g", t.Idea),
			fmt.Sprintf("%+.2f%% [%+.2f, %+.2f]", t.EffectPct, t.EffectLoPct, t.EffectHiPct), fmt.Sprintf("%s (p %.3g)", t.Verdict, t.PValue), in}})
	}
	var buf bytes.Buffer
	if err := suitePageTemplate.Execute(&buf, data); err != nil {
		return fmt.Errorf("plots: html: %w", err)
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return fmt.Errorf("plots: writing %s: %w", path, err)
	}
	return nil
}

var suitePageTemplate = template.Must(template.New("suite").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Unverified}}UNVERIFIED: {{end}}{{.Title}}</title>
<style>
body { font-family: 'Liberation Serif', 'Times New Roman', Times, serif; max-width: 52rem; margin: 1.5rem auto; padding: 0 1rem; color: #111; }
.unverified { background: #b00000; color: #fff; font-size: 1.3rem; font-weight: bold; padding: 0.6rem 0.8rem; margin: 0 0 1rem 0; }
.verdict { font-size: 1.6rem; font-weight: bold; margin: 0.3rem 0 1rem 0; }
.warnings { color: #8a1c1c; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem 0; }
td, th { border-bottom: 1px solid #ccc; padding: 0.2rem 0.6rem; text-align: left; vertical-align: top; }
figure { margin: 1rem 0; page-break-inside: avoid; }
figure svg { width: 100%; height: auto; }
@media print { body { max-width: none; } }
</style>
</head>
<body>
{{if .Unverified}}<p class="unverified" id="unverified">{{.Unverified}}</p>
{{end}}<h1>{{.Title}}</h1>
<p class="verdict" id="verdict">{{.Verdict}}</p>
{{if .Warnings}}<ul class="warnings">{{range .Warnings}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{if .Notes}}<ul>{{range .Notes}}<li>{{.}}</li>{{end}}</ul>{{end}}
{{range .Aggregates}}<h2>{{.Name}}: {{.Verdict}}</h2>
<table>{{range .Rows}}<tr>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>
{{if .Ideas}}<table><tr><th>idea arm</th><th>effect</th><th>p</th><th>Holm p</th><th>verdict (Holm)</th></tr>
{{range .Ideas}}<tr>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>{{end}}
{{end}}<h2>Tracks</h2>
<table><tr><th>track</th><th>baseline</th><th>idea</th><th>idea better by</th><th>track's verdict</th><th>aggregate</th></tr>
{{range .Tracks}}<tr>{{range .Cells}}<td>{{.}}</td>{{end}}</tr>{{end}}</table>
<h2>Figures</h2>
{{range .Figures}}<figure id="{{.Name}}">{{.SVG}}<figcaption>{{.Name}}</figcaption></figure>
{{end}}</body>
</html>
`))
