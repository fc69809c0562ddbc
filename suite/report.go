package suite

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/report"

	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/stats"
)

// Version is the suite report's format; verify refuses another.
const Version = 1

// Report is a suite's result: each track's report (a file beside it) and
// the aggregates of the development and the confirmation tracks.
type Report struct {
	SuiteVersion int    `json:"suite_version"`
	Name         string `json:"name"`
	Spec         Spec   `json:"spec"`
	// Tracks are the tracks that ran, in the order they ran.
	Tracks []TrackResult `json:"tracks"`
	// Skipped are the tracks that did not run (their data set is not
	// under the data directory), with the reason.
	Skipped []Skipped `json:"skipped,omitempty"`
	// HeldOut names the confirmation tracks not run in this report:
	// they run with Options.Confirm (ideabench suite --confirm), once the
	// idea's settings are settled on the development tracks.
	HeldOut []string `json:"held_out,omitempty"`
	// Development is the aggregate over the development tracks that can
	// judge an idea (every development track with Spec.IncludeAll);
	// Confirmation over the confirmation tracks alike. Nil where no
	// track enters.
	Development  *Aggregate `json:"development,omitempty"`
	Confirmation *Aggregate `json:"confirmation,omitempty"`
	// Verdict is the development aggregate's verdict, then the
	// confirmation's where there is one ("better; confirmed: better"),
	// or "; confirmation held out" where its tracks did not run.
	Verdict string `json:"verdict"`
	// Warnings name what weakens the verdict: a held-out track reported
	// under more than one protocol (TrackResult.HeldOutRuns).
	Warnings []string `json:"warnings,omitempty"`
	// WallSeconds is the time the call that wrote the report took
	// (trials reused from the store cost next to nothing); volatile,
	// nothing is derived from it.
	WallSeconds float64 `json:"wall_seconds,omitempty"`
}

// TrackResult is one track's result as the suite reads it.
type TrackResult struct {
	Name    string `json:"name"`
	Track   string `json:"track"`
	Dataset string `json:"dataset,omitempty"`
	Confirm bool   `json:"confirm,omitempty"`
	// Report is the track's report file, relative to the suite report's
	// directory, and ReportSHA256 the SHA-256 of its bytes.
	Report       string `json:"report"`
	ReportSHA256 string `json:"report_sha256"`
	// Baseline and Idea are the chosen cfgs' mean test metrics, and
	// BaselineTest and IdeaTest their per-seed test metrics.
	Baseline     float64   `json:"baseline"`
	Idea         float64   `json:"idea"`
	BaselineTest []float64 `json:"baseline_test"`
	IdeaTest     []float64 `json:"idea_test"`
	// BestReference and BestReferenceMSE are the track's best reference
	// forecaster on test (reference_forecasters), absent without one.
	BestReference    string  `json:"best_reference,omitempty"`
	BestReferenceMSE float64 `json:"best_reference_mse,omitempty"`
	// Effects are the track's per-seed log ratios of the chosen cfgs'
	// test metrics (positive: the idea is better), EffectPct their mean
	// as a percent improvement of the idea, 100·(exp(mean)-1), and
	// EffectLoPct and EffectHiPct the paired-t interval of the mean at
	// level 1 - alpha (mean ∓ stats.MDE), in percent alike.
	Effects     []float64 `json:"effects"`
	EffectPct   float64   `json:"effect_pct"`
	EffectLoPct float64   `json:"effect_lo_pct"`
	EffectHiPct float64   `json:"effect_hi_pct"`
	// PValue and Verdict are the track report's own headline.
	PValue  float64 `json:"p_value"`
	Verdict string  `json:"verdict"`
	// CanJudge and Reasons are the track report's informativeness.
	CanJudge bool     `json:"can_judge"`
	Reasons  []string `json:"reasons,omitempty"`
	// InAggregate says whether the track enters its aggregate.
	InAggregate bool `json:"in_aggregate"`
	// HeldOutRuns, on a confirmation track, is how many different
	// protocols (their trials, harness.Setup.TrialsSHA256) this suite's
	// folder has reported the track under, this one included: a second
	// one means its result was seen before the settings changed, so it
	// no longer confirms anything (Report.Warnings says so).
	HeldOutRuns int `json:"held_out_runs,omitempty"`
}

// NamedAggregate is one of a report's aggregates with its name.
type NamedAggregate struct {
	Name string // "development" or "confirmation"
	*Aggregate
}

// Aggregates returns the report's aggregates that are present,
// development first.
func (r *Report) Aggregates() []NamedAggregate {
	var out []NamedAggregate
	for _, a := range []NamedAggregate{{"development", r.Development}, {"confirmation", r.Confirmation}} {
		if a.Aggregate != nil {
			out = append(out, a)
		}
	}
	return out
}

// Skipped is a track that did not run.
type Skipped struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Aggregate is the aggregate comparison of a set of tracks
// (stats.Suite).
type Aggregate struct {
	// Tracks names the tracks in it, in order.
	Tracks []string `json:"tracks"`
	stats.SuiteResult
	// Ideas is present when the tracks' protocols compare several ideas
	// with the baseline (harness.Protocol.Ideas): every idea arm against
	// the baseline over the tracks, Holm-adjusted, and the Friedman test
	// of all arms. The fields above are the first idea's.
	Ideas *IdeaArms `json:"ideas,omitempty"`
}

// IdeaArms compares several idea arms over a suite's tracks, as Demšar
// (2006) recommends for several methods over many data sets.
type IdeaArms struct {
	// Arms names the arms: "baseline", "idea", then the further ones.
	Arms []string `json:"arms"`
	// Comparisons holds each idea arm against the baseline: its suite
	// effect and p-value (stats.Suite), the p-value Holm-adjusted over
	// the idea arms (stats.Holm) and the verdict with it
	// (stats.SuiteVerdict).
	Comparisons []IdeaComparison `json:"comparisons"`
	// Friedman ranks every arm on each track by its chosen cfg's mean
	// test metric: average ranks, the Friedman test and the Nemenyi
	// critical difference (stats.FriedmanTest).
	Friedman stats.Friedman `json:"friedman"`
}

// IdeaComparison is one idea arm against the baseline over the tracks.
type IdeaComparison struct {
	Name        string  `json:"name"`
	MeanPct     float64 `json:"mean_pct"`
	PValue      float64 `json:"p_value"`
	PValueHolm  float64 `json:"p_value_holm"`
	Verdict     string  `json:"verdict"`
	VerdictHolm string  `json:"verdict_holm"`
}

// trackArms returns a track report's baseline and first idea arm as the
// suite's statistics take them (see armsOf).
func trackArms(r *report.Report) (stats.SuiteTrack, error) {
	arms, _, err := armsOf(r)
	if err != nil {
		return stats.SuiteTrack{}, err
	}
	return stats.SuiteTrack{Baseline: arms[0], Idea: arms[1]}, nil
}

// armsOf returns every arm of a track report, the baseline first, then
// the idea, then the further idea arms (harness.Protocol.Ideas), each as
// its cfgs' per-seed val and test metrics (diverged trials already carry
// the report's substitute) and which seeds diverged; and their names
// ("baseline", "idea", then each further arm's).
func armsOf(r *report.Report) ([]stats.Arm, []string, error) {
	if r.Setup == nil {
		return nil, nil, errors.New("the report has no setup block (its protocol)")
	}
	if r.Sequential != nil {
		return nil, nil, errors.New("a sequential report: the suite takes fixed-seed runs")
	}
	seeds := r.Setup.Protocol.Seeds
	arms := make([]stats.Arm, 2+len(r.Ideas))
	names := []string{"baseline", "idea"}
	add := func(a *stats.Arm, field string, j int, val *report.Summary, test []float64) error {
		if val == nil || len(test) != len(seeds) || len(val.PerSeed) != len(seeds) {
			return fmt.Errorf("%s[%d]: needs the per-seed val and test metrics of its %d seeds", field, j, len(seeds))
		}
		a.Val, a.Test = append(a.Val, val.PerSeed), append(a.Test, test)
		return nil
	}
	for j, row := range r.Baseline.Sweep {
		if err := add(&arms[0], "baseline.sweep", j, row.Val, row.PerSeed); err != nil {
			return nil, nil, err
		}
	}
	for j, row := range r.MechanismSignature.IdeaSweep {
		if err := add(&arms[1], "mechanism_signature.idea_sweep", j, row.Val, row.Result.PerSeed); err != nil {
			return nil, nil, err
		}
	}
	for k, ir := range r.Ideas {
		names = append(names, ir.Name)
		for j, row := range ir.Sweep {
			if err := add(&arms[2+k], fmt.Sprintf("ideas[%d].sweep", k), j, row.Val, row.Result.PerSeed); err != nil {
				return nil, nil, err
			}
		}
	}
	for a := range arms {
		arms[a].Diverged = make([][]bool, len(arms[a].Val))
		for j := range arms[a].Diverged {
			arms[a].Diverged[j] = make([]bool, len(seeds))
		}
	}
	if r.Diverged != nil {
		for _, d := range r.Diverged.Trials {
			a := -1
			switch {
			case d.Arm == "baseline":
				a = 0
			case d.Arm == "idea":
				a = 1
			default:
				var k int
				if _, err := fmt.Sscanf(d.Arm, "ideas[%d]", &k); err == nil && k >= 0 && k < len(r.Ideas) {
					a = 2 + k
				}
			}
			i := slices.Index(seeds, d.Seed)
			if a < 0 || i < 0 || d.Cfg < 0 || d.Cfg >= len(arms[a].Diverged) {
				return nil, nil, fmt.Errorf("diverged: trial %s cfg %d seed %d is not in the sweeps", d.Arm, d.Cfg, d.Seed)
			}
			arms[a].Diverged[d.Cfg][i] = true
		}
	}
	return arms, names, nil
}

// direction is the report's metric direction.
func direction(r *report.Report) (stats.Direction, error) {
	return stats.ParseDirection(r.MetricDirection)
}

// assemble builds a suite report from the track reports (in run order,
// with their paths relative to the suite report and their bytes'
// SHA-256): each track's row, and the two aggregates.
func assemble(spec Spec, specs []TrackSpec, reports []*report.Report, paths, sums []string, heldOut []int, skipped []Skipped, held []string) (*Report, error) {
	out := &Report{SuiteVersion: Version, Name: spec.Name, Spec: spec, Skipped: skipped, HeldOut: held}
	o := stats.DefaultSuiteOptions(spec.minEffectPct())
	var dir stats.Direction
	groups := map[bool][]int{} // confirm -> indices of the tracks in the aggregate
	arms := make([]stats.SuiteTrack, len(reports))
	all := make([][]stats.Arm, len(reports)) // every arm of each track
	names := make([][]string, len(reports))
	for i, r := range reports {
		t := specs[i]
		d, err := direction(r)
		if err != nil {
			return nil, fmt.Errorf("suite: track %s: %w", t.Name, err)
		}
		if i == 0 {
			dir = d
		} else if d != dir {
			return nil, fmt.Errorf("suite: track %s: metric direction %s, but track %s's is %s; a suite compares one direction", t.Name, d, specs[0].Name, dir)
		}
		if all[i], names[i], err = armsOf(r); err != nil {
			return nil, fmt.Errorf("suite: track %s (%s): %w", t.Name, paths[i], err)
		}
		arms[i] = stats.SuiteTrack{Baseline: all[i][0], Idea: all[i][1]}
		effects, err := stats.TrackEffects(arms[i], dir)
		if err != nil {
			return nil, fmt.Errorf("suite: track %s: %w", t.Name, err)
		}
		for a := 2; a < len(all[i]); a++ { // the further idea arms, checked here to name them
			if _, err := stats.TrackEffects(stats.SuiteTrack{Baseline: all[i][0], Idea: all[i][a]}, dir); err != nil {
				return nil, fmt.Errorf("suite: track %s, idea arm %s: %w", t.Name, names[i][a], err)
			}
		}
		mean := stats.Summarize(effects).Mean
		tr := TrackResult{
			Name: t.Name, Track: r.Track, Dataset: t.Dataset, Confirm: t.Confirm,
			Report: paths[i], ReportSHA256: sums[i],
			Baseline: r.Baseline.Full.Mean, Idea: r.Idea.Mean,
			Effects: effects, EffectPct: stats.Pct(mean),
			PValue: r.Comparison.PValue, Verdict: r.Comparison.Verdict,
		}
		tr.BaselineTest = arms[i].Baseline.Test[arms[i].Baseline.Select(dir)]
		tr.IdeaTest = arms[i].Idea.Test[arms[i].Idea.Select(dir)]
		if f := r.ReferenceForecasters; f != nil {
			tr.BestReference, tr.BestReferenceMSE = f.Best()
		}
		half := stats.MDE(effects, o.Alpha)
		tr.EffectLoPct, tr.EffectHiPct = stats.Pct(mean-half), stats.Pct(mean+half)
		if inf := r.Informativeness; inf != nil {
			tr.CanJudge, tr.Reasons = inf.CanJudge, inf.Reasons
		}
		tr.InAggregate = tr.CanJudge || spec.IncludeAll
		if t.Confirm {
			tr.HeldOutRuns = heldOut[i]
		}
		if tr.InAggregate {
			groups[t.Confirm] = append(groups[t.Confirm], i)
		}
		out.Tracks = append(out.Tracks, tr)
	}
	for _, confirm := range []bool{false, true} {
		idx := groups[confirm]
		if len(idx) == 0 {
			continue
		}
		var ts []stats.SuiteTrack
		agg := &Aggregate{}
		for _, i := range idx {
			ts = append(ts, arms[i])
			agg.Tracks = append(agg.Tracks, specs[i].Name)
		}
		res, err := stats.Suite(ts, dir, o)
		if err != nil {
			return nil, fmt.Errorf("suite: aggregate: %w", err)
		}
		agg.SuiteResult = res
		if agg.Ideas, err = ideaArms(specs, idx, all, names, dir, o, res); err != nil {
			return nil, fmt.Errorf("suite: aggregate: %w", err)
		}
		if confirm {
			out.Confirmation = agg
		} else {
			out.Development = agg
		}
	}
	out.Verdict = verdict(out)
	for _, t := range out.Tracks {
		if t.HeldOutRuns > 1 {
			out.Warnings = append(out.Warnings, fmt.Sprintf("held-out track %s was reported under %d protocols in this suite's folder: its result was seen before the settings changed, so it confirms nothing; hold out a track nobody has run yet", t.Name, t.HeldOutRuns))
		}
	}
	return out, nil
}

// ideaArms compares every idea arm of the tracks idx with the baseline
// and ranks all arms (nil when the tracks have one idea arm); first is
// the first idea's aggregate, already computed.
func ideaArms(specs []TrackSpec, idx []int, all [][]stats.Arm, names [][]string, dir stats.Direction, o stats.SuiteOptions, first stats.SuiteResult) (*IdeaArms, error) {
	arms := names[idx[0]]
	for _, i := range idx[1:] {
		if !slices.Equal(names[i], arms) {
			return nil, fmt.Errorf("track %s has the arms %v, track %s %v; a suite compares the same arms on every track", specs[i].Name, names[i], specs[idx[0]].Name, arms)
		}
	}
	if len(arms) <= 2 {
		return nil, nil
	}
	out := &IdeaArms{Arms: arms}
	results := []stats.SuiteResult{first}
	for a := 2; a < len(arms); a++ {
		var ts []stats.SuiteTrack
		for _, i := range idx {
			ts = append(ts, stats.SuiteTrack{Baseline: all[i][0], Idea: all[i][a]})
		}
		res, err := stats.Suite(ts, dir, o)
		if err != nil {
			return nil, fmt.Errorf("idea arm %s: %w", arms[a], err)
		}
		results = append(results, res)
	}
	ps := make([]float64, len(results))
	for j, res := range results {
		ps[j] = res.PValue
	}
	for j, q := range stats.Holm(ps) {
		res := results[j]
		out.Comparisons = append(out.Comparisons, IdeaComparison{
			Name: arms[j+1], MeanPct: res.MeanPct, PValue: res.PValue, Verdict: res.Verdict,
			// The equivalence interval is the arm's own; only the
			// test's p changes.
			PValueHolm: q, VerdictHolm: stats.SuiteVerdict(q, res.Mean, res.EqLo, res.EqHi, o),
		})
	}
	var scores [][]float64
	for _, i := range idx {
		row := make([]float64, len(arms))
		for a, arm := range all[i] {
			row[a] = stats.Summarize(arm.Test[arm.Select(dir)]).Mean
		}
		scores = append(scores, row)
	}
	f, err := stats.FriedmanTest(scores, dir)
	if err != nil {
		return nil, err
	}
	out.Friedman = f
	return out, nil
}

// verdict is the report's headline from its aggregates.
func verdict(r *Report) string {
	v := "no track can judge an idea: nothing to aggregate"
	if r.Development != nil {
		v = r.Development.Verdict
	}
	switch {
	case r.Confirmation != nil:
		v += "; confirmed: " + r.Confirmation.Verdict
	case len(r.HeldOut) > 0:
		v += "; confirmation held out"
	}
	return v
}

// WriteFile writes r as indented JSON.
func (r *Report) WriteFile(path string) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("suite: encoding report (a NaN or Inf?): %w", err)
	}
	data = append(data, '\n')
	if err := atomicfile.Write(path, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
		return fmt.Errorf("suite: writing report %s: %w", path, err)
	}
	return nil
}

// ReadReport reads a suite report.
func ReadReport(path string) (*Report, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	var r Report
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("suite: %s: %w (a suite report of another build, or edited)", path, err)
	}
	if r.SuiteVersion != Version {
		return nil, fmt.Errorf("suite: %s: suite_version %d; this build reads %d", path, r.SuiteVersion, Version)
	}
	return &r, nil
}

// IsReport reports whether the JSON raw is a suite report (it has the
// key suite_version) rather than a track's.
func IsReport(raw []byte) bool {
	var probe struct {
		V *int `json:"suite_version"`
	}
	return json.Unmarshal(raw, &probe) == nil && probe.V != nil
}

// readTrack reads a track report and the SHA-256 of its bytes.
func readTrack(path string) (*report.Report, string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(raw)
	r, err := report.ParseReport(raw, path)
	return r, hex.EncodeToString(sum[:]), err
}

// Finding is one disagreement verify found.
type Finding struct {
	Path string // what: a track's report, a JSON path of the suite report
	Note string
}

func (f Finding) String() string { return f.Path + ": " + f.Note }

// Verify checks a suite report read from path: every track report it
// names is there with the same SHA-256 and verifies on its own
// (derive.Verify), and the whole suite report is derived again from the
// track reports and compared with it leaf by leaf (derive.Diff, with
// derive's tolerances). It returns the findings and the number of values
// checked.
func Verify(r *Report, path string, opt derive.VerifyOptions) ([]Finding, int) {
	var out []Finding
	checked := 0
	base := filepath.Dir(path)
	var reports []*report.Report
	var paths, sums []string
	var specs []TrackSpec
	var heldOut []int
	byName := map[string]TrackSpec{}
	for _, t := range r.Spec.Tracks {
		byName[t.Name] = t
	}
	// Every track of the spec ran or was skipped, once, in run order;
	// only a data set can be skipped (its file was absent).
	var ran []string
	for _, t := range r.Tracks {
		ran = append(ran, t.Name)
	}
	skipped := map[string]bool{}
	for _, sk := range r.Skipped {
		checked++
		t, ok := byName[sk.Name]
		switch {
		case !ok:
			out = append(out, Finding{"skipped", fmt.Sprintf("%s is not a track of the report's spec", sk.Name)})
		case t.Dataset == "":
			out = append(out, Finding{"skipped", fmt.Sprintf("%s is not a data set; only a data set whose file is absent is skipped", sk.Name)})
		case skipped[sk.Name]:
			out = append(out, Finding{"skipped", fmt.Sprintf("%s is listed twice", sk.Name)})
		}
		skipped[sk.Name] = true
	}
	held := map[string]bool{}
	for _, name := range r.HeldOut {
		checked++
		t, ok := byName[name]
		switch {
		case !ok || !t.Confirm:
			out = append(out, Finding{"held_out", fmt.Sprintf("%s is not a confirmation track of the report's spec", name)})
		case held[name] || skipped[name]:
			out = append(out, Finding{"held_out", fmt.Sprintf("%s is listed twice", name)})
		}
		held[name] = true
	}
	var want []string
	for _, t := range r.Spec.ordered() {
		if !skipped[t.Name] && !held[t.Name] {
			want = append(want, t.Name)
		}
	}
	checked++
	if !slices.Equal(ran, want) {
		out = append(out, Finding{"tracks", fmt.Sprintf("the tracks that ran are %v; the spec, less the skipped, runs %v in this order", ran, want)})
	}
	for i, t := range r.Tracks {
		at := fmt.Sprintf("tracks[%d] (%s)", i, t.Name)
		spec, ok := byName[t.Name]
		if !ok {
			out = append(out, Finding{at, "not a track of the report's spec"})
			continue
		}
		tr, sum, err := readTrack(filepath.Join(base, t.Report))
		checked++
		if err != nil {
			out = append(out, Finding{at, fmt.Sprintf("report %s: %v", t.Report, err)})
			continue
		}
		if sum != t.ReportSHA256 {
			out = append(out, Finding{at, fmt.Sprintf("report %s has SHA-256 %s, the suite recorded %s: it changed after the suite was written", t.Report, sum, t.ReportSHA256)})
		}
		res := derive.Verify(tr, opt)
		for _, f := range res.Mismatches() {
			out = append(out, Finding{at + " " + t.Report, f.String()})
		}
		checked += res.Checked
		reports, paths, sums, specs = append(reports, tr), append(paths, t.Report), append(sums, t.ReportSHA256), append(specs, spec)
		heldOut = append(heldOut, t.HeldOutRuns) // the folder's history: taken as recorded
	}
	if len(reports) != len(r.Tracks) {
		return out, checked
	}
	again, err := assemble(r.Spec, specs, reports, paths, sums, heldOut, r.Skipped, r.HeldOut)
	if err != nil {
		return append(out, Finding{"suite", err.Error()}), checked
	}
	again.WallSeconds = r.WallSeconds
	d := derive.Diff(r, again)
	for _, f := range d.Findings {
		out = append(out, Finding{f.Field, fmt.Sprintf("report has %s, re-derived %s", f.Got, f.Want)})
	}
	return out, checked + d.Checked
}
