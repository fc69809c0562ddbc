package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"

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
	for i, r := range reports {
		if r.Setup == nil {
			return nil, fmt.Errorf("suite: track %s (%s): the report has no setup block (its protocol)", specs[i].Name, paths[i])
		}
		if a := r.Setup.Protocol.Alpha; i == 0 {
			o.Alpha = a
		} else if a != o.Alpha {
			return nil, fmt.Errorf("suite: track %s ran at alpha %v, track %s at %v; a suite's statistics run at one level, so give every track the same alpha", specs[i].Name, a, specs[0].Name, o.Alpha)
		}
	}
	out.Alpha = o.Alpha
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
	var err error
	if out.Ladders, err = ladders(specs, reports, all, names, dir, o.Alpha); err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	out.Verdict = verdict(out)
	for _, t := range out.Tracks {
		if t.HeldOutRuns > 1 {
			out.Warnings = append(out.Warnings, fmt.Sprintf("held-out track %s was reported under %d protocols in this suite's folder: its result was seen before the settings changed, so it confirms nothing; hold out a track nobody has run yet", t.Name, t.HeldOutRuns))
		}
	}
	return out, nil
}

// ladders reads each difficulty ladder of the tracks run (specs[i].Ladder,
// rungs in run order): per idea arm its effect and verdict on every rung
// and the change from the first rung to the last, seed by seed
// (suitereport.LadderArm). A ladder left with fewer than two rungs (a
// data set absent) is left out.
func ladders(specs []suitereport.TrackSpec, reports []*report.Report, all [][]stats.Arm, names [][]string, dir stats.Direction, alpha float64) ([]suitereport.Ladder, error) {
	var order []string
	rungs := map[string][]int{}
	for i, t := range specs {
		if t.Ladder != "" {
			if len(rungs[t.Ladder]) == 0 {
				order = append(order, t.Ladder)
			}
			rungs[t.Ladder] = append(rungs[t.Ladder], i)
		}
	}
	opt := stats.DefaultOptions()
	opt.Alpha = alpha
	var out []suitereport.Ladder
	for _, name := range order {
		idx := rungs[name]
		if len(idx) < 2 {
			continue
		}
		first := idx[0]
		l := suitereport.Ladder{Name: name}
		for _, i := range idx {
			l.Rungs = append(l.Rungs, specs[i].Name)
			switch {
			case !slices.Equal(names[i], names[first]):
				return nil, fmt.Errorf("ladder %s: rung %s has the arms %v, rung %s %v; a ladder compares the same arms on every rung", name, specs[i].Name, names[i], specs[first].Name, names[first])
			case !slices.Equal(reports[i].Setup.Protocol.Seeds, reports[first].Setup.Protocol.Seeds):
				return nil, fmt.Errorf("ladder %s: rung %s ran other seeds than rung %s; a ladder pairs its rungs seed by seed, so give every rung the same seeds", name, specs[i].Name, specs[first].Name)
			}
		}
		for a := 1; a < len(names[first]); a++ {
			la := suitereport.LadderArm{Name: names[first][a]}
			var effects [][]float64
			for _, i := range idx {
				e, err := stats.TrackEffects(stats.SuiteTrack{Baseline: all[i][0], Idea: all[i][a]}, dir)
				if err != nil {
					return nil, fmt.Errorf("ladder %s, rung %s, arm %s: %w", name, specs[i].Name, la.Name, err)
				}
				effects = append(effects, e)
				m, half := stats.Summarize(e).Mean, stats.MDE(e, alpha)
				la.EffectPct = append(la.EffectPct, stats.Pct(m))
				la.LoPct, la.HiPct = append(la.LoPct, stats.Pct(m-half)), append(la.HiPct, stats.Pct(m+half))
				v := reports[i].Comparison.Verdict
				if a > 1 {
					v = reports[i].Ideas[a-2].Comparison.Verdict
				}
				la.Verdicts = append(la.Verdicts, v)
			}
			lo, hi := effects[0], effects[len(effects)-1]
			c, err := stats.Compare(lo, hi, stats.HigherIsBetter, &opt)
			if err != nil {
				return nil, fmt.Errorf("ladder %s, arm %s: %w", name, la.Name, err)
			}
			la.ChangePct, la.ChangeP = 100*c.DeltaMean, c.PValue
			la.Trend = suitereport.LadderTrend(lo, hi, c.PValue, alpha, la.Verdicts)
			l.Arms = append(l.Arms, la)
		}
		out = append(out, l)
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
	raw, err := inputfile.Read(path, report.MaxFileBytes)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(raw)
	r, err := report.Parse(raw, path)
	return r, hex.EncodeToString(sum[:]), err
}

// Finding is one disagreement verify found, or with Note set, one thing
// it could not check and says so.
type Finding struct {
	Path string // what: a track's report, a JSON path of the suite report
	Note string
	// Explained marks a note: what verify could not check (a source
	// absent here), not a mismatch.
	Explained bool
}

func (f Finding) String() string { return f.Path + ": " + f.Note }

// Mismatches are the findings that are not notes.
func Mismatches(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if !f.Explained {
			out = append(out, f)
		}
	}
	return out
}

// Verify checks a suite report read from path against its sources:
//
//  1. the spec against where it came from (Source: the built-in suite,
//     or the suite file read again where it is present, by its SHA-256),
//     with the idea arms the command line added;
//  2. the tracks that ran, were skipped or held out against the spec: a
//     skipped data set is looked for again under the recorded data
//     directory and must give the same reason (a note where its file is
//     there now);
//  3. every track report it names is there with the same SHA-256,
//     verifies on its own (derive.Verify), and records the very protocol
//     the spec builds for that track (TrackProtocol, its data file taken
//     as the report records it);
//  4. each held-out track's count of protocols against its ledger in the
//     suite's folder (Run's <track>.heldout);
//  5. the volatile wall_seconds for range;
//  6. the whole suite report derived again from the track reports and
//     compared leaf by leaf (derive.Diff, with derive's tolerances).
//
// It returns the findings and the number of values checked.
func Verify(r *suitereport.Report, path string, opt derive.VerifyOptions) ([]Finding, int) {
	var out []Finding
	checked := 0
	base := filepath.Dir(path)
	mismatch := func(at, format string, a ...any) {
		out = append(out, Finding{Path: at, Note: fmt.Sprintf(format, a...)})
	}
	note := func(at, format string, a ...any) {
		out = append(out, Finding{Path: at, Note: fmt.Sprintf(format, a...), Explained: true})
	}
	checked++
	if err := r.Spec.Validate(); err != nil {
		mismatch("spec", "%v", err)
		return out, checked
	}
	out = append(out, verifySource(r, base)...)
	checked++
	if (r.DataDir != "") != hasDataset(r.Spec) {
		mismatch("data_dir", "%q, but the spec has %s data set: a suite records where it looked for data sets if and only if it has one", r.DataDir, map[bool]string{true: "a", false: "no"}[hasDataset(r.Spec)])
	}
	checked++
	if w := r.WallSeconds; !(w >= 0) || math.IsInf(w, 0) {
		mismatch("wall_seconds", "%v: not a finite number of seconds >= 0", w)
	}
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
	for i, sk := range r.Skipped {
		checked++
		at := fmt.Sprintf("skipped[%d]", i)
		t, ok := byName[sk.Name]
		switch {
		case !ok:
			mismatch(at, "%s is not a track of the report's spec", sk.Name)
		case t.Dataset == "":
			mismatch(at, "%s is not a data set; only a data set whose file is absent is skipped", sk.Name)
		case skipped[sk.Name]:
			mismatch(at, "%s is listed twice", sk.Name)
		default:
			_, err := TrackProtocol(r.Spec, t, r.DataDir)
			switch {
			case err == nil:
				note(at, "%s was skipped when the suite ran, and its file is under data_dir %s now: rerun the suite to run it", sk.Name, r.DataDir)
			case !errors.Is(err, track.ErrNotFound) || err.Error() != sk.Reason:
				mismatch(at+".reason", "report has %q, looking again under data_dir %q gives %q", sk.Reason, r.DataDir, err)
			}
		}
		skipped[sk.Name] = true
	}
	held := map[string]bool{}
	for _, name := range r.HeldOut {
		checked++
		t, ok := byName[name]
		switch {
		case !ok || !t.Confirm:
			mismatch("held_out", "%s is not a confirmation track of the report's spec", name)
		case held[name] || skipped[name]:
			mismatch("held_out", "%s is listed twice", name)
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
		mismatch("tracks", "the tracks that ran are %v; the spec, less the skipped, runs %v in this order", ran, want)
	}
	for i, t := range r.Tracks {
		at := fmt.Sprintf("tracks[%d]", i)
		spec, ok := byName[t.Name]
		if !ok {
			mismatch(at+".name", "%s is not a track of the report's spec", t.Name)
			continue
		}
		tr, sum, err := readTrack(filepath.Join(base, t.Report))
		checked++
		if err != nil {
			mismatch(at+".report", "%s: %v", t.Report, err)
			continue
		}
		if sum != t.ReportSHA256 {
			mismatch(at+".report_sha256", "report %s has SHA-256 %s, the suite recorded %s: it changed after the suite was written", t.Report, sum, t.ReportSHA256)
		}
		res := derive.Verify(tr, opt)
		for _, f := range res.Mismatches() {
			mismatch(at+".report", "%s: %s", t.Report, f)
		}
		checked += res.Checked
		if k, ok := tr.Setup.Protocol.Kind(); ok && spec.Dataset != "" {
			checked++
			for _, f := range k.Files(&tr.Setup.Protocol.Blocks) {
				if rel, err := filepath.Rel(r.DataDir, f.Path); err != nil || !filepath.IsLocal(rel) {
					mismatch("data_dir", "track %s's report read %s = %s, which is not below data_dir %s, where the suite looked for the data set", t.Name, f.Field, f.Path, r.DataDir)
				}
			}
		}
		fs, n := verifyProtocol(r, spec, tr)
		checked += n
		for _, f := range fs {
			mismatch(at+".report", "%s: setup.protocol%s: the track report has %s, the spec builds %s", t.Report, f.Field, f.Got, f.Want)
		}
		if spec.Confirm {
			checked++
			if f, ok := verifyLedger(filepath.Join(Dir(path), t.Name+".heldout"), tr, t.HeldOutRuns); ok {
				note(at+".held_out_runs", "%s", f)
			} else if f != "" {
				mismatch(at+".held_out_runs", "%s", f)
			}
		}
		reports, paths, sums, specs = append(reports, tr), append(paths, t.Report), append(sums, t.ReportSHA256), append(specs, spec)
		heldOut = append(heldOut, t.HeldOutRuns) // checked against the ledger above
	}
	if len(reports) != len(r.Tracks) {
		return out, checked
	}
	again, err := assemble(r.Spec, specs, reports, paths, sums, heldOut, r.Skipped, r.HeldOut)
	if err != nil {
		return append(out, Finding{Path: "suite", Note: err.Error()}), checked
	}
	again.Source, again.DataDir, again.WallSeconds = r.Source, r.DataDir, r.WallSeconds // checked above
	d := derive.Diff(r, again)
	for _, f := range d.Findings {
		mismatch(f.Field, "report has %s, re-derived %s", f.Got, f.Want)
	}
	return out, checked + d.Checked
}

// verifySource checks the report's spec against its source: the
// built-in suite it names, or its suite file where it is present (as
// recorded, else in the folder of the suite report, base), with the
// idea arms the command line added.
func verifySource(r *suitereport.Report, base string) []Finding {
	src := r.Source
	if src == nil {
		return []Finding{{Path: "source", Note: "not recorded (a suite run from Go): the spec is checked against the track reports that ran, not against a suite file", Explained: true}}
	}
	var want suitereport.Spec
	switch {
	case (src.Builtin == "") == (src.File == ""):
		return []Finding{{Path: "source", Note: "names neither or both of a built-in suite and a suite file; it names one"}}
	case src.Builtin != "":
		s, err := Named(src.Builtin)
		if err != nil {
			return []Finding{{Path: "source.builtin", Note: err.Error()}}
		}
		want = s
	default:
		file := src.File
		if _, err := os.Stat(file); err != nil && !filepath.IsAbs(file) {
			if _, err := os.Stat(filepath.Join(base, filepath.Base(file))); err == nil {
				file = filepath.Join(base, filepath.Base(file))
			}
		}
		s, sum, err := load(file)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return []Finding{{Path: "source.file", Note: fmt.Sprintf("%s is absent here (nor beside the suite report): the spec is checked against the track reports that ran, not against its suite file", src.File), Explained: true}}
		case err != nil:
			return []Finding{{Path: "source.file", Note: err.Error()}}
		case sum != src.FileSHA256:
			return []Finding{{Path: "source.file_sha256", Note: fmt.Sprintf("%s has SHA-256 %s now, the suite recorded %s: the suite file changed after the suite ran", file, sum, src.FileSHA256)}}
		}
		want = s
	}
	want, err := WithIdeas(want, src.AddedIdeas)
	if err != nil {
		return []Finding{{Path: "source.added_ideas", Note: err.Error()}}
	}
	var out []Finding
	for _, f := range derive.Diff(r.Spec, want).Findings {
		out = append(out, Finding{Path: "spec" + dotted(f.Field), Note: fmt.Sprintf("report has %s, its source gives %s", f.Got, f.Want)})
	}
	return out
}

// dotted is a JSON path below another: ".a.b" for "a.b", "[2].a" for
// "[2].a", "" for "".
func dotted(field string) string {
	if field == "" || field[0] == '[' {
		return field
	}
	return "." + field
}

// verifyProtocol builds track spec's protocol from the report's spec as
// Run did (trackChoice), its data set's file taken as the track report tr
// recorded it, and compares it with the protocol tr recorded, leaf by
// leaf. Trainers' file digests are pinned when a trial runs and are
// tr's own (its verify checks them).
func verifyProtocol(r *suitereport.Report, spec suitereport.TrackSpec, tr *report.Report) ([]derive.Finding, int) {
	got := tr.Setup.Protocol
	ch := trackChoice(r.Spec, spec, r.DataDir)
	ch.Recorded = &got
	want, err := protocol.Build(ch)
	if err != nil {
		return []derive.Finding{{Got: "a protocol", Want: fmt.Sprintf("no protocol: %v", err)}}, 1
	}
	for name, t := range want.Trainers {
		if rec := got.Trainers[name]; t != nil && rec != nil {
			c := *t
			c.SHA256 = rec.SHA256
			want.Trainers[name] = &c
		}
	}
	d := derive.Diff(got, want)
	for i := range d.Findings {
		d.Findings[i].Field = dotted(d.Findings[i].Field)
	}
	return d.Findings, d.Checked
}

// verifyLedger checks a held-out track's count of protocols, runs,
// against its ledger: the report's trials must be in it, first reported
// no later than the runs-th protocol, and runs no more than the ledger
// holds. It returns what is wrong, or with ok a note: the ledger grew
// after the report was written (the track was reported under another
// protocol since).
func verifyLedger(path string, tr *report.Report, runs int) (msg string, ok bool) {
	raw, err := inputfile.Read(path, 1<<20)
	if err != nil {
		return fmt.Sprintf("the held-out ledger: %v; it is written beside the track's report when a held-out track runs, and says under how many protocols the track was reported", err), false
	}
	lines := strings.Fields(string(raw))
	at := slices.Index(lines, tr.Setup.TrialsSHA256)
	switch {
	case at < 0:
		return fmt.Sprintf("%d: the ledger %s does not hold the track report's trials (setup.trials_sha256 %s)", runs, path, tr.Setup.TrialsSHA256), false
	case runs < at+1 || runs > len(lines):
		return fmt.Sprintf("%d: the ledger %s holds %d protocols, this report's the %d-th, so a run records %d to %d", runs, path, len(lines), at+1, at+1, len(lines)), false
	case runs < len(lines):
		return fmt.Sprintf("the ledger %s holds %d protocols now, %d when the suite was written: the track was reported under other settings since", path, len(lines), runs), true
	}
	return "", false
}
