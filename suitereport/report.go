package suitereport

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/internal/jsonstrict"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
)

// Version is the suite report's format; verify refuses another. 2: an
// aggregate's idea arms are each compared over the tracks that can judge
// where that arm is not inert (IdeaComparison.Tracks), and the first
// idea's statistics are absent where it was inert on all of them. 3:
// each idea arm's comparison carries its effect's interval
// (IdeaComparison.LoPct, HiPct). 4: the report records where its spec
// came from (Source), the data directory (DataDir) and the level its
// statistics ran at (Alpha, the tracks' own), and verify binds all three.
// 5: difficulty ladders (TrackSpec.Ladder, Ladders).
const Version = 5

// Report is a suite's result: each track's report (a file beside it) and
// the aggregates of the development and the confirmation tracks.
type Report struct {
	SuiteVersion int    `json:"suite_version"`
	Name         string `json:"name"`
	Spec         Spec   `json:"spec"`
	// Source is where Spec came from, which verify reads again; nil for
	// a suite run from Go with a spec of its own (verify then says that
	// the spec is bound by the track reports alone).
	Source *Source `json:"source,omitempty"`
	// DataDir is the directory the data sets were looked for under
	// (suite.Options.DataDir), recorded where the spec has one: verify
	// looks there again for the skipped ones, and checks that the data
	// sets that ran were read from below it.
	DataDir string `json:"data_dir,omitempty"`
	// Alpha is the level the suite's statistics ran at: the aggregates'
	// tests and intervals at 1 - Alpha (the equivalence interval at
	// 1 - 2·Alpha) and each track's effect interval at 1 - Alpha. It is
	// the alpha of the tracks' protocols, which a suite's tracks share
	// (0.05 where no track ran).
	Alpha float64 `json:"alpha"`
	// Tracks are the tracks that ran, in the order they ran.
	Tracks []TrackResult `json:"tracks"`
	// Skipped are the tracks that did not run (their data set is not
	// under the data directory), with the reason.
	Skipped []Skipped `json:"skipped,omitempty"`
	// HeldOut names the confirmation tracks not run in this report:
	// they run with suite.Options.Confirm (ideabench suite --confirm), once the
	// idea's settings are settled on the development tracks.
	HeldOut []string `json:"held_out,omitempty"`
	// Development is the aggregate over the development tracks that can
	// judge an idea (every development track with Spec.IncludeAll);
	// Confirmation over the confirmation tracks alike. Nil where no
	// track can judge an idea, or the idea (and every further idea arm)
	// was inert on each that can.
	Development  *Aggregate `json:"development,omitempty"`
	Confirmation *Aggregate `json:"confirmation,omitempty"`
	// Ladders are the suite's difficulty ladders (TrackSpec.Ladder): per
	// idea arm, its effect on each rung and how it moves from the first
	// rung to the last.
	Ladders []Ladder `json:"ladders,omitempty"`
	// Verdict is the development aggregate's verdict, then the
	// confirmation's where there is one ("better; confirmed: better"),
	// or "; confirmation held out" where its tracks did not run.
	Verdict string `json:"verdict"`
	// Warnings name what weakens the verdict: a held-out track reported
	// under more than one protocol (TrackResult.HeldOutRuns).
	Warnings []string `json:"warnings,omitempty"`
	// WallSeconds is the time the call that wrote the report took
	// (trials reused from the store cost next to nothing); volatile,
	// nothing is derived from it, and verify checks only that it is a
	// finite number of seconds >= 0.
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
	// PValue and Verdict are the track report's own headline, Marks
	// what qualifies it there (report.Comparison.Marks: "unequal
	// budget", "idea inert"), shown beside it (VerdictLine).
	PValue  float64  `json:"p_value"`
	Verdict string   `json:"verdict"`
	Marks   []string `json:"marks,omitempty"`
	// CanJudge and Reasons are the track report's informativeness.
	CanJudge bool     `json:"can_judge"`
	Reasons  []string `json:"reasons,omitempty"`
	// InAggregate says whether the track enters its aggregate: it can
	// judge an idea and the idea was not inert there (Reasons says
	// why not), or the spec includes every track.
	InAggregate bool `json:"in_aggregate"`
	// HeldOutRuns, on a confirmation track, is how many different
	// protocols (their trials, report.Setup.TrialsSHA256) this suite's
	// folder has reported the track under, this one included: a second
	// one means its result was seen before the settings changed, so it
	// no longer confirms anything (Report.Warnings says so).
	HeldOutRuns int `json:"held_out_runs,omitempty"`
}

// Source is where a suite report's spec came from: a built-in suite
// (suite.Named) or a suite file with the SHA-256 of its bytes, and the
// idea arms the command line added to it (ideabench suite --ideas).
type Source struct {
	Builtin string `json:"builtin,omitempty"`
	File    string `json:"file,omitempty"`
	// FileSHA256 is the hex SHA-256 of File's bytes.
	FileSHA256 string   `json:"file_sha256,omitempty"`
	AddedIdeas []string `json:"added_ideas,omitempty"`
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
	// Tracks names the tracks in the idea's aggregate, in order: those
	// that can judge an idea where the idea was not inert.
	Tracks []string `json:"tracks"`
	// SuiteResult is the idea's aggregate over Tracks; nil when Tracks is
	// empty (the idea was inert on every track that can judge, and only
	// Ideas compares the further idea arms).
	*stats.SuiteResult
	// Ideas is present when the tracks' protocols compare several ideas
	// with the baseline (protocol.Protocol.Ideas): every idea arm against
	// the baseline over the tracks that can judge where that arm is not
	// inert (the first idea's over Tracks), Holm-adjusted, and the
	// Friedman test of all arms over every track that can judge.
	Ideas *IdeaArms `json:"ideas,omitempty"`
}

// IdeaArms compares several idea arms over a suite's tracks, as Demšar
// (2006) recommends for several methods over many data sets.
type IdeaArms struct {
	// Arms names the arms: "baseline", "idea", then the further ones.
	Arms []string `json:"arms"`
	// Tracks names the tracks that can judge an idea, over which
	// Friedman ranks the arms.
	Tracks []string `json:"tracks"`
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

// IdeaComparison is one idea arm against the baseline over Tracks, the
// tracks that can judge where the arm was not inert. An arm inert on every
// one of them has no Tracks, p-values 1 (no evidence) and a verdict that
// says so; it still counts as one of the hypotheses Holm's adjustment
// spans, so the others are adjusted as if it had been tested.
//
// MeanPct is the arm's suite effect, the mean log ratio E as a percentage
// 100·(exp(E)-1) (positive: the arm is better); LoPct and HiPct bound its
// interval (stats.SuiteResult's Lo and Hi, the same way, at the suite's
// 1 - Alpha), unadjusted for the several arms. All three are 0 when
// Tracks is empty.
type IdeaComparison struct {
	Name        string   `json:"name"`
	Tracks      []string `json:"tracks"`
	MeanPct     float64  `json:"mean_pct"`
	LoPct       float64  `json:"lo_pct"`
	HiPct       float64  `json:"hi_pct"`
	PValue      float64  `json:"p_value"`
	PValueHolm  float64  `json:"p_value_holm"`
	Verdict     string   `json:"verdict"`
	VerdictHolm string   `json:"verdict_holm"`
}

// Ladder is one difficulty ladder of a suite: one task at rungs of
// growing difficulty (the tracks Rungs, easiest first), as MAD scores a
// task over a range of difficulties and Zoology draws recall against the
// number of pairs (Poli et al. 2024; Arora et al. 2023).
type Ladder struct {
	Name  string   `json:"name"`
	Rungs []string `json:"rungs"`
	// Arms are the idea arms, in the tracks' order.
	Arms []LadderArm `json:"arms"`
}

// LadderArm is one idea arm up a ladder. Per rung: its effect on the
// track (the mean over seeds of the log ratio of its chosen cfg's test
// metric to the baseline's, as a percentage, positive better; the
// suite's TrackResult.EffectPct for the first arm), the interval the
// tracks give it (mean ± the MDE half-width), and the track report's
// verdict for it (its selection-aware test). Change is how the effect
// moves from the first rung to the last, seed by seed: ChangePct the
// mean of e_last − e_first (in percentage points of the log ratio),
// ChangeP the exact sign-flip p-value on those differences (seeds are
// the same on every rung). Trend reads them (LadderTrend).
type LadderArm struct {
	Name      string    `json:"name"`
	EffectPct []float64 `json:"effect_pct"`
	LoPct     []float64 `json:"lo_pct"`
	HiPct     []float64 `json:"hi_pct"`
	Verdicts  []string  `json:"verdicts"`
	ChangePct float64   `json:"change_pct"`
	ChangeP   float64   `json:"change_p"`
	Trend     string    `json:"trend"`
}

// The trends of a LadderArm, by rule: flips when the track verdicts
// call it a significant win on one rung and a significant loss on
// another; else holds when the change from the first rung to the last
// is within seed noise (ChangeP >= alpha); else grows when the last
// rung's effect is the larger in size and on the side the change moves
// it to, shrinks otherwise (toward zero, or across it without two
// significant verdicts).
const (
	TrendHolds   = "holds"
	TrendGrows   = "grows"
	TrendShrinks = "shrinks"
	TrendFlips   = "flips"
)

// LadderTrend is the trend of effects first and last (per seed, mean
// log ratios, positive better) with the change's p-value p at alpha,
// given the rungs' track verdicts (see the Trend constants).
func LadderTrend(first, last []float64, p, alpha float64, verdicts []string) string {
	if slices.Contains(verdicts, stats.VerdictWin) && slices.Contains(verdicts, stats.VerdictLoss) {
		return TrendFlips
	}
	if !(p < alpha) {
		return TrendHolds
	}
	m1, m2 := stats.Summarize(first).Mean, stats.Summarize(last).Mean
	if math.Abs(m2) > math.Abs(m1) && (m2-m1)*m2 > 0 {
		return TrendGrows
	}
	return TrendShrinks
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

// MaxBytes bounds a suite report read from a file (Read), so that a
// wrong path fails at once. A suite report holds a few numbers and
// per-seed lists a track and idea arm: the recall-ci suite's, six
// tracks of 8 seeds, is 7 KB (golden/suite_recall_ci_1.snap.json), about
// 2 KB a track at full precision, so a hundred tracks with a dozen idea
// arms each make about 3 MB; 32 MiB is 10 times that.
const MaxBytes = 32 << 20

// Read reads a suite report strictly (jsonstrict): malformed JSON,
// trailing data, a mistyped value, a key given twice or a key that is no
// field of a suite report is an error naming the file and where; a file
// of more than MaxBytes is refused before it is parsed.
func Read(path string) (*Report, error) {
	raw, err := inputfile.Read(path, MaxBytes)
	if err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	return Parse(raw, path)
}

// Parse reads a suite report from its JSON, raw, strictly as Read does;
// name names it in errors.
func Parse(raw []byte, name string) (*Report, error) {
	var r Report
	if err := jsonstrict.Decode(raw, name, "suite report", &r); err != nil {
		return nil, fmt.Errorf("suite: %w (a suite report of another build, or edited)", err)
	}
	if r.SuiteVersion != Version {
		return nil, fmt.Errorf("suite: %s: suite_version %d; this build reads %d (rerun the suite with this build to make one it reads)", name, r.SuiteVersion, Version)
	}
	return &r, nil
}

// IsReport reports whether the JSON raw is a suite report (it has the
// key suite_version) rather than a track's.
func IsReport(raw []byte) bool {
	var v *int
	return jsonstrict.Peek(raw, "suite_version", &v) && v != nil
}

// VerdictTag is the track's verdict with the heads of its marks in
// brackets ("no significant win [IDEA INERT]"), as a table or a figure
// shows it (report.Comparison.VerdictTag); the track's report says the
// rest.
func (t TrackResult) VerdictTag() string {
	return report.Comparison{Verdict: t.Verdict, Marks: t.Marks}.VerdictTag()
}
