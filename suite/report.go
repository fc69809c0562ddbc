package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/ideabench/ideabench/harness"
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
	// Development is the aggregate over the development tracks that can
	// judge an idea (every development track with Spec.IncludeAll);
	// Confirmation over the confirmation tracks alike. Nil where no
	// track enters.
	Development  *Aggregate `json:"development,omitempty"`
	Confirmation *Aggregate `json:"confirmation,omitempty"`
	// Verdict is the development aggregate's verdict, then the
	// confirmation's where there is one ("better; confirmed: better").
	Verdict string `json:"verdict"`
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
	// Baseline and Idea are the chosen cfgs' mean test metrics, Metric
	// names the metric.
	Baseline float64 `json:"baseline"`
	Idea     float64 `json:"idea"`
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
}

// trackArms returns a track report's two arms as the suite's statistics
// take them: each cfg's per-seed val and test metrics (diverged trials
// already carry the report's substitute) and which seeds diverged.
func trackArms(r *harness.Report) (stats.SuiteTrack, error) {
	if r.Setup == nil {
		return stats.SuiteTrack{}, errors.New("the report has no setup block (its protocol)")
	}
	if r.Sequential != nil {
		return stats.SuiteTrack{}, errors.New("a sequential report: the suite takes fixed-seed runs")
	}
	seeds := r.Setup.Protocol.Seeds
	var t stats.SuiteTrack
	for j, row := range r.Baseline.Sweep {
		if row.Val == nil || len(row.PerSeed) != len(seeds) || len(row.Val.PerSeed) != len(seeds) {
			return t, fmt.Errorf("baseline.sweep[%d]: needs the per-seed val and test metrics of its %d seeds", j, len(seeds))
		}
		t.Baseline.Val = append(t.Baseline.Val, row.Val.PerSeed)
		t.Baseline.Test = append(t.Baseline.Test, row.PerSeed)
	}
	for j, row := range r.MechanismSignature.IdeaSweep {
		if row.Val == nil || len(row.Result.PerSeed) != len(seeds) || len(row.Val.PerSeed) != len(seeds) {
			return t, fmt.Errorf("mechanism_signature.idea_sweep[%d]: needs the per-seed val and test metrics of its %d seeds", j, len(seeds))
		}
		t.Idea.Val = append(t.Idea.Val, row.Val.PerSeed)
		t.Idea.Test = append(t.Idea.Test, row.Result.PerSeed)
	}
	mark := func(a *stats.Arm) {
		a.Diverged = make([][]bool, len(a.Val))
		for j := range a.Diverged {
			a.Diverged[j] = make([]bool, len(seeds))
		}
	}
	mark(&t.Baseline)
	mark(&t.Idea)
	if r.Diverged != nil {
		for _, d := range r.Diverged.Trials {
			i := slices.Index(seeds, d.Seed)
			var a *stats.Arm
			switch d.Arm {
			case "baseline":
				a = &t.Baseline
			case "idea":
				a = &t.Idea
			default:
				continue // a further idea arm
			}
			if i < 0 || d.Cfg < 0 || d.Cfg >= len(a.Diverged) {
				return t, fmt.Errorf("diverged: trial %s cfg %d seed %d is not in the sweep", d.Arm, d.Cfg, d.Seed)
			}
			a.Diverged[d.Cfg][i] = true
		}
	}
	return t, nil
}

// direction is the report's metric direction.
func direction(r *harness.Report) (stats.Direction, error) {
	return stats.ParseDirection(r.MetricDirection)
}

// assemble builds a suite report from the track reports (in run order,
// with their paths relative to the suite report and their bytes'
// SHA-256): each track's row, and the two aggregates.
func assemble(spec Spec, specs []TrackSpec, reports []*harness.Report, paths, sums []string, skipped []Skipped) (*Report, error) {
	out := &Report{SuiteVersion: Version, Name: spec.Name, Spec: spec, Skipped: skipped}
	o := stats.DefaultSuiteOptions(spec.minEffectPct())
	var dir stats.Direction
	groups := map[bool][]int{} // confirm -> indices of the tracks in the aggregate
	arms := make([]stats.SuiteTrack, len(reports))
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
		if arms[i], err = trackArms(r); err != nil {
			return nil, fmt.Errorf("suite: track %s (%s): %w", t.Name, paths[i], err)
		}
		one, err := stats.Suite([]stats.SuiteTrack{arms[i]}, dir, quick(o))
		if err != nil {
			return nil, fmt.Errorf("suite: track %s: %w", t.Name, err)
		}
		tr := TrackResult{
			Name: t.Name, Track: r.Track, Dataset: t.Dataset, Confirm: t.Confirm,
			Report: paths[i], ReportSHA256: sums[i],
			Baseline: r.Baseline.Full.Mean, Idea: r.Idea.Mean,
			Effects: one.Effects[0], EffectPct: one.MeanPct,
			PValue: r.Comparison.PValue, Verdict: r.Comparison.Verdict,
		}
		half := stats.MDE(one.Effects[0], o.Alpha)
		tr.EffectLoPct, tr.EffectHiPct = 100*math.Expm1(one.Mean-half), 100*math.Expm1(one.Mean+half)
		if inf := r.Informativeness; inf != nil {
			tr.CanJudge, tr.Reasons = inf.CanJudge, inf.Reasons
		}
		tr.InAggregate = tr.CanJudge || spec.IncludeAll
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
		if confirm {
			out.Confirmation = agg
		} else {
			out.Development = agg
		}
	}
	out.Verdict = verdict(out)
	return out, nil
}

// quick is o for one track's effect alone: only its mean is read.
func quick(o stats.SuiteOptions) stats.SuiteOptions {
	o.ExactMaxN, o.Draws, o.Boot, o.Bayes = 0, 1, 1, 1
	return o
}

// verdict is the report's headline from its aggregates.
func verdict(r *Report) string {
	v := "no track can judge an idea: nothing to aggregate"
	if r.Development != nil {
		v = r.Development.Verdict
	}
	if r.Confirmation != nil {
		v += "; confirmed: " + r.Confirmation.Verdict
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
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("suite: %s: %w", path, err)
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
func readTrack(path string) (*harness.Report, string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(raw)
	r, err := harness.ParseReport(raw, path)
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
// (harness.Verify), and every aggregate number is derived again from the
// track reports and compared exactly. It returns the findings and the
// number of values checked.
func Verify(r *Report, path string, opt harness.VerifyOptions) ([]Finding, int) {
	var out []Finding
	checked := 0
	base := filepath.Dir(path)
	var reports []*harness.Report
	var paths, sums []string
	var specs []TrackSpec
	byName := map[string]TrackSpec{}
	for _, t := range r.Spec.Tracks {
		byName[t.Name] = t
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
		res := harness.Verify(tr, opt)
		for _, f := range res.Mismatches() {
			out = append(out, Finding{at + " " + t.Report, f.String()})
		}
		checked += res.Checked
		reports, paths, sums, specs = append(reports, tr), append(paths, t.Report), append(sums, t.ReportSHA256), append(specs, spec)
	}
	if len(reports) != len(r.Tracks) {
		return out, checked
	}
	again, err := assemble(r.Spec, specs, reports, paths, sums, r.Skipped)
	if err != nil {
		return append(out, Finding{"suite", err.Error()}), checked
	}
	again.WallSeconds = r.WallSeconds
	a, _ := json.Marshal(again)
	b, _ := json.Marshal(r)
	var am, bm any
	_ = json.Unmarshal(a, &am)
	_ = json.Unmarshal(b, &bm)
	diff(&out, &checked, "", bm, am)
	return out, checked
}

// diff appends a finding for every leaf where got (the file) differs
// from want (derived again).
func diff(out *[]Finding, checked *int, path string, got, want any) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*out = append(*out, Finding{path, fmt.Sprintf("is %v, derived %v", got, want)})
			return
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		for k := range g {
			if _, ok := w[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		for _, k := range keys {
			diff(out, checked, path+"."+k, g[k], w[k])
		}
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			*out = append(*out, Finding{path, fmt.Sprintf("has %v, derived %v", got, want)})
			return
		}
		for i := range w {
			diff(out, checked, fmt.Sprintf("%s[%d]", path, i), g[i], w[i])
		}
	default:
		*checked++
		if gf, ok := got.(float64); ok {
			if wf, ok := want.(float64); ok && (gf == wf || math.IsNaN(gf) && math.IsNaN(wf)) {
				return
			}
		} else if got == want {
			return
		}
		*out = append(*out, Finding{path, fmt.Sprintf("is %v, derived %v", got, want)})
	}
}
