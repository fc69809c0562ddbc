package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/report"

	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/suitereport"
)

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
// the idea, then the further idea arms (protocol.Protocol.Ideas), each as
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
func assemble(spec suitereport.Spec, specs []suitereport.TrackSpec, reports []*report.Report, paths, sums []string, heldOut []int, skipped []suitereport.Skipped, held []string) (*suitereport.Report, error) {
	out := &suitereport.Report{SuiteVersion: suitereport.Version, Name: spec.Name, Spec: spec, Skipped: skipped, HeldOut: held}
	o := stats.DefaultSuiteOptions(spec.WithDefaults().MinEffectPct)
	var dir stats.Direction
	groups := map[bool][]int{}            // confirm -> indices of the tracks in the idea's aggregate
	judging := map[bool][]int{}           // confirm -> indices of the tracks that can judge an idea
	inert := make([][]bool, len(reports)) // track -> arm -> inert there (arm 0, the baseline, never)
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
		tr := suitereport.TrackResult{
			Name: t.Name, Track: r.Track, Dataset: t.Dataset, Confirm: t.Confirm,
			Report: paths[i], ReportSHA256: sums[i],
			Baseline: r.Baseline.Full.Mean, Idea: r.Idea.Mean,
			Effects: effects, EffectPct: stats.Pct(mean),
			PValue: r.Comparison.PValue, Verdict: r.Comparison.Verdict, Marks: r.Comparison.Marks,
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
		if r.Comparison.IdeaInert {
			// The track can judge an idea, but not this one: it did not
			// act there, and its zero effect would pull the aggregate
			// toward "practically equivalent".
			tr.Reasons = append(tr.Reasons, "the idea was inert on this track (comparison.idea_inert): its chosen cfg scores within 0.1% of the baseline's same cfg on every seed, so the track says nothing about it")
		}
		tr.InAggregate = tr.CanJudge && !r.Comparison.IdeaInert || spec.IncludeAll
		inert[i] = []bool{false, r.Comparison.IdeaInert && !spec.IncludeAll}
		for _, ir := range r.Ideas {
			inert[i] = append(inert[i], ir.Comparison.IdeaInert && !spec.IncludeAll)
		}
		if tr.CanJudge || spec.IncludeAll {
			judging[t.Confirm] = append(judging[t.Confirm], i)
		}
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
		if len(judging[confirm]) == 0 {
			continue
		}
		agg := &suitereport.Aggregate{Tracks: []string{}}
		var first *stats.SuiteResult
		if len(idx) > 0 {
			var ts []stats.SuiteTrack
			for _, i := range idx {
				ts = append(ts, arms[i])
				agg.Tracks = append(agg.Tracks, specs[i].Name)
			}
			res, err := stats.Suite(ts, dir, o)
			if err != nil {
				return nil, fmt.Errorf("suite: aggregate: %w", err)
			}
			first = &res
		}
		agg.SuiteResult = first
		var err error
		if agg.Ideas, err = ideaArms(specs, judging[confirm], inert, all, names, dir, o, first); err != nil {
			return nil, fmt.Errorf("suite: aggregate: %w", err)
		}
		if first == nil && agg.Ideas == nil {
			continue // the idea was inert wherever a track can judge, and no other arm runs
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

// noTrack is the verdict of an idea arm inert on every track that can
// judge.
const noTrack = "no track can judge this idea (it was inert on every track that can judge one)"

// ideaArms compares every idea arm with the baseline, each over the
// tracks of idx (those that can judge an idea) where that arm was not
// inert (inert[track][arm]), and ranks all arms over all of idx (nil
// when the tracks have one idea arm); first is the first idea's
// aggregate, already computed (nil when it has no track).
func ideaArms(specs []suitereport.TrackSpec, idx []int, inert [][]bool, all [][]stats.Arm, names [][]string, dir stats.Direction, o stats.SuiteOptions, first *stats.SuiteResult) (*suitereport.IdeaArms, error) {
	arms := names[idx[0]]
	for _, i := range idx[1:] {
		if !slices.Equal(names[i], arms) {
			return nil, fmt.Errorf("track %s has the arms %v, track %s %v; a suite compares the same arms on every track", specs[i].Name, names[i], specs[idx[0]].Name, arms)
		}
	}
	if len(arms) <= 2 {
		return nil, nil
	}
	out := &suitereport.IdeaArms{Arms: arms}
	for _, i := range idx {
		out.Tracks = append(out.Tracks, specs[i].Name)
	}
	results := make([]*stats.SuiteResult, len(arms)-1)
	tracks := make([][]string, len(arms)-1)
	for a := 1; a < len(arms); a++ {
		var ts []stats.SuiteTrack
		tracks[a-1] = []string{}
		for _, i := range idx {
			if !inert[i][a] {
				ts = append(ts, stats.SuiteTrack{Baseline: all[i][0], Idea: all[i][a]})
				tracks[a-1] = append(tracks[a-1], specs[i].Name)
			}
		}
		switch {
		case a == 1:
			results[0] = first
		case len(ts) > 0:
			res, err := stats.Suite(ts, dir, o)
			if err != nil {
				return nil, fmt.Errorf("idea arm %s: %w", arms[a], err)
			}
			results[a-1] = &res
		}
	}
	ps := make([]float64, len(results))
	for j, res := range results {
		ps[j] = 1 // no track: no evidence
		if res != nil {
			ps[j] = res.PValue
		}
	}
	for j, q := range stats.Holm(ps) {
		c := suitereport.IdeaComparison{Name: arms[j+1], Tracks: tracks[j], PValue: 1, PValueHolm: 1, Verdict: noTrack, VerdictHolm: noTrack}
		if res := results[j]; res != nil {
			c.MeanPct, c.PValue, c.Verdict = res.MeanPct, res.PValue, res.Verdict
			c.LoPct, c.HiPct = stats.Pct(res.Lo), stats.Pct(res.Hi)
			// The equivalence interval is the arm's own; only the
			// test's p changes.
			c.PValueHolm, c.VerdictHolm = q, stats.SuiteVerdict(q, res.Mean, res.EqLo, res.EqHi, o)
		}
		out.Comparisons = append(out.Comparisons, c)
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
func verdict(r *suitereport.Report) string {
	v := "no track can judge this idea (none can judge an idea, or the idea was inert where one can): nothing to aggregate"
	ranDev := slices.ContainsFunc(r.Tracks, func(t suitereport.TrackResult) bool { return !t.Confirm })
	switch d := r.Development; {
	case d == nil && !ranDev && len(r.Tracks) > 0:
		// A suite of held-out tracks alone (or whose development tracks
		// were all skipped): nothing was developed, which is not the
		// same as every track being unable to judge.
		v = "no development track ran: nothing to aggregate before the held-out tracks"
	case d != nil && d.SuiteResult != nil:
		v = d.Verdict
	case d != nil:
		v += fmt.Sprintf("; the %d further idea arms are compared over the tracks that can judge (development.ideas)", len(d.Ideas.Comparisons)-1)
	}
	ranHeldOut := slices.ContainsFunc(r.Tracks, func(t suitereport.TrackResult) bool { return t.Confirm })
	switch {
	case r.Confirmation != nil && r.Confirmation.SuiteResult != nil:
		v += "; confirmed: " + r.Confirmation.Verdict
	case ranHeldOut:
		v += "; not confirmed: no held-out track can judge this idea"
	case len(r.HeldOut) > 0:
		v += "; confirmation held out"
	}
	return v
}

// readTrack reads a track report and the SHA-256 of its bytes.
func readTrack(path string) (*report.Report, string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(raw)
	r, err := report.Parse(raw, path)
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
func Verify(r *suitereport.Report, path string, opt derive.VerifyOptions) ([]Finding, int) {
	var out []Finding
	checked := 0
	base := filepath.Dir(path)
	var reports []*report.Report
	var paths, sums []string
	var specs []suitereport.TrackSpec
	var heldOut []int
	byName := map[string]suitereport.TrackSpec{}
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
	for _, t := range r.Spec.Ordered() {
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
