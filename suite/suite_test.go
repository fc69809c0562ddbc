package suite

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/jsonstrict/stricttest"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/suitereport"
	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// ciSpec is the CI suite with a csv track on the tiny file of package
// track and a data set that is not there.
func ciSpec(t *testing.T) suitereport.Spec {
	s := CI()
	tiny, err := filepath.Abs("../track/testdata/tiny.csv")
	require.NoError(t, err)
	cfg, _ := json.Marshal(map[string]any{"csv": map[string]any{
		"path": tiny, "target": "OT", "features": []string{"OT"}, "t": 24, "h": 8, "split": "fractions",
	}, "seeds": []int{0, 1, 2, 3}, "arch": map[string]any{"patch": 8}})
	s.Tracks = append(s.Tracks,
		suitereport.TrackSpec{Name: "tiny", Track: "csv", Protocol: cfg, Confirm: true},
		suitereport.TrackSpec{Name: "illness", Dataset: "illness"})
	return s
}

// mismatches verifies r, read from path, and returns its mismatches
// (not its notes) and the number of values checked.
func mismatches(r *suitereport.Report, path string) ([]Finding, int) {
	fs, n := Verify(r, path, derive.VerifyOptions{})
	return Mismatches(fs), n
}

func TestRun(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "suite.json")
	var started []string
	opt := Options{Out: out, DataDir: filepath.Join(dir, "no-data"), Workers: 2, Confirm: true,
		Start: func(name string, i, n int) { started = append(started, name) }}
	r, err := Run(context.Background(), ciSpec(t), opt)
	require.NoError(t, err)

	// Development first, then confirmation; the absent data set skipped.
	require.Equal(t, []string{"panel", "sequence", "tiny"}, started)
	require.Len(t, r.Skipped, 1)
	require.Equal(t, "illness", r.Skipped[0].Name)
	require.Contains(t, r.Skipped[0].Reason, "download it from")
	require.Len(t, r.Tracks, 3)
	require.True(t, r.Tracks[2].Confirm)

	// The aggregates hold the tracks that can judge, and are stats.Suite
	// of those tracks' arms, derived here from the track reports.
	var dev []stats.SuiteTrack
	var devNames []string
	for _, tr := range r.Tracks {
		require.Equal(t, tr.CanJudge, tr.InAggregate, tr.Name)
		rep, err := report.Read(filepath.Join(dir, tr.Report))
		require.NoError(t, err)
		require.Equal(t, rep.Baseline.Full.Mean, tr.Baseline)
		require.Equal(t, rep.Baseline.Full.PerSeed, tr.BaselineTest)
		require.Equal(t, rep.Idea.PerSeed, tr.IdeaTest)
		name, mse := rep.ReferenceForecasters.Best()
		require.Equal(t, name, tr.BestReference)
		require.Equal(t, mse, tr.BestReferenceMSE)
		require.Equal(t, rep.Comparison.Verdict, tr.Verdict)
		if tr.InAggregate && !tr.Confirm {
			a, err := trackArms(rep)
			require.NoError(t, err)
			dev, devNames = append(dev, a), append(devNames, tr.Name)
		}
	}
	if len(dev) > 0 {
		want, err := stats.Suite(dev, stats.LowerIsBetter, stats.DefaultSuiteOptions(1))
		require.NoError(t, err)
		require.Equal(t, devNames, r.Development.Tracks)
		require.Equal(t, &want, r.Development.SuiteResult)
		require.True(t, strings.HasPrefix(r.Verdict, want.Verdict), r.Verdict)
	} else {
		require.Nil(t, r.Development)
	}

	// Verify: clean, then a changed track report is named.
	back, err := suitereport.Read(out)
	require.NoError(t, err)
	fs, n := mismatches(back, out)
	require.Empty(t, fs)
	require.Greater(t, n, 100)

	// A rerun reuses every trial and writes the same reports.
	first, err := os.ReadFile(filepath.Join(dir, r.Tracks[0].Report))
	require.NoError(t, err)
	var computed int
	opt.Finish = func(_ string, r *report.Report) { computed += r.Run.TrialsRun }
	r2, err := Run(context.Background(), ciSpec(t), opt)
	require.NoError(t, err)
	require.Zero(t, computed)
	r2.WallSeconds = r.WallSeconds
	require.Equal(t, r.Development, r2.Development)
	require.Equal(t, r.Confirmation, r2.Confirmation)
	_ = first

	// Tampering: a track report's number, and the suite's own.
	trackPath := filepath.Join(dir, r2.Tracks[0].Report)
	raw, err := os.ReadFile(trackPath)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(trackPath, []byte(strings.Replace(string(raw), `"n_seeds": `, `"n_seeds": 1`, 1)), 0o644))
	back, err = suitereport.Read(out)
	require.NoError(t, err)
	fs, _ = mismatches(back, out)
	require.NotEmpty(t, fs)
	require.Contains(t, fs[0].String(), "SHA-256")
	require.NoError(t, os.WriteFile(trackPath, raw, 0o644))

	if back.Development != nil {
		back.Development.Mean += 1e-9
		fs, _ = mismatches(back, out)
		require.Len(t, fs, 1)
		require.Equal(t, "development.mean", fs[0].Path)
		back.Development.Mean -= 1e-9
	}

	// A track moved from the tracks to the skipped ones, or listed
	// twice, is named.
	moved, err := suitereport.Read(out)
	require.NoError(t, err)
	moved.Skipped = append(moved.Skipped, suitereport.Skipped{Name: moved.Tracks[1].Name, Reason: "absent"})
	moved.Tracks = append(moved.Tracks[:1], moved.Tracks[2:]...)
	fs, _ = mismatches(moved, out)
	require.NotEmpty(t, fs)
	require.Contains(t, fs[0].String(), "not a data set")
	twice, err := suitereport.Read(out)
	require.NoError(t, err)
	twice.Tracks = append(twice.Tracks, twice.Tracks[0])
	fs, _ = mismatches(twice, out)
	require.NotEmpty(t, fs)
	require.Contains(t, fs[0].String(), "in this order")

	// The held-out track: reported once under this protocol, so no
	// warning; run under another protocol, it confirms nothing.
	require.Equal(t, 1, r2.Tracks[2].HeldOutRuns)
	require.Empty(t, r2.Warnings)
	changed := ciSpec(t)
	changed.Tracks[2].Protocol = json.RawMessage(strings.Replace(string(changed.Tracks[2].Protocol), `"seeds":[0,1,2,3]`, `"seeds":[0,1,2,3,4]`, 1))
	require.NotEqual(t, ciSpec(t).Tracks[2].Protocol, changed.Tracks[2].Protocol)
	r3, err := Run(context.Background(), changed, Options{Out: out, DataDir: opt.DataDir, Workers: 2, Confirm: true})
	require.NoError(t, err)
	require.Equal(t, 2, r3.Tracks[2].HeldOutRuns)
	require.Len(t, r3.Warnings, 1)
	require.Contains(t, r3.Warnings[0], "held-out track tiny was reported under 2 protocols")
	back3, err := suitereport.Read(out)
	require.NoError(t, err)
	fs, _ = mismatches(back3, out)
	require.Empty(t, fs)
	back3.Warnings = nil
	fs, _ = mismatches(back3, out)
	require.NotEmpty(t, fs)

	// A report path without .json is refused before anything runs.
	_, err = Run(context.Background(), ciSpec(t), Options{Out: filepath.Join(dir, "noext")})
	require.ErrorContains(t, err, "must end in .json")
}

func TestSpecValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    suitereport.Spec
		want string
	}{
		{"no_tracks", suitereport.Spec{Name: "x"}, "tracks: empty"},
		{"bad_name", suitereport.Spec{Tracks: []suitereport.TrackSpec{{Name: "a/b", Track: "panel"}}}, "tracks[0].name"},
		{"twice", suitereport.Spec{Tracks: []suitereport.TrackSpec{{Name: "a", Track: "panel"}, {Name: "A", Track: "sequence"}}}, "names must differ"},
		{"unknown_dataset", suitereport.Spec{Tracks: []suitereport.TrackSpec{{Name: "a", Dataset: "nope"}}}, "not a known data set"},
		{"nothing", suitereport.Spec{Tracks: []suitereport.TrackSpec{{Name: "a"}}}, "neither track nor dataset"},
		{"profile", suitereport.Spec{Profile: "seed", Tracks: []suitereport.TrackSpec{{Name: "a", Track: "panel"}}}, "profile"},
		{"min_effect", suitereport.Spec{MinEffectPct: -1, Tracks: []suitereport.TrackSpec{{Name: "a", Track: "panel"}}}, "min_effect_pct"},
		{"idea", suitereport.Spec{Ideas: []string{"nope"}, Tracks: []suitereport.TrackSpec{{Name: "a", Track: "panel"}}}, `ideas[0] = "nope"`},
		{"idea_twice", suitereport.Spec{Ideas: []string{"conv", "conv"}, Tracks: []suitereport.TrackSpec{{Name: "a", Track: "panel"}}}, "given twice"},
	} {
		t.Run(tc.name, func(t *testing.T) { require.ErrorContains(t, tc.s.Validate(), tc.want) })
	}
	require.NoError(t, Default().Validate())
	require.NoError(t, CI().Validate())
}

// TestMinEffectPctAgrees: a suite's min_effect_pct and a protocol's
// follow one rule (stats.CheckMinEffectPct); before, the suite took
// (0, 1000] and the protocol [0, 100).
func TestMinEffectPctAgrees(t *testing.T) {
	for _, v := range []float64{-1, 0, 0.5, 1, 99.9, 100, 150, 1000, math.NaN(), math.Inf(1)} {
		t.Run(fmt.Sprint(v), func(t *testing.T) {
			s := suitereport.Spec{MinEffectPct: v, Tracks: []suitereport.TrackSpec{{Name: "a", Track: "panel"}}}
			p := protocol.CIProfile()
			p.MinEffectPct = v
			suiteErr, protoErr := s.Validate(), p.Validate()
			require.Equal(t, protoErr == nil, suiteErr == nil, "suite: %v; protocol: %v", suiteErr, protoErr)
			require.Equal(t, stats.CheckMinEffectPct(v) == nil, protoErr == nil)
		})
	}
}

func TestTrackProtocol(t *testing.T) {
	s := Default()
	_, err := TrackProtocol(s, s.Tracks[2], t.TempDir()) // ETTh1, absent
	require.True(t, errors.Is(err, track.ErrNotFound), "%v", err)
	p, err := TrackProtocol(s, s.Tracks[0], "")
	require.NoError(t, err)
	require.Equal(t, "panel", p.Track)
	// The suite's protocol, then the track's, over the profile.
	s.Protocol = json.RawMessage(`{"seeds": [0, 1, 2]}`)
	s.Tracks[0].Protocol = json.RawMessage(`{"alpha": 0.1}`)
	p, err = TrackProtocol(s, s.Tracks[0], "")
	require.NoError(t, err)
	require.Equal(t, []uint64{0, 1, 2}, p.Seeds)
	require.Equal(t, 0.1, p.Alpha)
	// Ideas add arms on the baseline's grid.
	s.Ideas = []string{"conv", "gate:rho=0.9,beta=0.5"}
	p, err = TrackProtocol(s, s.Tracks[0], "")
	require.NoError(t, err)
	require.Len(t, p.Ideas, 2)
	require.Equal(t, "gate:rho=0.9,beta=0.5", p.Ideas[1].Name)
	require.Len(t, p.Ideas[0].Grid, len(p.Baseline))
	require.Equal(t, "conv", p.Ideas[0].Grid[0].Idea)
	require.Equal(t, 0.9, p.Ideas[1].Grid[0].Rho)
	require.Equal(t, p.Baseline[1].LR, p.Ideas[0].Grid[1].LR)
	// The full profile's idea arm is the gate over its space: the same
	// arm again is refused.
	s.Ideas = []string{"gate"}
	_, err = TrackProtocol(s, s.Tracks[0], "")
	require.ErrorContains(t, err, "arms gate and idea are one arm")
	s.Ideas = nil
	// The track's patch over the suite's protocol; its own protocol last.
	s.Protocol = json.RawMessage(`{"arch": {"patch": 8}}`)
	s.Tracks[0].Patch, s.Tracks[0].Protocol = 4, nil
	p, err = TrackProtocol(s, s.Tracks[0], "")
	require.NoError(t, err)
	require.Equal(t, 4, p.Arch.Patch)
	s.Tracks[0].Protocol = json.RawMessage(`{"arch": {"patch": 2}}`)
	p, err = TrackProtocol(s, s.Tracks[0], "")
	require.NoError(t, err)
	require.Equal(t, 2, p.Arch.Patch)
	s.Protocol, s.Tracks[0].Patch = nil, 0
	// Channels over a csv block the track's protocol gives.
	tiny, err := filepath.Abs("../track/testdata/tiny.csv")
	require.NoError(t, err)
	csv := suitereport.TrackSpec{Name: "c", Track: "csv", Channels: "independent",
		Protocol: json.RawMessage(`{"csv": {"path": "` + tiny + `", "t": 24, "h": 8, "split": "fractions"}, "arch": {"patch": 8}}`)}
	p, err = TrackProtocol(s, csv, "")
	require.NoError(t, err)
	require.Equal(t, "independent", p.CSV.Channels)
	csv.Protocol = nil
	_, err = TrackProtocol(s, csv, "")
	require.ErrorContains(t, err, "needs a csv track")
	s.Tracks[0].Protocol = json.RawMessage(`{"sequential": {"max_seeds": 16}}`)
	_, err = TrackProtocol(s, s.Tracks[0], "")
	require.ErrorContains(t, err, "sequential")
	s.Tracks[0].Protocol = json.RawMessage(`{"nope": 1}`)
	_, err = TrackProtocol(s, s.Tracks[0], "")
	require.ErrorContains(t, err, "nope")
}

// TestDefaultOnSharedData builds every track of the default suite from
// ../shared/data when it is there.
func TestDefaultOnSharedData(t *testing.T) {
	dir := "../../shared/data"
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no ../shared/data")
	}
	s := Default()
	for _, tr := range s.Tracks {
		p, err := TrackProtocol(s, tr, dir)
		if errors.Is(err, track.ErrNotFound) {
			continue
		}
		require.NoError(t, err, tr.Name)
		if tr.Dataset != "" {
			require.Equal(t, "csv", p.Track)
		}
	}
}

// TestSeveralIdeas: tracks whose protocols compare a further idea arm
// give each idea's aggregate against the baseline, Holm-adjusted, and
// the Friedman ranks of every arm.
func TestSeveralIdeas(t *testing.T) {
	s := CI()
	s.IncludeAll = true
	for i := range s.Tracks {
		grid := protocol.CIProfileFor(s.Tracks[i].Track).Baseline
		for j := range grid {
			grid[j].Idea = "conv"
		}
		raw, err := json.Marshal(map[string]any{"ideas": []protocol.IdeaArm{{Name: "conv", Grid: grid}}})
		require.NoError(t, err)
		s.Tracks[i].Protocol = raw
	}
	dir := t.TempDir()
	r, err := Run(context.Background(), s, Options{Out: filepath.Join(dir, "s.json"), Workers: 2})
	require.NoError(t, err)
	d := r.Development
	require.NotNil(t, d)
	require.NotNil(t, d.Ideas)
	require.Equal(t, []string{"baseline", "idea", "conv"}, d.Ideas.Arms)
	require.Len(t, d.Ideas.Comparisons, 2)
	first := d.Ideas.Comparisons[0]
	require.Equal(t, d.PValue, first.PValue)
	require.Equal(t, d.MeanPct, first.MeanPct)
	require.Equal(t, stats.Pct(d.Lo), first.LoPct, "the first idea's interval is the aggregate's")
	require.Equal(t, stats.Pct(d.Hi), first.HiPct)
	require.Less(t, first.LoPct, first.HiPct)
	holm := stats.Holm([]float64{first.PValue, d.Ideas.Comparisons[1].PValue})
	require.Equal(t, holm, []float64{first.PValueHolm, d.Ideas.Comparisons[1].PValueHolm})
	require.Len(t, d.Ideas.Friedman.Ranks, 3)
	var sum float64
	for _, rk := range d.Ideas.Friedman.Ranks {
		sum += rk
	}
	require.InDelta(t, 6, sum, 1e-12) // ranks 1..3 on every track

	back, err := suitereport.Read(filepath.Join(dir, "s.json"))
	require.NoError(t, err)
	fs, _ := mismatches(back, filepath.Join(dir, "s.json"))
	require.Empty(t, fs)

	// Each arm is judged where it acts: with the first idea inert on
	// every track, its statistics are absent and its row says why, while
	// conv is still compared over the tracks that can judge.
	var reports []*report.Report
	var paths, sums []string
	for _, tr := range r.Tracks {
		rep, err := report.Read(filepath.Join(dir, tr.Report))
		require.NoError(t, err)
		rep.Comparison.IdeaInert = true
		reports, paths, sums = append(reports, rep), append(paths, tr.Report), append(sums, tr.ReportSHA256)
	}
	strict := r.Spec
	strict.IncludeAll = false
	got, err := assemble(strict, strict.Tracks, reports, paths, sums, make([]int, len(reports)), nil, nil)
	require.NoError(t, err)
	require.NotNil(t, got.Development)
	require.Nil(t, got.Development.SuiteResult)
	require.Empty(t, got.Development.Tracks)
	ia := got.Development.Ideas
	require.Equal(t, []string{"panel"}, ia.Tracks, "the ci panel can judge, the sequence track cannot")
	gate, conv := ia.Comparisons[0], ia.Comparisons[1]
	require.Empty(t, gate.Tracks)
	require.Equal(t, 1.0, gate.PValue)
	require.Equal(t, noTrack, gate.VerdictHolm)
	require.Equal(t, []string{"panel"}, conv.Tracks)
	all, _, err := armsOf(reports[0])
	require.NoError(t, err)
	want, err := stats.Suite([]stats.SuiteTrack{{Baseline: all[0], Idea: all[2]}}, stats.LowerIsBetter, stats.DefaultSuiteOptions(1))
	require.NoError(t, err)
	require.Equal(t, want.PValue, conv.PValue)
	require.Equal(t, []float64{want.MeanPct, stats.Pct(want.Lo), stats.Pct(want.Hi)}, []float64{conv.MeanPct, conv.LoPct, conv.HiPct})
	require.Equal(t, []float64{0, 0, 0}, []float64{gate.MeanPct, gate.LoPct, gate.HiPct}, "no track: no effect")
	require.Equal(t, stats.Holm([]float64{1, want.PValue})[1], conv.PValueHolm)
	require.Contains(t, got.Verdict, "further idea arms are compared")

	// A ladder over the two tracks: each arm's effect on each rung is
	// its track effect, and the change the sign-flip test on the
	// per-seed effects of the last rung minus the first.
	laddered := r.Spec
	laddered.Tracks = slices.Clone(r.Spec.Tracks)
	for i := range laddered.Tracks {
		laddered.Tracks[i].Ladder = "demo"
	}
	require.NoError(t, laddered.Validate())
	lg, err := assemble(laddered, laddered.Tracks, reports, paths, sums, make([]int, len(reports)), nil, nil)
	require.NoError(t, err)
	require.Len(t, lg.Ladders, 1)
	l := lg.Ladders[0]
	require.Equal(t, []string{r.Tracks[0].Name, r.Tracks[1].Name}, l.Rungs)
	require.Len(t, l.Arms, 2)
	lc := l.Arms[1]
	require.Equal(t, "conv", lc.Name)
	var es [][]float64
	for i, rep := range reports {
		a, _, err := armsOf(rep)
		require.NoError(t, err)
		e, err := stats.TrackEffects(stats.SuiteTrack{Baseline: a[0], Idea: a[2]}, stats.LowerIsBetter)
		require.NoError(t, err)
		es = append(es, e)
		require.Equal(t, stats.Pct(stats.Summarize(e).Mean), lc.EffectPct[i])
		require.Equal(t, rep.Ideas[0].Comparison.Verdict, lc.Verdicts[i])
	}
	change, err := stats.Compare(es[0], es[1], stats.HigherIsBetter, nil)
	require.NoError(t, err)
	require.Equal(t, change.PValue, lc.ChangeP)
	require.InDelta(t, 100*change.DeltaMean, lc.ChangePct, 1e-12)
	require.Equal(t, suitereport.LadderTrend(es[0], es[1], change.PValue, 0.05, lc.Verdicts), lc.Trend)
	one := laddered
	one.Tracks = slices.Clone(laddered.Tracks)
	one.Tracks[1].Ladder = ""
	require.ErrorContains(t, one.Validate(), `tracks[0].ladder = "demo": a ladder of one rung`)

	// Arms that differ between the tracks of one aggregate are refused.
	s.Tracks[1].Protocol = nil
	_, err = Run(context.Background(), s, Options{Out: filepath.Join(dir, "s.json"), Workers: 2})
	require.ErrorContains(t, err, "the same arms on every track")
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "s.json")
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	s, err := Load(write(`{"name": "mine", "min_effect_pct": 2, "tracks": [{"name": "ILI", "dataset": "illness", "patch": 12}, {"name": "sun", "dataset": "sunspots", "confirm": true}]}`))
	require.NoError(t, err)
	require.Equal(t, 2.0, s.WithDefaults().MinEffectPct)
	require.Equal(t, "full", s.WithDefaults().Profile)
	require.Equal(t, []string{"ILI", "sun"}, []string{s.Ordered()[0].Name, s.Ordered()[1].Name})
	_, err = Load(write(`{"name": "x", "tracks": [{"name": "a", "track": "panel", "lr": 1}]}`))
	require.ErrorContains(t, err, `unknown field "lr"`)
	_, err = Load(write(`{"name": "x", "tracks": []}`))
	require.ErrorContains(t, err, "tracks: empty")
	_, err = Load(filepath.Join(dir, "nope.json"))
	require.ErrorContains(t, err, "nope.json")
}

// TestExampleSuites: each suite file under examples/suites names tracks of
// a built-in suite and builds for each the very protocol that suite
// builds for its track of the same name, so its trials and numbers are
// the built-in suite's. recall-heldout.json is the recall suite's
// held-out tracks, panel.json the default suite's panel track.
func TestExampleSuites(t *testing.T) {
	for _, tc := range []struct {
		file   string
		parent suitereport.Spec
		keep   func(suitereport.TrackSpec) bool
	}{
		{"recall-heldout.json", Recall(), func(tr suitereport.TrackSpec) bool { return tr.Confirm }},
		{"panel.json", Default(), func(tr suitereport.TrackSpec) bool { return tr.Name == "panel" }},
	} {
		t.Run(tc.file, func(t *testing.T) {
			s, err := Load("../examples/suites/" + tc.file)
			require.NoError(t, err)
			require.Equal(t, tc.parent.MinEffectPct, s.MinEffectPct)
			var want []suitereport.TrackSpec
			for _, tr := range tc.parent.Tracks {
				if tc.keep(tr) {
					want = append(want, tr)
				}
			}
			require.Len(t, s.Tracks, len(want))
			for i, tr := range s.Tracks {
				t.Run(tr.Name, func(t *testing.T) {
					require.Equal(t, want[i].Name, tr.Name)
					require.Equal(t, want[i].Confirm, tr.Confirm, "held out in the file as in the suite")
					wp, err := TrackProtocol(tc.parent, want[i], "")
					require.NoError(t, err)
					gp, err := TrackProtocol(s, tr, "")
					require.NoError(t, err)
					require.Equal(t, wp, gp)
				})
			}
		})
	}
}

// TestControl runs two A/A blocks of the ci suite: the counts add up,
// the seeds are the disjoint blocks of harness.ControlSeeds, each block's
// aggregate is stats.Suite of its tracks, and a rerun trains nothing.
func TestControl(t *testing.T) {
	dir := t.TempDir()
	res, err := Control(context.Background(), CI(), idea.Config{Name: "aa"}, 2, 1000, dir, "", harness.Options{Workers: 2}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"panel", "sequence"}, res.Tracks)
	require.Len(t, res.PerBlock, 2)
	require.Equal(t, 2, res.Better+res.Worse+res.Equivalent+res.Undecided+res.NoAggregate)
	p, err := TrackProtocol(CI(), CI().Tracks[0], "")
	require.NoError(t, err)
	require.Equal(t, harness.ControlSeeds(p, 1000, 1), res.PerBlock[1].Seeds)
	require.Equal(t, res.Better, res.BetterRate.K)
	require.InDelta(t, float64(res.Equivalent)/2, res.EquivalentRate.Rate, 1e-12)
	for _, b := range res.PerBlock {
		if len(b.Tracks) == 0 {
			continue // no track could judge
		}
		require.Contains(t, []string{stats.SuiteBetter, stats.SuiteWorse, stats.SuiteEquivalent, stats.SuiteUndecided}, b.Verdict)
		require.LessOrEqual(t, b.EqLoPct, b.EqHiPct)
	}
	again, err := Control(context.Background(), CI(), idea.Config{Name: "aa"}, 2, 1000, dir, "", harness.Options{Workers: 2}, nil)
	require.NoError(t, err)
	require.Equal(t, res, again)
	// include_all aggregates every development track.
	all := CI()
	all.IncludeAll = true
	res, err = Control(context.Background(), all, idea.Config{Name: "aa"}, 2, 1000, dir, "", harness.Options{Workers: 2}, nil)
	require.NoError(t, err)
	require.Equal(t, []string{"panel", "sequence"}, res.PerBlock[0].Tracks)

	_, err = Control(context.Background(), CI(), idea.Config{Name: "nope"}, 2, 0, dir, "", harness.Options{}, nil)
	require.ErrorContains(t, err, "nope")
	_, err = Control(context.Background(), CI(), idea.Config{Name: "aa"}, 0, 0, dir, "", harness.Options{}, nil)
	require.ErrorContains(t, err, "blocks = 0")
}

// TestShards: a suite run in two shards into one folder, then once
// without a shard, trains nothing more and writes the report of a run
// in one go.
func TestShards(t *testing.T) {
	dir := t.TempDir()
	sharded := filepath.Join(dir, "a", "s.json")
	for i := range 2 {
		r, err := Run(context.Background(), CI(), Options{Out: sharded, Workers: 2, Shard: i, Shards: 2})
		require.NoError(t, err)
		require.Nil(t, r)
	}
	computed, extended := 0, 0
	merged, err := Run(context.Background(), CI(), Options{Out: sharded, Workers: 2,
		Finish: func(_ string, r *report.Report) {
			computed += r.Run.TrialsRun
			p := r.Setup.Protocol
			extended += (len(r.Baseline.Sweep) - len(p.Baseline) + len(r.MechanismSignature.IdeaSweep) - len(p.Idea)) * r.NSeeds
		}})
	require.NoError(t, err)
	// The shards train the starting grids; the grid extension's later
	// rounds, which need every shard's results to decide, run here.
	require.Positive(t, extended, "the ci panel track's choice is on its grid's edge")
	require.Equal(t, extended, computed, "the unsharded call reuses every trial of the shards")
	whole, err := Run(context.Background(), CI(), Options{Out: filepath.Join(dir, "b", "s.json"), Workers: 2})
	require.NoError(t, err)
	require.Equal(t, whole.Development, merged.Development)
	for i := range whole.Tracks {
		w, m := whole.Tracks[i], merged.Tracks[i]
		w.ReportSHA256, m.ReportSHA256 = "", "" // the run blocks differ
		require.Equal(t, w, m)
	}
}

// TestHeldOut: without Confirm the confirmation tracks do not run; the
// report names them and verifies, and its verdict says so.
func TestHeldOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "s.json")
	r, err := Run(context.Background(), ciSpec(t), Options{Out: out, DataDir: dir, Workers: 2})
	require.NoError(t, err)
	require.Equal(t, []string{"tiny"}, r.HeldOut)
	require.Len(t, r.Tracks, 2)
	require.Nil(t, r.Confirmation)
	require.True(t, strings.HasSuffix(r.Verdict, "; confirmation held out"), r.Verdict)
	_, err = os.Stat(filepath.Join(dir, "s", "tiny.trials"))
	require.True(t, os.IsNotExist(err), "a held-out track trains nothing")
	back, err := suitereport.Read(out)
	require.NoError(t, err)
	fs, _ := mismatches(back, out)
	require.Empty(t, fs)
	back.HeldOut = []string{"panel"}
	fs, _ = mismatches(back, out)
	require.NotEmpty(t, fs)
	require.Contains(t, fs[0].String(), "not a confirmation track")
}

// TestLoadStrict: a suite file with trailing data or an unknown key is
// refused where the fault is.
func TestLoadStrict(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.json")
	stricttest.Refuses(t, []byte("{\"name\": \"x\",\n \"tracks\": [{\"name\": \"panel\", \"track\": \"panel\"}]}\n"), func(raw []byte) error {
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		_, err := Load(path)
		return err
	})
}

// TestInertTrackLeftOut: a track that can judge an idea, where the idea
// was inert (comparison.idea_inert), is left out of the aggregate with
// the reason, and its row carries the verdict's mark; with no track left
// the suite says so instead of a verdict.
func TestInertTrackLeftOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "suite.json")
	r, err := Run(context.Background(), CI(), Options{Out: out, Workers: 2})
	require.NoError(t, err)
	require.True(t, r.Tracks[0].InAggregate, "the ci panel track can judge")
	var reports []*report.Report
	var paths, sums []string
	for _, tr := range r.Tracks {
		rep, err := report.Read(filepath.Join(dir, tr.Report))
		require.NoError(t, err)
		reports, paths, sums = append(reports, rep), append(paths, tr.Report), append(sums, tr.ReportSHA256)
	}
	inert := "idea inert: its chosen cfg scores within 0.1% of the baseline's same cfg on every seed"
	reports[0].Comparison.IdeaInert, reports[0].Comparison.Marks = true, []string{inert}
	got, err := assemble(r.Spec, r.Spec.Tracks, reports, paths, sums, make([]int, len(reports)), nil, nil)
	require.NoError(t, err)
	panel := got.Tracks[0]
	require.True(t, panel.CanJudge)
	require.False(t, panel.InAggregate)
	require.Contains(t, panel.Reasons[len(panel.Reasons)-1], "the idea was inert on this track")
	require.Equal(t, []string{inert}, panel.Marks)
	require.Equal(t, "no significant win [IDEA INERT]", panel.VerdictTag())
	require.Nil(t, got.Development)
	require.True(t, strings.HasPrefix(got.Verdict, "no track can judge this idea"), got.Verdict)
}

// TestVerdictHeldOut: the suite's verdict says what became of its
// held-out tracks: confirmed, held out (not run yet), or run and left
// out of their aggregate (none can judge this idea); and a suite of
// held-out tracks alone says that no development track ran, not that
// none can judge.
func TestVerdictHeldOut(t *testing.T) {
	dev := &suitereport.Aggregate{SuiteResult: &stats.SuiteResult{Verdict: stats.SuiteWorse}}
	for _, tc := range []struct {
		name string
		r    suitereport.Report
		want string
	}{
		{"confirmed", suitereport.Report{Development: dev, Confirmation: dev, Tracks: []suitereport.TrackResult{{Confirm: true, InAggregate: true}}}, "worse; confirmed: worse"},
		{"held_out", suitereport.Report{Development: dev, HeldOut: []string{"sunspots"}}, "worse; confirmation held out"},
		{"inert_held_out", suitereport.Report{Development: dev, Tracks: []suitereport.TrackResult{{Name: "sunspots", Confirm: true}}}, "worse; not confirmed: no held-out track can judge this idea"},
		{"held_out_only", suitereport.Report{Confirmation: dev, Tracks: []suitereport.TrackResult{{Name: "selective-copy", Confirm: true, InAggregate: true}}}, "no development track ran: nothing to aggregate before the held-out tracks; confirmed: worse"},
		{"none", suitereport.Report{}, "no track can judge this idea (none can judge an idea, or the idea was inert where one can): nothing to aggregate"},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, verdict(&tc.r)) })
	}
}

// TestBuiltinSuites: every built-in suite validates and plans (each
// track's protocol builds), and the recall ladder gives each task its
// rungs in order, the recall suite's size among them.
func TestBuiltinSuites(t *testing.T) {
	for _, name := range Names() {
		t.Run(name, func(t *testing.T) {
			s, err := Named(name)
			require.NoError(t, err)
			require.NoError(t, s.Validate())
			for _, tr := range s.Tracks {
				if tr.Dataset != "" {
					continue // found under a data directory, or skipped
				}
				_, err := TrackProtocol(s, tr, t.TempDir())
				require.NoError(t, err, tr.Name)
			}
		})
	}
	l := RecallLadder()
	ladders := map[string][]string{}
	for _, tr := range l.Tracks {
		ladders[tr.Ladder] = append(ladders[tr.Ladder], tr.Name)
	}
	require.Equal(t, map[string][]string{
		"mqar-pairs":          {"mqar-pairs2", "mqar-pairs4", "mqar-pairs8"},
		"forget-mqar-updates": {"forget-mqar-updates0", "forget-mqar-updates1", "forget-mqar-updates2"},
		"fuzzy-recall-motif":  {"fuzzy-recall-motif2", "fuzzy-recall-motif3"},
		"noisy-recall-noise":  {"noisy-recall-noise0.1", "noisy-recall-noise0.2", "noisy-recall-noise0.4"},
	}, ladders)
	// The middle rung of MQAR is the recall suite's track, protocol for
	// protocol.
	rec, err := TrackProtocol(Recall(), Recall().Tracks[0], t.TempDir())
	require.NoError(t, err)
	mid, err := TrackProtocol(l, l.Tracks[1], t.TempDir())
	require.NoError(t, err)
	require.Equal(t, rec.ID(), mid.ID())
}
