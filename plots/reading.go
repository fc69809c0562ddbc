package plots

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/suitereport"
	"github.com/ideabench/ideabench/track"
)

// Reading is a report as a person reads it: what was compared, what made
// the numbers (provenance), the verdict with the numbers behind it and
// what qualifies it, then sections of labelled lines and small tables.
// The command's summaries (WriteText) and the pages (WriteHTML,
// WriteSuiteHTML) render a Reading and add no label of their own, so a
// label, an interval's level (from the report's alpha) or a verdict's
// marks are written once, here.
type Reading struct {
	// Title names what was compared and where.
	Title string
	// Provenance says which profile, data (with its checksum), protocol
	// and derivation made the numbers.
	Provenance []Line
	// Verdict is the headline verdict with its marks
	// (report.Comparison.VerdictLine); Headline the numbers behind it;
	// Notes what qualifies it (a hollow comparison, the test conditional
	// on the choice, Holm, sequential looks).
	Verdict  string
	Headline string
	Notes    []Line
	// Sections follow in the order they are shown.
	Sections []Section
}

// Line is one labelled line of a Reading: "Label: Text".
type Line struct {
	Label, Text string
	// Full is the whole value behind a shortened Text (a digest), which
	// a page shows on hover; "" when Text is whole.
	Full string
	// Alert marks a line that says the result cannot be taken at face
	// value (a hollow comparison, an unequal budget, a failed law, a
	// smoke-test profile); a page shows it in red.
	Alert bool
	// Sub are the lines that qualify this one, shown under it.
	Sub []Line
}

// Table is a small table of a Reading: a header and rows of cells.
type Table struct {
	Header []string
	Rows   [][]string
}

// Section is a part of a Reading under a heading: lines, then a table.
type Section struct {
	Heading string
	Lines   []Line
	Table   *Table
}

// Level is an interval's coverage as it is read, 100·level percent:
// "95%" at level 0.95 (alpha 0.05), "90%" at 0.9.
func Level(level float64) string {
	return strconv.FormatFloat(100*level, 'g', 4, 64) + "%"
}

// alphaOf is the comparison's alpha; stats' default for a report of the
// seed schema, which records none (as derive verifies it).
func alphaOf(c report.Comparison) float64 {
	if c.Alpha > 0 {
		return c.Alpha
	}
	return stats.DefaultOptions().Alpha
}

// shortDigest is the head of a hex digest as a page shows it, the whole
// value beside it (Line.Full).
func shortDigest(h string) string {
	if len(h) <= 12 {
		return h
	}
	return h[:12] + "…"
}

// The headings of the sections that several readings have.
const (
	headComparisons = "Each idea against the baseline, paired by seed"
	headWarnings    = "Warnings"
	headSweeps      = "Sweeps (each arm chooses its cfg on validation)"
)

// ReadingOf is the reading of a track's report: the command's run
// summary and the report's page.
func ReadingOf(r *report.Report) Reading {
	c := r.Comparison
	rd := Reading{
		Title:      fmt.Sprintf("%s on the %s track", ideaName(r), r.Track),
		Provenance: provenance(r),
		Verdict:    c.VerdictLine(),
		Headline: fmt.Sprintf("%s; p = %.4g%s at alpha %g; idea - baseline %+.4g on test over %d seeds, the idea better on %d",
			relativeEffect("the idea", c, r.Baseline.Full.Mean, r.MetricDirection), c.PValue, method(c), alphaOf(c), c.DeltaMean, c.NPairs, c.IdeaWins),
		Notes: verdictNotes(r),
	}
	cmps := Section{Heading: headComparisons}
	l := comparisonLine("idea", c, r.Baseline.Full.Mean, r.MetricDirection)
	l.Sub = append(l.Sub, searchLines(r, "idea", c)...)
	cmps.Lines = append(cmps.Lines, l)
	for k, a := range r.Ideas {
		l := comparisonLine("idea "+a.Name, a.Comparison, r.Baseline.Full.Mean, r.MetricDirection)
		l.Sub = append(l.Sub, searchLines(r, protocol.IdeasArm(k), a.Comparison)...)
		cmps.Lines = append(cmps.Lines, l)
	}
	rd.Sections = append(rd.Sections, cmps, Section{Heading: "How far to trust it", Lines: trustLines(r)})
	if w := warningLines(c.Warnings); len(w) > 0 {
		rd.Sections = append(rd.Sections, Section{Heading: headWarnings, Lines: w})
	}
	if s, ok := budgetSection(r.Budget); ok {
		rd.Sections = append(rd.Sections, s)
	}
	if len(r.GridExtension) > 0 {
		rd.Sections = append(rd.Sections, Section{Heading: "Grid extension (each arm's lr grid grown while a choice took its edge)", Lines: extensionLines(r.GridExtension)})
	}
	rd.Sections = append(rd.Sections, Section{Heading: headSweeps, Table: sweepTable(r)})
	if r.ReferenceForecasters != nil {
		head := "Reference forecasters (test)"
		if r.ReferenceForecasters.Tokens != nil {
			head = "References (test; the oracle is the ceiling)"
		}
		rd.Sections = append(rd.Sections, Section{Heading: head, Table: referenceTable(r)})
	}
	return rd
}

// ideaName names the idea of a report's idea arm.
func ideaName(r *report.Report) string {
	if c := r.MechanismSignature.ObservedBestCfg; c.Idea != "" {
		return "idea " + c.Idea
	}
	return "the gate"
}

// provenance is what made a report's numbers: its setup, profile, data,
// protocol, trials and versions.
func provenance(r *report.Report) []Line {
	setup := Line{Label: "setup", Text: fmt.Sprintf("track %s, model %s, %d seeds, metric: test %s %s (%s)", r.Track, r.Model, r.NSeeds, metricName(r), metricScope(r), r.MetricDirection)}
	s := r.Setup
	if s == nil {
		return []Line{setup, {Label: "provenance", Alert: true,
			Text: "none recorded (a report of the seed schema, without its setup block): the protocol, the data and the derivation that made these numbers are unknown"}}
	}
	p := s.Protocol
	out := []Line{setup, profileLine(p.Profile)}
	data := Line{Label: "data"}
	switch {
	case p.CSV != nil || p.TSF != nil:
		if p.CSV != nil {
			data.Text = p.CSV.Path
		} else {
			// The cut is the archive's; the horizon is the run's, which
			// a data note under this line flags when it is not the
			// file's @horizon (track.NewRealPanel).
			data.Text = fmt.Sprintf("%s (a real panel at horizon %d: each series' last %d values are its test targets and the %d before them its validation targets, as the Monash archive cuts its series)", p.TSF.Path, p.TSF.H, p.TSF.H, p.TSF.H)
		}
		if s.DataSHA256 != "" {
			data.Text += ", SHA-256 " + shortDigest(s.DataSHA256)
			data.Full = s.DataSHA256
		}
	case p.Panel != nil:
		data.Text = fmt.Sprintf("generated by the panel track from data_seed %d (setup.protocol.panel fixes every window)", p.Panel.DataSeed)
	case r.ReferenceForecasters != nil && r.ReferenceForecasters.Tokens != nil:
		data.Text = fmt.Sprintf("generated by the %s track (setup.protocol.%s fixes every sequence)", p.Track, p.Track)
	default:
		data.Text = fmt.Sprintf("generated by the sequence track from data_seed %d (setup.protocol.sequence fixes every window)", p.Sequence.DataSeed)
	}
	for _, n := range s.DataNotes {
		data.Sub = append(data.Sub, Line{Label: "note", Text: n})
	}
	out = append(out, data)
	id := p.ID()
	out = append(out, Line{Label: "protocol", Text: fmt.Sprintf("%s (SHA-256 of setup.protocol; %s test, alpha %g)", shortDigest(id), p.Test, p.Alpha), Full: id})
	if s.TrialsSHA256 != "" {
		out = append(out, Line{Label: "trials", Text: shortDigest(s.TrialsSHA256) + " (SHA-256 of the trials' ids, setup.trials_sha256)", Full: s.TrialsSHA256})
	}
	out = append(out, Line{Label: "versions", Text: fmt.Sprintf("training %s, derive %s", cmp.Or(s.TrainingVersion, "(not recorded)"), cmp.Or(s.DeriveVersion, "(not recorded)"))})
	return out
}

// profileLine names the profile a protocol started from and what its
// numbers are worth: a ci profile's are a smoke test, not a result.
func profileLine(name string) Line {
	l := Line{Label: "profile", Text: cmp.Or(name, "(not recorded)")}
	switch name {
	case "ci":
		l.Alert = true
		l.Text = "ci, a SMOKE-TEST profile: little data and few epochs, to check that the tool runs; its numbers are no result about the idea"
	case "seed":
		l.Text = "seed, the seed report's protocol, kept to reproduce it"
	case "full":
		l.Text = "full, the default protocol (setup.protocol holds every field a config file changed)"
	}
	return l
}

// marked is a further verdict v of c's arm (Holm's, the conditional
// test's, a sequential look's) with the tags of c's marks, as
// report.Comparison.VerdictTag puts them after c's own verdict.
func marked(v string, c report.Comparison) string {
	return v + strings.TrimPrefix(c.VerdictTag(), c.Verdict)
}

// verdictNotes are the lines under the verdict: a hollow comparison, the
// other test of the chosen cfgs, Holm over several ideas, an early stop
// and the looks of a sequential run.
func verdictNotes(r *report.Report) []Line {
	c := r.Comparison
	var out []Line
	if f := r.ReferenceForecasters; f != nil && f.BestReference != "" && !f.BaselineCompetent {
		out = append(out, Line{Label: "HOLLOW", Alert: true, Text: "the baseline does not beat " + f.BestReference + ", the best reference forecaster, so a win over it says little"})
	}
	switch {
	case c.PValueConditional != nil:
		out = append(out, Line{Label: "conditional on each arm's choice", Text: fmt.Sprintf("the sign-flip test on the chosen cfgs alone: p = %.4g, %s", *c.PValueConditional, marked(c.VerdictConditional, c))})
	case c.PValueSelection != nil:
		out = append(out, Line{Label: "the selection-aware test", Text: fmt.Sprintf("valid under each arm's choice of cfg: p = %.4g, %s", *c.PValueSelection, marked(c.VerdictSelection, c))})
	}
	if c.VerdictHolm != "" {
		parts := []string{"idea " + marked(c.VerdictHolm, c)}
		for _, a := range r.Ideas {
			parts = append(parts, a.Name+" "+marked(a.Comparison.VerdictHolm, a.Comparison))
		}
		out = append(out, Line{Label: fmt.Sprintf("Holm-adjusted over the %d ideas", 1+len(r.Ideas)), Text: strings.Join(parts, ", ")})
	}
	if es := r.EarlyStop; es != nil && len(es.Looks) > 0 {
		l := es.Looks[0]
		text := fmt.Sprintf("not possible here (a look at %d seeds has p = %.4g, above its boundary %.3g)", l.NSeeds, l.PValue, l.Boundary)
		if es.SeedsSaved > 0 {
			text = fmt.Sprintf("a sequential design (O'Brien-Fleming, looks at %d and %d seeds) would have stopped at %d seeds (p = %.4g < %.3g): %s",
				l.NSeeds, es.MaxSeeds, es.StoppedAt, l.PValue, l.Boundary, marked(es.Verdict, c))
		}
		out = append(out, Line{Label: "early stop", Text: text})
	}
	if sq := r.Sequential; sq != nil {
		var looks []string
		for _, l := range sq.Looks {
			looks = append(looks, fmt.Sprintf("%d seeds p = %.4g vs %.3g", l.NSeeds, l.PValue, l.Boundary))
		}
		out = append(out, Line{Label: fmt.Sprintf("sequential (%s spending, %s test, at most %d seeds)", sq.Spending, sq.Test, sq.MaxSeeds),
			Text: fmt.Sprintf("%s; stopped at %d seeds (%d saved): %s", strings.Join(looks, "; "), sq.StoppedAt, sq.SeedsSaved, marked(sq.Verdict, c))})
	}
	return out
}

// comparisonLine is one idea arm's comparison with the baseline (of
// test mean baseMean): its verdict, the mean difference, wins, p-value
// and MDE, and under it the verdict's marks, the intervals at the
// comparison's level, what its seeds can rule out and how many seeds
// would give it power.
func comparisonLine(name string, c report.Comparison, baseMean float64, dir string) Line {
	l := Line{Label: name + " - baseline", Text: fmt.Sprintf("%s: delta %+.4g, wins %d/%d, p = %.4g%s, MDE %.4g (%.3g%%)",
		c.VerdictTag(), c.DeltaMean, c.IdeaWins, c.NPairs, c.PValue, method(c), c.MDE, c.MDERelPct)}
	if c.PValueHolm != nil {
		l.Text += fmt.Sprintf("; Holm p = %.4g: %s", *c.PValueHolm, marked(c.VerdictHolm, c))
	}
	for _, m := range c.Marks {
		l.Sub = append(l.Sub, Line{Label: "marked", Text: m, Alert: true})
	}
	l.Sub = append(l.Sub, Line{Label: "relative effect", Text: relativeEffect(name, c, baseMean, dir)})
	if iv := c.Intervals; iv != nil {
		l.Sub = append(l.Sub, Line{Label: Level(iv.Level) + " interval of delta",
			Text: fmt.Sprintf("[%+.4g, %+.4g] (paired t), [%+.4g, %+.4g] (bootstrap); P(%s better on a random seed) %.2f [%.2f, %.2f]",
				iv.TLo, iv.THi, iv.BootLo, iv.BootHi, name, iv.PoI, iv.PoILo, iv.PoIHi)})
	}
	l.Sub = append(l.Sub, ruleOut(c, baseMean))
	if pw := c.Power; pw != nil {
		seeds := func(a stats.PowerAt) string {
			if a.SeedsNeeded == 0 {
				return fmt.Sprintf("more than %d", pw.MaxSeeds)
			}
			return fmt.Sprint(a.SeedsNeeded)
		}
		text := fmt.Sprintf("%s at the observed effect %+.4g (power now %.2f)", seeds(pw.Observed), pw.Observed.Effect, pw.Observed.PowerNow)
		if m := pw.Min; m != nil {
			text += fmt.Sprintf("; %s at min_effect %+.4g (power now %.2f)", seeds(*m), m.Effect, m.PowerNow)
		}
		l.Sub = append(l.Sub, Line{Label: fmt.Sprintf("seeds for %.0f%% power", 100*pw.Target), Text: text})
	}
	return l
}

// searchLines say how a tuned report searched arm's space
// (setup.protocol.tune): over the idea's parameters and the rate, or at
// the idea's fixed settings, and the effect over the settings drawn
// (comparison.sensitivity); none for a report without a tune block.
func searchLines(r *report.Report, arm string, c report.Comparison) []Line {
	if r.Setup == nil || r.Setup.Protocol.Tune == nil {
		return nil
	}
	t := r.Setup.Protocol.Tune
	space := t.Spaces[arm]
	rates := fmt.Sprintf("the learning rate over %s, %d cfgs an arm as the baseline's over the rate alone (tune.seed %d)", t.LR, t.Cfgs, t.Seed)
	if len(space) == 0 {
		return []Line{{Label: "search", Alert: true, Text: "the idea at fixed settings, " + rates + ": a verdict about these settings, not about the idea tuned"}}
	}
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(space)) {
		parts = append(parts, n+" "+space[n].String())
	}
	out := []Line{{Label: "search", Text: "tuned over " + strings.Join(parts, ", ") + " and " + rates}}
	if sn := c.Sensitivity; sn != nil {
		l := Line{Label: "over the settings drawn", Text: sn.Reading, Alert: strings.Contains(sn.Reading, "flips") || strings.Contains(sn.Reading, "depends")}
		for _, e := range sn.Settings {
			mark := ""
			if e.Chosen {
				mark = " (chosen)"
			}
			l.Sub = append(l.Sub, Line{Label: cfgLabel(e.Cfg), Text: fmt.Sprintf("%s: delta %+.4g [%+.4g, %+.4g], better on %d seeds%s", e.Side, e.DeltaMean, e.Lo, e.Hi, e.Wins, mark)})
		}
		out = append(out, l)
	}
	return out
}

// cfgLabel names a tuned cfg by its rate and its idea's parameters.
func cfgLabel(c protocol.Cfg) string {
	ic := c.IdeaConfig()
	return fmt.Sprintf("lr %g, %s", c.LR, strings.ReplaceAll(ic.Params.String(), ";", ", "))
}

// relativeEffect says a comparison's effect as a percentage of the
// baseline's test mean, with its paired-t interval where the comparison
// has one: "the idea 2.45% worse than the baseline (95% interval: 0.87%
// to 4.0% worse)". dir is the metric's direction (report's
// metric_direction); "" on a zero baseline mean, which no percentage
// describes.
func relativeEffect(name string, c report.Comparison, baseMean float64, dir string) string {
	if baseMean == 0 {
		return fmt.Sprintf("%s - baseline %+.4g", name, c.DeltaMean)
	}
	// better is the idea's improvement in percent of the baseline's
	// mean: the drop of a lower-is-better metric, the rise of another.
	sign := -1.0
	if dir == stats.HigherIsBetter.String() {
		sign = 1
	}
	better := func(d float64) float64 { return sign * 100 * d / math.Abs(baseMean) }
	word := func(v float64) string {
		if v >= 0 {
			return fmt.Sprintf("%.3g%% better", v)
		}
		return fmt.Sprintf("%.3g%% worse", -v)
	}
	text := fmt.Sprintf("%s %s than the baseline", name, word(better(c.DeltaMean)))
	if iv := c.Intervals; iv != nil {
		lo, hi := better(iv.TLo), better(iv.THi)
		if lo > hi {
			lo, hi = hi, lo
		}
		text += fmt.Sprintf(" (%s interval: %s to %s)", Level(iv.Level), word(lo), word(hi))
	}
	return text
}

// systemWorked is whether the system worked (comparison.system_worked):
// all of a significant win, the mechanism confirmed and the math check
// confirmed, with what each was, so that "false" beside a significant
// result reads as what it is.
func systemWorked(r *report.Report) Line {
	c, ms := r.Comparison, r.MechanismSignature
	yes := map[bool]string{true: "yes", false: "no"}[c.SystemWorked]
	return Line{Label: "system worked", Text: fmt.Sprintf("%s: it needs all three of a significant win (here: %s), the mechanism confirmed (%v) and the math check confirmed (%v)",
		yes, c.Verdict, ms.MechanismSignature.Confirmed, ms.MathCheck.Confirmed)}
}

// ruleOut says plainly which effects a comparison's seeds can tell from
// seed noise: none when no outcome of theirs can reach alpha (the
// warnings stats.ErrTooFewPairs and stats.ErrUnreachableAlpha), else
// those from the MDE up (the half-width of the interval at 1 - alpha,
// the effect detected half the time); a smaller one cannot be ruled out.
func ruleOut(c report.Comparison, baseMean float64) Line {
	l := Line{Label: "what these seeds can rule out"}
	// The rule of the warnings, read from the numbers, not the words:
	// fewer than two pairs, or an exact test whose smallest p, 2^(1-n)
	// (both signs alike), is not below alpha (a Monte Carlo test's is
	// 1/(1+draws), far below it).
	if c.NPairs < 2 || c.PValueMethod == stats.MethodExact && math.Ldexp(1, 1-c.NPairs) >= alphaOf(c) {
		l.Alert = true
		l.Text = fmt.Sprintf("nothing: with %d seeds no outcome reaches p < %g, so no effect of any size can be told from seed noise; run more seeds", c.NPairs, alphaOf(c))
		return l
	}
	rel := ""
	if c.MDERelPct > 0 {
		rel = fmt.Sprintf(" (%.3g%% of the baseline's mean)", c.MDERelPct)
	}
	l.Text = fmt.Sprintf("these %d seeds would detect an effect of %.4g%s or more (the MDE: half-width of the %s interval, an effect that size is detected half the time); smaller effects cannot be ruled out",
		c.NPairs, c.MDE, rel, Level(1-alphaOf(c)))
	if pw := c.Power; pw != nil && pw.Min != nil {
		l.Text += fmt.Sprintf("; at min_effect, %.4g", math.Abs(pw.Min.Effect))
		if baseMean != 0 {
			l.Text += fmt.Sprintf(" (%.3g%%)", 100*math.Abs(pw.Min.Effect/baseMean))
		}
		l.Text += fmt.Sprintf(", their power is %.2f", pw.Min.PowerNow)
	}
	return l
}

// trustLines are how far to trust the verdict: the baseline's
// competence, whether the track can judge an idea, the mechanism check
// and the external trainers' determinism.
func trustLines(r *report.Report) []Line {
	var out []Line
	alpha := alphaOf(r.Comparison)
	if f := r.ReferenceForecasters; f != nil && f.BestReference != "" {
		l := Line{Label: "baseline competent", Text: fmt.Sprintf("yes: it beats the best reference forecaster, %s (test %.4g against the baseline's %.4g, better by %+.4g, %+.1f%%)",
			f.BestReference, f.BestReferenceMSE, r.Baseline.Full.Mean, f.BaselineMargin, f.BaselineMarginPct)}
		if !f.BaselineCompetent {
			l.Alert = true
			l.Text = fmt.Sprintf("NO: it does not beat the best reference forecaster, %s (test %.4g against the baseline's %.4g, %+.4g, %+.1f%%)",
				f.BestReference, f.BestReferenceMSE, r.Baseline.Full.Mean, f.BaselineMargin, f.BaselineMarginPct)
		}
		out = append(out, l)
	}
	if inf := r.Informativeness; inf != nil {
		l := Line{Label: "informative", Text: "yes: the baseline beats its best reference, its starting model and its linear part by more than seed noise, so this track can judge an idea"}
		if !inf.CanJudge {
			l.Alert = true
			l.Text = "NO, this track cannot judge an idea: " + strings.Join(inf.Reasons, "; ")
		}
		gap := func(name string, g report.Gap) string {
			return fmt.Sprintf("over %s %+.4g (%+.2g%%, %s interval [%+.4g, %+.4g], p = %.3g)", name, g.Mean, g.Pct, Level(1-alpha), g.Lo, g.Hi, g.PValue)
		}
		parts := []string{gap("the best reference", inf.BestReference), gap("its start", inf.Start)}
		if inf.LinearPart != nil {
			parts = append(parts, gap("its skip path alone", *inf.LinearPart))
		}
		l.Sub = append(l.Sub, Line{Label: "the baseline's margin (positive: better)", Text: strings.Join(parts, "; ")})
		out = append(out, l)
	}
	ms := r.MechanismSignature
	s := ms.MechanismSignature
	switch {
	case s.NotMeasured != "":
		out = append(out, Line{Label: "mechanism", Text: "not measured: " + s.NotMeasured})
	case len(s.Laws) == 0:
		out = append(out, Line{Label: "mechanism", Alert: !s.Confirmed, Text: fmt.Sprintf("block 0, seed %d: gain %.3f -> %.3f, predicted steady %.3f, pole %.4f vs rho %g: confirmed %v",
			s.TrainedModelSeed, s.InitialGain, s.FinalGain, s.PredictedSteadyGain, s.FittedStatePole, s.Rho, s.Confirmed)})
	default:
		out = append(out, lawsLine(s.Laws, s.Confirmed))
	}
	if mc := ms.MathCheck; len(mc.Rows) == 0 && len(mc.Laws) == 0 {
		// Nothing was checked: "confirmed" is vacuous, and the reading
		// says so instead of showing it as a result.
		out = append(out, Line{Label: "math check", Text: "none: the idea has no closed forms to check (math_check.confirmed is vacuous)"})
	} else {
		out = append(out, Line{Label: "math check", Alert: !mc.Confirmed, Text: fmt.Sprintf("the closed forms against simulation: confirmed %v", mc.Confirmed)})
	}
	out = append(out, systemWorked(r))
	if e := r.External; e != nil {
		l := Line{Label: "external trainers", Text: strings.Join(e.Arms, ", ")}
		switch m := e.Rerun; {
		case m == nil:
			l.Text += "; no rerun check (every external trial diverged)"
		case m.Identical:
			l.Text += fmt.Sprintf("; rerun of %s cfg %d seed %d: identical forecasts (bit for bit)", m.Arm, m.Cfg, m.Seed)
		default:
			l.Alert = !m.Reproduced
			l.Text += fmt.Sprintf("; rerun of %s cfg %d seed %d: forecasts differ by up to %.3g (%.3g relative, tolerance %.3g): reproduced %v",
				m.Arm, m.Cfg, m.Seed, m.MaxAbsDiff, m.RelDiff, m.Tolerance, m.Reproduced)
		}
		out = append(out, l)
	}
	return out
}

// lawsLine is the mechanism laws: how many of them hold, and each one
// that fails with what it got and wanted.
func lawsLine(laws []idea.Law, confirmed bool) Line {
	held := 0
	l := Line{Label: "mechanism laws", Alert: !confirmed}
	for _, law := range laws {
		if law.Holds() {
			held++
			continue
		}
		want := fmt.Sprintf("%.4g ± %.2g", law.Want, law.Tol)
		if law.AtLeast {
			want = fmt.Sprintf(">= %.4g", law.Want)
		}
		l.Sub = append(l.Sub, Line{Label: "failed", Alert: true, Text: fmt.Sprintf("%s: got %.4g, want %s", law.Name, law.Got, want)})
	}
	l.Text = fmt.Sprintf("%d of %d hold (confirmed: %v)", held, len(laws), confirmed)
	return l
}

// warningLines are a report's warnings, one line each.
func warningLines(ws []string) []Line {
	var out []Line
	for _, w := range ws {
		out = append(out, Line{Label: "warning", Text: w, Alert: true})
	}
	return out
}

// budgetSection is the training budget of each arm and whether the idea
// arms spend what the baseline does; false for a report without one.
func budgetSection(b *report.Budget) (Section, bool) {
	if b == nil {
		return Section{}, false
	}
	l := Line{Label: "budget", Text: "equal: every idea arm trains on the baseline's budget"}
	if !b.Equal {
		l.Alert = true
		l.Text = "UNEQUAL: " + strings.Join(b.Differences, "; ")
	}
	rl := Line{Label: "recipe", Text: "equal: every idea arm trains with the baseline's weight decay, schedule, warmup and clipping"}
	if len(b.RecipeDifferences) > 0 {
		rl.Alert = true
		rl.Text = "DIFFERENT: " + strings.Join(b.RecipeDifferences, "; ")
	}
	t := &Table{Header: []string{"arm", "cfgs", "trials", "steps", "examples", "FLOPs"}}
	for _, a := range b.Arms {
		flops := fmt.Sprintf("%.3g", a.FLOPs)
		if a.FLOPs == 0 {
			flops = "- (external trainer)"
		}
		t.Rows = append(t.Rows, []string{a.Arm, fmt.Sprint(a.Cfgs), fmt.Sprint(a.Trials), fmt.Sprint(a.Steps), fmt.Sprint(a.Examples), flops})
	}
	return Section{Heading: "Training budget (steps, examples and FLOPs of every epoch of every trial)", Lines: []Line{l, rl}, Table: t}, true
}

// extensionLines are the rounds of a grid extension: each arm's choice
// and the rates the round added, and why the grids stopped.
func extensionLines(rounds []protocol.Extension) []Line {
	var out []Line
	for k, e := range rounds {
		var chosen []string
		for _, a := range e.Chosen {
			s := fmt.Sprintf("%s lr %g", a.Arm, a.LR)
			if a.Edge != "" {
				s += " (" + a.Edge + ")"
			}
			chosen = append(chosen, s)
		}
		text := "chosen: " + strings.Join(chosen, ", ")
		for _, add := range []struct {
			where string
			lrs   []float64
		}{{"below", e.Below}, {"above", e.Above}} {
			if len(add.lrs) == 0 {
				continue
			}
			var parts []string
			for i, lr := range add.lrs {
				arm := ""
				if i < len(e.Chosen) {
					arm = " (" + e.Chosen[i].Arm + ")"
				}
				parts = append(parts, fmt.Sprintf("%g%s", lr, arm))
			}
			text += "; added " + add.where + ": " + strings.Join(parts, ", ")
		}
		if e.Stop != "" {
			text += "; stopped: " + e.Stop
		}
		out = append(out, Line{Label: fmt.Sprintf("round %d", k+1), Text: text})
	}
	return out
}

// sweepTable is every cfg of every arm: a column for each cfg field that
// varies between them (lr always), the val and test means, and which
// cfg each arm chose; a cfg blown up against persistence
// (report.BlownUp) says so.
func sweepTable(r *report.Report) *Table {
	type row struct {
		arm    string
		cfg    protocol.Cfg
		val    *report.Summary
		test   float64
		chosen bool
		acc    *report.Summary // a token track's test accuracy
	}
	var rows []row
	for _, x := range r.Baseline.Sweep {
		rows = append(rows, row{"baseline", x.Cfg, x.Val, x.Mean, x.Cfg == r.Baseline.BestCfg, x.Accuracy})
	}
	for _, x := range r.MechanismSignature.IdeaSweep {
		rows = append(rows, row{"idea", x.Cfg, x.Val, x.Result.Mean, x.Cfg == r.MechanismSignature.ObservedBestCfg, x.Accuracy})
	}
	for _, a := range r.Ideas {
		for _, x := range a.Sweep {
			rows = append(rows, row{"idea " + a.Name, x.Cfg, x.Val, x.Result.Mean, x.Cfg == a.BestCfg, x.Accuracy})
		}
	}
	var cfgs []protocol.Cfg
	for _, x := range rows {
		cfgs = append(cfgs, x.cfg)
	}
	var cols []protocol.CfgField
	for _, f := range protocol.CfgFields {
		if f.Key == "lr" || f.Varies(cfgs) {
			cols = append(cols, f)
		}
	}
	schedule, ideas := false, false
	for _, c := range cfgs {
		schedule = schedule || c.Schedule != cfgs[0].Schedule
		ideas = ideas || c.Idea != ""
	}
	t := &Table{Header: []string{"arm"}}
	if ideas {
		t.Header = append(t.Header, "idea")
	}
	for _, f := range cols {
		t.Header = append(t.Header, f.Key)
	}
	if schedule {
		t.Header = append(t.Header, "schedule")
	}
	acc := r.Accuracy != nil
	t.Header = append(t.Header, "val mean", "test mean")
	if acc {
		t.Header = append(t.Header, "test accuracy")
	}
	t.Header = append(t.Header, "")
	for _, x := range rows {
		cells := []string{x.arm}
		if ideas {
			ic := x.cfg.IdeaConfig()
			name := ic.Name
			if !ic.Params.IsZero() && ic.Name != "gate" {
				name += " " + ic.Params.String()
			}
			cells = append(cells, cmp.Or(name, "-"))
		}
		for _, f := range cols {
			cells = append(cells, fmt.Sprintf("%g", f.Value(x.cfg)))
		}
		if schedule {
			cells = append(cells, cmp.Or(x.cfg.Schedule, protocol.ScheduleConstant))
		}
		val := "-"
		if x.val != nil {
			val = fmt.Sprintf("%.4f", x.val.Mean)
		}
		var mark []string
		if x.chosen {
			mark = append(mark, "<- chosen")
		}
		if f := r.ReferenceForecasters; f != nil {
			if name, ref := f.BlowUpReference(); report.BlownUp(x.test, ref) {
				mark = append(mark, fmt.Sprintf("BLOWN UP (over %dx %s)", report.BlowUpFactor, name))
			}
		}
		cells = append(cells, val, fmt.Sprintf("%.4f", x.test))
		if acc {
			a := "-"
			if x.acc != nil {
				a = fmt.Sprintf("%.4f", x.acc.Mean)
			}
			cells = append(cells, a)
		}
		t.Rows = append(t.Rows, append(cells, strings.Join(mark, "  ")))
	}
	return t
}

// referenceTable is the reference forecasters' test MSE, then the two
// arms' chosen cfgs' for comparison.
func referenceTable(r *report.Report) *Table {
	f := r.ReferenceForecasters
	if f.Tokens != nil {
		// A token track's references, with their accuracy beside.
		t := &Table{Header: []string{"reference", "test " + metricName(r), "test accuracy"}}
		for _, x := range f.Tokens {
			name := x.Name
			if name == "oracle" {
				name = "oracle (a reader of the task's definition)"
			}
			t.Rows = append(t.Rows, []string{name, fmt.Sprintf("%.4f", x.CE), fmt.Sprintf("%.4f", x.Accuracy)})
		}
		bAcc, iAcc := "-", "-"
		if a := r.Accuracy; a != nil && len(a.Arms) > 0 {
			bAcc, iAcc = fmt.Sprintf("%.4f", a.Baseline.Mean), fmt.Sprintf("%.4f", a.Arms[0].Result.Mean)
		}
		t.Rows = append(t.Rows, []string{"baseline (its chosen cfg)", fmt.Sprintf("%.4f", r.Baseline.Full.Mean), bAcc},
			[]string{"idea (its chosen cfg)", fmt.Sprintf("%.4f", r.Idea.Mean), iAcc})
		if a := r.Accuracy; a != nil {
			for _, x := range a.Arms {
				t.Rows = append(t.Rows, []string{fmt.Sprintf("accuracy, %s - baseline (%.0f%% interval)", x.Name, 100*x.Intervals.Level),
					"", fmt.Sprintf("%+.4f [%+.4f, %+.4f]", x.DeltaMean, x.Intervals.TLo, x.Intervals.THi)})
			}
			if s := a.Solves; s != nil {
				// The seeds solved, so that a mean over two clusters is
				// read as the solve rate it is.
				split := func(b bool) string {
					if b {
						return ", bimodal"
					}
					return ""
				}
				t.Rows = append(t.Rows, []string{fmt.Sprintf("seeds solved, baseline (accuracy >= %.3g)", s.Target), "",
					fmt.Sprintf("%d of %d%s", s.Baseline.Solved, s.Baseline.N, split(s.Baseline.Bimodal))})
				for _, x := range a.Arms {
					if x.Solves == nil {
						continue
					}
					t.Rows = append(t.Rows, []string{fmt.Sprintf("seeds solved, %s (paired: %s alone, baseline alone)", x.Name, x.Name), "",
						fmt.Sprintf("%d of %d%s (%d, %d; McNemar p %.3g)", x.Solves.Solved, x.Solves.N, split(x.Solves.Bimodal), x.Solves.OnlyIdea, x.Solves.OnlyBaseline, x.Solves.PValue)})
				}
			}
			if tt := a.TimeToTarget; tt != nil {
				// How fast each arm learns, beside where it ends.
				reached := func(x report.ArmTimes) string {
					n := 0
					for _, r := range x.Reached {
						if r {
							n++
						}
					}
					return fmt.Sprintf("%.0f of %d steps (%d of %d seeds there)", x.RestrictedMean, x.Budget, n, len(x.Reached))
				}
				t.Rows = append(t.Rows, []string{fmt.Sprintf("steps to val accuracy %.3g, baseline (restricted mean)", tt.Target), "", reached(tt.Baseline)})
				for _, x := range tt.Arms {
					t.Rows = append(t.Rows, []string{fmt.Sprintf("steps to val accuracy %.3g, %s", tt.Target, x.Name), "",
						fmt.Sprintf("%s: %s, p %.3g", reached(x.ArmTimes), x.Reading, x.PValue)})
				}
			}
		}
		return t
	}
	t := &Table{Header: []string{"forecaster", "test " + metricName(r)}}
	if f.MASE != nil {
		// A real panel: the archive's metric beside.
		t.Header = append(t.Header, "test MASE")
	}
	// add writes a row; key names the reference in f.MASE, or the arm.
	add := func(key, label string, v float64) {
		row := []string{label, fmt.Sprintf("%.4f", v)}
		if f.MASE != nil {
			m, ok := f.MASE[key]
			switch {
			case key == "baseline" && r.MASE != nil:
				m, ok = r.MASE.Baseline.Mean, true
			case key == "idea" && r.MASE != nil && len(r.MASE.Arms) > 0:
				m, ok = r.MASE.Arms[0].Result.Mean, true
			}
			row = append(row, "-")
			if ok {
				row[2] = fmt.Sprintf("%.4f", m)
			}
		}
		t.Rows = append(t.Rows, row)
	}
	add("persistence", "persistence", f.Persistence)
	if f.SeasonalPersistence != nil {
		add("seasonal_persistence", fmt.Sprintf("seasonal persistence (period %d)", f.SeasonalPeriod), *f.SeasonalPersistence)
	}
	shared := ""
	if f.LinearARPerChannel != nil {
		shared = " (shared)"
	}
	add("linear_ar", "linear AR"+shared, f.LinearAR)
	if f.LinearCentred != nil {
		add("linear_centred", "linear centred"+shared, *f.LinearCentred)
	}
	per := func(key string) string {
		if l, ok := f.Lambdas[key]; ok {
			return fmt.Sprintf(" per series (ridge λ %g)", l) // a real panel's
		}
		return " per channel"
	}
	if f.LinearARPerChannel != nil {
		add("linear_ar_per_channel", "linear AR"+per("linear_ar_per_channel"), *f.LinearARPerChannel)
	}
	if f.LinearCentredPerChannel != nil {
		add("linear_centred_per_channel", "linear centred"+per("linear_centred_per_channel"), *f.LinearCentredPerChannel)
	}
	if f.SES != nil {
		add("ses", "simple exponential smoothing", *f.SES)
	}
	if f.Theta != nil {
		add("theta", "Theta", *f.Theta)
	}
	if f.NoiseFloor > 0 {
		add("noise_floor", "noise floor (the generator's optimal forecast)", f.NoiseFloor)
	}
	add("baseline", "baseline (its chosen cfg)", r.Baseline.Full.Mean)
	add("idea", "idea (its chosen cfg)", r.Idea.Mean)
	if f.MASE != nil && r.Setup != nil && r.Setup.Protocol.TSF != nil {
		// The archive's numbers, where the run is its task: its file,
		// horizon and period.
		c := r.Setup.Protocol.TSF
		if k, ok := track.KnownBySHA(r.Setup.DataSHA256); ok && c.H == k.H && c.Period == 0 {
			for _, x := range k.Published {
				t.Rows = append(t.Rows, []string{"published: " + x.Method + " (Godahewa et al. 2021)", "", fmt.Sprintf("%.3f", x.MASE)})
			}
		}
	}
	if m := r.MASE; m != nil {
		for _, x := range m.Arms {
			t.Rows = append(t.Rows, []string{fmt.Sprintf("MASE, %s - baseline (%.0f%% interval)", x.Name, 100*x.Intervals.Level),
				"", fmt.Sprintf("%+.4f [%+.4f, %+.4f]", x.DeltaMean, x.Intervals.TLo, x.Intervals.THi)})
		}
	}
	return t
}

// ComparedReading is the reading of a comparison of results made
// elsewhere (ideabench compare).
func ComparedReading(c *report.Compared) Reading {
	x := c.Comparison
	base := c.Arms[0]
	rd := Reading{
		Title: fmt.Sprintf("%s against %s on the per-seed metrics of %s", c.Arms[1].Name, base.Name, c.Source),
		Provenance: []Line{
			{Label: "setup", Text: fmt.Sprintf("%d arms, %d seeds, metric %s", len(c.Arms), len(c.Seeds), strings.ReplaceAll(c.MetricDirection, "_", " "))},
			comparedSource(c),
			{Label: "versions", Text: "derive " + cmp.Or(c.DeriveVersion, "(not recorded)")},
		},
		Verdict: x.VerdictLine(),
		Headline: fmt.Sprintf("%s; p = %.4g%s at alpha %g; %s - %s %+.4g over %d seeds, %s better on %d",
			relativeEffect(c.Arms[1].Name, x, base.Result.Mean, c.MetricDirection), x.PValue, method(x), alphaOf(x), c.Arms[1].Name, base.Name, x.DeltaMean, x.NPairs, c.Arms[1].Name, x.IdeaWins),
	}
	cmps := Section{Heading: headComparisons}
	cmps.Lines = append(cmps.Lines, comparisonLine(c.Arms[1].Name, x, base.Result.Mean, c.MetricDirection))
	ws := x.Warnings
	for k, y := range c.Ideas {
		cmps.Lines = append(cmps.Lines, comparisonLine(c.Arms[k+2].Name, y.Comparison, base.Result.Mean, c.MetricDirection))
		ws = append(ws, y.Comparison.Warnings...)
	}
	rd.Sections = append(rd.Sections, cmps)
	if w := warningLines(ws); len(w) > 0 {
		rd.Sections = append(rd.Sections, Section{Heading: headWarnings, Lines: w})
	}
	t := &Table{Header: []string{"arm", "cfg", "val mean", "test mean", ""}}
	for _, a := range c.Arms {
		for j, cf := range a.Cfgs {
			val := "-"
			if cf.Val != nil {
				val = fmt.Sprintf("%.4g", cf.Val.Mean)
			}
			mark := ""
			if j == a.BestCfg {
				mark = "<- chosen"
			}
			t.Rows = append(t.Rows, []string{a.Name, cf.Name, val, fmt.Sprintf("%.4g", cf.Test.Mean), mark})
		}
	}
	rd.Sections = append(rd.Sections, Section{Heading: headSweeps, Table: t})
	return rd
}

// comparedSource is a comparison's source line: the metrics file with
// its SHA-256, or the run reports' arms, each report's SHA-256 under it.
func comparedSource(c *report.Compared) Line {
	const elsewhere = " (trained elsewhere; only the statistics are ideabench's)"
	sha := func(l *Line, s report.ComparedSource) {
		if s.SHA256 == "" {
			l.Text += ", given in memory (no file)"
			return
		}
		l.Text += ", SHA-256 " + shortDigest(s.SHA256)
		l.Full = s.SHA256
	}
	if len(c.Sources) == 1 && c.Sources[0].Arm == "" {
		l := Line{Label: "source", Text: c.Sources[0].Path}
		sha(&l, c.Sources[0])
		l.Text += elsewhere
		return l
	}
	l := Line{Label: "source", Text: c.Source + elsewhere}
	for _, s := range c.Sources {
		sub := Line{Label: "report of arm " + s.Arm, Text: s.Path}
		sha(&sub, s)
		l.Sub = append(l.Sub, sub)
	}
	return l
}

// SuiteReading is the reading of a suite report: the command's suite
// summary and the suite's page. Its levels are the suite's
// (suitereport.Report.Alpha).
func SuiteReading(r *suitereport.Report) Reading { return suiteReading(r, r.Alpha) }

func suiteReading(r *suitereport.Report, alpha float64) Reading {
	pc := func(e float64) string { return fmt.Sprintf("%+.2f%%", stats.Pct(e)) }
	level, eqLevel := Level(1-alpha), Level(1-2*alpha)
	rd := Reading{Title: "suite " + r.Name, Verdict: r.Verdict}
	rd.Provenance = append(rd.Provenance, profileLine(r.Spec.WithDefaults().Profile))
	for _, t := range r.Tracks {
		l := Line{Label: "report of " + t.Name, Text: t.Report}
		if t.ReportSHA256 != "" {
			l.Text += ", SHA-256 " + shortDigest(t.ReportSHA256)
			l.Full = t.ReportSHA256
		}
		rd.Provenance = append(rd.Provenance, l)
	}
	if g := r.Development; g != nil && g.SuiteResult != nil {
		rd.Headline = fmt.Sprintf("development tracks (%s): idea better by %s, %s interval [%s, %s], p = %.3g",
			strings.Join(g.Tracks, ", "), pc(g.Mean), level, pc(g.Lo), pc(g.Hi), g.PValue)
	}
	for _, s := range r.Skipped {
		rd.Notes = append(rd.Notes, Line{Label: "skipped " + s.Name, Text: s.Reason})
	}
	if len(r.HeldOut) > 0 {
		rd.Notes = append(rd.Notes, Line{Label: "held out", Text: "confirmation tracks, run with --confirm once the settings are settled: " + strings.Join(r.HeldOut, ", ")})
	}
	for _, t := range r.Tracks {
		if !t.InAggregate && len(t.Reasons) > 0 {
			rd.Notes = append(rd.Notes, Line{Label: t.Name + " left out of the aggregate", Text: strings.Join(t.Reasons, "; ")})
		}
	}
	if w := warningLines(r.Warnings); len(w) > 0 {
		rd.Sections = append(rd.Sections, Section{Heading: headWarnings, Lines: w})
	}
	for _, g := range r.Aggregates() {
		if g.SuiteResult == nil {
			s := Section{Heading: fmt.Sprintf("%s: the idea was inert on every track that can judge; its further idea arms", g.Name)}
			ideaArmsLines(&s, g.Ideas, level)
			rd.Sections = append(rd.Sections, s)
			continue
		}
		s := Section{Heading: fmt.Sprintf("%s (%s): %s", g.Name, strings.Join(g.Tracks, ", "), g.Verdict)}
		s.Lines = []Line{
			{Label: "idea better by", Text: fmt.Sprintf("%s (mean log ratio over tracks), %s interval [%s, %s]", pc(g.Mean), level, pc(g.Lo), pc(g.Hi))},
			{Label: "p", Text: fmt.Sprintf("%.3g (stratified, selection-aware; %s)", g.PValue, g.Method)},
			{Label: "practically equivalent within ±" + strings.TrimPrefix(pc(g.ROPE), "+"), Text: fmt.Sprintf("%s interval [%s, %s]", eqLevel, pc(g.EqLo), pc(g.EqHi))},
			{Label: "interquartile mean", Text: fmt.Sprintf("%s, %s interval [%s, %s]", pc(g.IQM), level, pc(g.IQMLo), pc(g.IQMHi))},
			{Label: "probability of improvement", Text: fmt.Sprintf("%.2f, %s interval [%.2f, %.2f]", g.PoI, level, g.PoILo, g.PoIHi)},
			{Label: "Bayesian signed-rank over tracks", Text: fmt.Sprintf("P(worse) %.2f, P(equivalent) %.2f, P(better) %.2f", g.PWorse, g.PEquivalent, g.PBetter)},
		}
		if h := g.Hierarchical; h != nil {
			s.Lines = append(s.Lines, Line{Label: "hierarchical model (seeds in tracks), next track",
				Text: fmt.Sprintf("P(worse) %.2f, P(equivalent) %.2f, P(better) %.2f; mean effect %s", h.PWorse, h.PEquivalent, h.PBetter, pc(h.Delta0))})
		}
		ideaArmsLines(&s, g.Ideas, level)
		rd.Sections = append(rd.Sections, s)
	}
	t := &Table{Header: []string{"track", "baseline", "idea", fmt.Sprintf("idea better by [%s interval]", level), "track's verdict (p)", "can judge", "aggregate"}}
	for _, tr := range r.Tracks {
		agg := "no"
		switch {
		case tr.InAggregate && tr.Confirm:
			agg = "confirmation"
		case tr.InAggregate:
			agg = "development"
		}
		t.Rows = append(t.Rows, []string{tr.Name, fmt.Sprintf("%.4g", tr.Baseline), fmt.Sprintf("%.4g", tr.Idea),
			fmt.Sprintf("%+.2f%% [%+.2f%%, %+.2f%%]", tr.EffectPct, tr.EffectLoPct, tr.EffectHiPct), fmt.Sprintf("%s (%.3g)", tr.VerdictTag(), tr.PValue), fmt.Sprint(tr.CanJudge), agg})
	}
	rd.Sections = append(rd.Sections, Section{Heading: "Tracks", Table: t})
	for _, l := range r.Ladders {
		// Per idea arm its effect up the ladder and the trend.
		lt := &Table{Header: []string{"idea arm"}}
		for _, rung := range l.Rungs {
			lt.Header = append(lt.Header, rung)
		}
		lt.Header = append(lt.Header, "last - first (p)", "trend")
		for _, a := range l.Arms {
			row := []string{a.Name}
			for k := range a.EffectPct {
				row = append(row, fmt.Sprintf("%+.2f%% [%+.2f%%, %+.2f%%]%s", a.EffectPct[k], a.LoPct[k], a.HiPct[k], verdictTag(a.Verdicts[k])))
			}
			row = append(row, fmt.Sprintf("%+.2f pp (%.3g)", a.ChangePct, a.ChangeP), a.Trend)
			lt.Rows = append(lt.Rows, row)
		}
		rd.Sections = append(rd.Sections, Section{Heading: fmt.Sprintf("Ladder %s (rungs easiest first; each cell the arm better by, with its track's verdict)", l.Name), Table: lt})
	}
	return rd
}

// verdictTag marks a rung's significant verdict in a ladder's cell.
func verdictTag(v string) string {
	switch v {
	case stats.VerdictWin:
		return " win"
	case stats.VerdictLoss:
		return " loss"
	}
	return ""
}

// ideaArmsLines adds to s the table of the idea arms ia (each against the
// baseline over its own tracks, with its interval at level, Holm-adjusted)
// and their average ranks; nothing when ia is nil.
func ideaArmsLines(s *Section, ia *suitereport.IdeaArms, level string) {
	if ia == nil {
		return
	}
	s.Table = &Table{Header: []string{fmt.Sprintf("idea arm (Holm over %d)", len(ia.Comparisons)), "tracks", fmt.Sprintf("idea better by [%s interval]", level), "p", "Holm p", "verdict (Holm)"}}
	for _, c := range ia.Comparisons {
		better := "-" // no track: no effect
		if len(c.Tracks) > 0 {
			better = fmt.Sprintf("%+.2f%% [%+.2f%%, %+.2f%%]", c.MeanPct, c.LoPct, c.HiPct)
		}
		s.Table.Rows = append(s.Table.Rows, []string{c.Name, strings.Join(c.Tracks, ", "), better, fmt.Sprintf("%.3g", c.PValue), fmt.Sprintf("%.3g", c.PValueHolm), c.VerdictHolm})
	}
	f := ia.Friedman
	var ranks []string
	for a, name := range ia.Arms {
		if a < len(f.Ranks) {
			ranks = append(ranks, fmt.Sprintf("%s %.2f", name, f.Ranks[a]))
		}
	}
	s.Lines = append(s.Lines, Line{Label: "average ranks over the tracks that can judge (1 best)", Text: fmt.Sprintf("%s; Friedman p = %.3g, critical difference %.2f", strings.Join(ranks, ", "), f.PValue, f.CD)})
}

// WriteText writes the reading as the command prints it: the title, the
// provenance, the verdict with its numbers and notes, then each section
// after a blank line under its heading, its table's columns aligned.
// Lines print as "Label: Text", indented under their heading and under
// the line they qualify.
func (rd Reading) WriteText(w io.Writer) error {
	b := &strings.Builder{}
	var lines func(ls []Line, depth int)
	lines = func(ls []Line, depth int) {
		for _, l := range ls {
			fmt.Fprintf(b, "%s%s: %s\n", strings.Repeat("  ", depth), l.Label, l.Text)
			lines(l.Sub, depth+1)
		}
	}
	fmt.Fprintln(b, rd.Title)
	lines(rd.Provenance, 0)
	fmt.Fprintf(b, "\nverdict: %s\n", rd.Verdict)
	if rd.Headline != "" {
		fmt.Fprintf(b, "  %s\n", rd.Headline)
	}
	lines(rd.Notes, 1)
	for _, s := range rd.Sections {
		fmt.Fprintf(b, "\n%s\n", s.Heading)
		lines(s.Lines, 1)
		if t := s.Table; t != nil {
			tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', 0)
			for _, row := range append([][]string{t.Header}, t.Rows...) {
				fmt.Fprintln(tw, "  "+strings.TrimRight(strings.Join(row, "\t"), "\t"))
			}
			tw.Flush()
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
