package plots

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strings"

	"github.com/ideabench/ideabench/report"

	"gonum.org/v1/plot/vg/draw"

	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/suitereport"
)

// WriteHTML writes one self-contained HTML page of the report to path,
// its reading (ReadingOf) in order: what made the numbers (profile, data
// and its SHA-256, protocol, versions), the verdict with its marks and
// the numbers behind it, each idea's comparison with its intervals and
// what its seeds can rule out, how far to trust it (competence, whether
// the track can judge an idea, the mechanism check), the warnings, the
// training budget, the grid extension's rounds, the sweeps and the
// reference forecasters; then every figure of Write inline as SVG. It
// loads nothing from a network and runs no script; it prints as it
// shows. The same report gives the same bytes. A report that did not
// verify (opt.Unverified) gets a banner that says so above everything
// else, and so does every figure.
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
	rd := ReadingOf(r)
	rd.Provenance = append(rd.Provenance, pageLines(r.Run, opt)...)
	return writePage(path, rd, inline, opt.Unverified)
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

// writePage writes the page of a reading (htmlPage) to path, atomically.
func writePage(path string, rd Reading, figs []htmlFigure, u *Unverified) error {
	page, err := htmlPage(rd, figs, u)
	if err != nil {
		return err
	}
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(page); return err }); err != nil {
		return fmt.Errorf("plots: writing %s: %w", path, err)
	}
	return nil
}

// htmlPage renders a page of a reading: the banner of an unverified
// report (u), then the reading in its order, then the figures (the
// heading "Figures" only where there are some).
func htmlPage(rd Reading, figs []htmlFigure, u *Unverified) ([]byte, error) {
	data := struct {
		Unverified string
		Reading
		Figures []htmlFigure
	}{Reading: rd, Figures: figs}
	if u != nil {
		data.Unverified = u.Banner()
	}
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("plots: html: %w", err)
	}
	return buf.Bytes(), nil
}

// HTMLName is the page's file name in a plot directory.
const HTMLName = "report.html"

// HTMLPath is the page's path in dir.
func HTMLPath(dir string) string { return filepath.Join(dir, HTMLName) }

// pageTemplate is the page of a Reading (htmlPage), a track's or a
// suite's: every label comes from the reading.
var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Unverified}}UNVERIFIED: {{end}}ideabench: {{.Title}}</title>
<style>
body { font-family: 'Liberation Serif', 'Times New Roman', Times, serif; max-width: 52rem; margin: 1.5rem auto; padding: 0 1rem; color: #111; }
.unverified { background: #b00000; color: #fff; font-size: 1.3rem; font-weight: bold; padding: 0.6rem 0.8rem; margin: 0 0 1rem 0; }
.provenance { font-size: 0.9rem; color: #333; margin: 0 0 1rem 0; }
.verdict { font-size: 1.6rem; font-weight: bold; margin: 0.3rem 0; }
.headline { margin: 0 0 0.5rem 0; }
li { margin: 0.25rem 0; }
.alert { color: #8a1c1c; }
.alert > b { text-transform: uppercase; }
span[title] { border-bottom: 1px dotted #666; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem 0; }
td, th { border-bottom: 1px solid #ccc; padding: 0.2rem 0.6rem; text-align: left; vertical-align: top; }
figure { margin: 1rem 0; page-break-inside: avoid; }
figure svg { width: 100%; height: auto; }
@media print { body { max-width: none; } }
</style>
</head>
<body>
{{if .Unverified}}<p class="unverified" id="unverified">{{.Unverified}}</p>
{{end}}<h1>ideabench: {{.Title}}</h1>
<ul class="provenance" id="provenance">{{range .Provenance}}{{template "line" .}}{{end}}</ul>
<p class="verdict" id="verdict">{{.Verdict}}</p>
{{if .Headline}}<p class="headline">{{.Headline}}</p>
{{end}}{{if .Notes}}<ul class="notes">{{range .Notes}}{{template "line" .}}{{end}}</ul>
{{end}}{{range .Sections}}<h2>{{.Heading}}</h2>
{{if .Lines}}<ul>{{range .Lines}}{{template "line" .}}{{end}}</ul>
{{end}}{{with .Table}}<table><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table>
{{end}}{{end}}{{if .Figures}}<h2>Figures</h2>
{{end}}{{range .Figures}}<figure id="{{.Name}}">{{.SVG}}<figcaption>{{.Name}}</figcaption></figure>
{{end}}</body>
</html>
{{define "line"}}<li{{if .Alert}} class="alert"{{end}}><b>{{.Label}}</b>: {{if .Full}}<span title="{{.Full}}">{{.Text}}</span>{{else}}{{.Text}}{{end}}{{if .Sub}}<ul>{{range .Sub}}{{template "line" .}}{{end}}</ul>{{end}}</li>{{end}}`))

// WriteSuiteHTML writes one self-contained HTML page of a suite report
// to path, as WriteHTML does for a track's, its reading (SuiteReading):
// the profile and the track reports' SHA-256, the suite's verdict, why a
// track is left out, the warnings, each aggregate's statistics (and its
// idea arms), every track's row, then the figures of WriteSuite inline as
// SVG. A report that did not verify
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
	rd := SuiteReading(r)
	rd.Provenance = append(rd.Provenance, pageLines(nil, opt)...)
	return writePage(path, rd, figs, opt.Unverified)
}

// WriteComparedHTML writes one self-contained HTML page of a comparison
// of results made elsewhere (ideabench compare) to path: its reading
// (ComparedReading), the sources with their SHA-256, the verdict, each
// idea arm's comparison with its intervals and what its seeds can rule
// out, the warnings and the sweeps. It has no figures: those draw a run's
// report, whose track, curves and mechanism a comparison does not hold.
// A report that did not verify (opt.Unverified) gets a banner that says
// so above everything else.
func WriteComparedHTML(c *report.Compared, path string, opt Options) error {
	switch {
	case c == nil || len(c.Arms) < 2:
		return errors.New("plots: no comparison (a comparison report has a baseline and at least one idea arm)")
	case len(c.Ideas) > len(c.Arms)-2:
		return fmt.Errorf("plots: ideas: %d comparisons for %d arms beyond the first idea arm", len(c.Ideas), len(c.Arms)-2)
	}
	rd := ComparedReading(c)
	rd.Provenance = append(rd.Provenance, pageLines(nil, opt)...)
	return writePage(path, rd, nil, opt.Unverified)
}
