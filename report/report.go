package report

import (
	"github.com/ideabench/ideabench/track"

	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ideabench/ideabench/protocol"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/stats"
)

// BenchVersion is the report schema version, as in the seed report.
const BenchVersion = 1

// Report is the JSON report. Every field of the seed report
// (../shared/seed/seed-report.json) keeps its name, nesting and meaning;
// additions stand under new keys (see docs/report.md).
type Report struct {
	BenchVersion       int         `json:"bench_version"`
	Track              string      `json:"track"`
	Model              string      `json:"model"`
	MetricDirection    string      `json:"metric_direction"`
	NSeeds             int         `json:"n_seeds"`
	Baseline           BaselineArm `json:"baseline"`
	Idea               Summary     `json:"idea"`
	Comparison         Comparison  `json:"comparison"`
	MechanismSignature Mechanism   `json:"mechanism_signature"`

	// Additions.
	ReferenceForecasters *track.Forecasters `json:"reference_forecasters,omitempty"`
	// Accuracy is, on a token track, each arm's test accuracy beside its
	// cross-entropy; nil on a forecasting track.
	Accuracy *Secondary `json:"accuracy,omitempty"`
	// MASE is, on a real panel (the tsf track), each arm's test score
	// in the Monash archive's metric, the mean MASE over the series,
	// beside its MSE, in the same block (lower is better: an arm's
	// delta_mean below 0 is a better MASE); nil elsewhere.
	MASE     *Secondary  `json:"mase,omitempty"`
	Setup    *Setup      `json:"setup,omitempty"`
	Diverged *Divergence `json:"diverged,omitempty"`
	Training *Training   `json:"training,omitempty"`
	// Ideas are the further idea arms of the run, in the protocol's
	// order; the idea above is the first (see Comparison.PValueHolm).
	Ideas []IdeaReport `json:"ideas,omitempty"`
	// TuningBudget is each arm's expected outcome as a function of how
	// many of its cfgs are tried (stats.Budget).
	TuningBudget *TuningBudget `json:"tuning_budget,omitempty"`
	// Sequential records the looks of a sequential run
	// (Protocol.Sequential); the blocks above describe its last look.
	Sequential *SequentialReport `json:"sequential,omitempty"`
	// Informativeness says whether this track can judge an idea at all.
	Informativeness *Informativeness `json:"informativeness,omitempty"`
	// EarlyStop replays a run of 4 seeds or more as a sequential design
	// (looks at half the seeds and all of them, O'Brien-Fleming
	// spending): whether the run could have stopped early.
	EarlyStop *SequentialReport `json:"early_stop,omitempty"`
	Run       *RunInfo          `json:"run,omitempty"`
	// External describes the arms trained by external trainers
	// (setup.protocol.trainers) and the check of their determinism.
	External *External `json:"external,omitempty"`
	// Budget is what each arm's training may spend, and whether every
	// idea arm spends what the baseline does.
	Budget *Budget `json:"budget,omitempty"`
	// GridExtension records the rounds of a grid extension
	// (setup.protocol.extend_grid): each arm's choice, the rates added,
	// and why it stopped. The sweeps above hold the grids it grew.
	GridExtension []protocol.Extension `json:"grid_extension,omitempty"`

	// missing lists the seed-schema fields the parsed file lacked
	// (Parse); verify reports each as missing.
	missing []string
}

// External is the report's block on external trainers.
type External struct {
	// Arms are the arms trained by an external trainer, by name.
	Arms []string `json:"arms"`
	// Rerun is one external trial trained a second time (a draw seeded
	// by the protocol's id among those that did not diverge) and its
	// forecasts compared with the first run's; absent when every external
	// trial diverged. Its arm, cfg, seed, identical, max_abs_diff and
	// rel_diff are measured; tolerance and reproduced are derived.
	Rerun *protocol.Reproduction `json:"rerun,omitempty"`
}

// Budget is what each arm's training may spend under the protocol
// (protocol.ArmBudget: cfgs, trials, steps, examples, FLOPs over the
// train windows of setup.train_sizes) and whether every idea arm spends
// what the baseline does (protocol.Protocol.BudgetDiffs). When one does
// not (setup.protocol.unequal_budget), every comparison of such an arm
// carries the mark "unequal budget" (Comparison.Marks). RecipeDifferences
// lists how the idea arms' recipes (weight decay, schedule, warmup,
// clipping) differ from the baseline's cfg by cfg
// (protocol.Protocol.RecipeDiffs, setup.protocol.different_recipe);
// every comparison of such an arm carries the mark "different recipe".
type Budget struct {
	Equal             bool                 `json:"equal"`
	Differences       []string             `json:"differences,omitempty"`
	RecipeDifferences []string             `json:"recipe_differences,omitempty"`
	Arms              []protocol.ArmBudget `json:"arms"`
}

// Informativeness says whether the track can judge an architectural idea
// at all. A comparison means little where the tuned baseline does not beat
// the best reference forecaster by more than seed noise, or stays within
// noise of the model it started from (with the skip path, a linear map):
// there both arms are small perturbations of something an idea does not
// change. Each gap is the baseline's improvement on another forecaster,
// seed by seed, on the test windows.
type Informativeness struct {
	// BestReference is reference_forecasters.best_reference_mse minus
	// the baseline's test metric, per seed.
	BestReference Gap `json:"best_reference"`
	// Start is the starting model's test metric (StartTest, epoch 0)
	// minus the trained one's, per seed: what training bought.
	Start Gap `json:"start"`
	// StartTest is each seed's starting model's test metric.
	StartTest []float64 `json:"start_test"`
	// LinearTest (linear_part_test) is each seed's trained skip path
	// alone on test, 0 for a seed that diverged.
	// LinearPart, with the skip path, is the test metric of the trained
	// model's skip path alone minus the whole model's: what the
	// transformer adds to its linear part.
	LinearPart *Gap      `json:"linear_part,omitempty"`
	LinearTest []float64 `json:"linear_part_test,omitempty"`
	// CanJudge is true when every gap is significant (Gap.Significant);
	// Reasons say which are not, or that too few seeds can tell.
	CanJudge bool     `json:"can_judge"`
	Reasons  []string `json:"reasons,omitempty"`
}

// Gap is how much the baseline's test metric improves on another
// forecaster's, seed by seed (positive: the baseline is better), with the
// paired statistics of package stats at the protocol's alpha.
type Gap struct {
	// N is the number of seeds compared (a diverged seed has no trained
	// model to set against its start or linear part).
	N       int       `json:"n"`
	PerSeed []float64 `json:"per_seed"` // other_i - baseline_i
	Mean    float64   `json:"mean"`
	// Pct is 100·mean / mean(other).
	Pct float64 `json:"pct"`
	// Lo and Hi bound the paired-t interval of the mean at level
	// 1 - alpha (stats.MDE is its half-width).
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
	// PValue is the two-sided sign-flip p-value of the mean (stats.Compare).
	PValue float64 `json:"p_value"`
	// Significant is PValue < alpha with a positive mean.
	Significant bool `json:"significant"`
}

// TuningBudget holds the arms' tuning-budget curves, k = 1..grid size.
// WinnerChanges is true when the arm with the better expected test
// metric of its pick (the idea above against the baseline) is not the
// same at every k both grids reach.
type TuningBudget struct {
	Method        string              `json:"method"`
	Baseline      []stats.BudgetPoint `json:"baseline"`
	Idea          []stats.BudgetPoint `json:"idea"`
	Ideas         []ArmBudget         `json:"ideas,omitempty"`
	WinnerChanges bool                `json:"winner_changes"`
}

// ArmBudget is a further idea arm's curve.
type ArmBudget struct {
	Name          string              `json:"name"`
	Curve         []stats.BudgetPoint `json:"curve"`
	WinnerChanges bool                `json:"winner_changes"`
}

// Training holds the training-loss curves of each arm's chosen cfg.
type Training struct {
	Baseline ArmCurves `json:"baseline"`
	Idea     ArmCurves `json:"idea"`
}

// ArmCurves are one cfg's mean training loss and val metric per epoch,
// one curve per seed (in the order of the protocol's seeds; a diverged
// seed's curve ends at its last full epoch), and the epoch whose weights
// each seed kept.
type ArmCurves struct {
	Cfg         protocol.Cfg `json:"cfg"`
	EpochLosses [][]float64  `json:"epoch_losses"`
	// ValCurves are the val metric after each epoch, per seed.
	ValCurves [][]float64 `json:"val_curves,omitempty"`
	// StartVals are the val metric of each seed's model before training
	// (epoch 0), a candidate under early stopping.
	StartVals []float64 `json:"start_vals,omitempty"`
	// BestEpochs are the epochs whose weights were scored, per seed: under
	// early stopping the first of least val metric, 0 for the starting
	// model; else the last; -1 for a diverged seed. The seed's val metric
	// is start_vals[i] at 0, else val_curves[i][best_epochs[i]-1].
	BestEpochs []int `json:"best_epochs,omitempty"`
}

// Divergence lists the trials whose training loss became NaN or ±Inf and
// how they were counted; absent when none did.
type Divergence struct {
	Trials         []DivergedTrial `json:"trials"`
	ValSubstitute  float64         `json:"val_substitute"`  // worst finite val metric of all trials
	TestSubstitute float64         `json:"test_substitute"` // worst finite test metric of all trials
	Rule           string          `json:"rule"`
}

// DivergedTrial is one diverged trial.
type DivergedTrial struct {
	Arm  string `json:"arm"`
	Cfg  int    `json:"cfg"` // index into the arm's grid
	Seed uint64 `json:"seed"`
	Step int    `json:"step"` // the training step whose loss was not finite
}

// DivergenceRule is the report's statement of how diverged trials count.
const DivergenceRule = "a diverged trial's val and test metrics are the worst finite value of that split over all trials; selection ranks cfgs by number of diverged seeds, then by mean val metric"

// Summary is one cfg's per-seed test metrics ("full", "idea", "result").
type Summary struct {
	Mean    float64   `json:"mean"`
	Std     float64   `json:"std"` // population std, ddof 0
	PerSeed []float64 `json:"per_seed"`
	N       int       `json:"n"`
}

// BaselineArm is the baseline sweep and its chosen cfg.
type BaselineArm struct {
	BestCfg protocol.Cfg `json:"best_cfg"`
	Sweep   []SweepRow   `json:"sweep"`
	Full    Summary      `json:"full"` // the best cfg's per-seed test metrics
}

// SweepRow is one baseline cfg: mean test metric, plus (added) the
// validation summary used for selection and the per-seed test metrics.
type SweepRow struct {
	Cfg     protocol.Cfg `json:"cfg"`
	Mean    float64      `json:"mean"`
	Val     *Summary     `json:"val,omitempty"`
	PerSeed []float64    `json:"per_seed,omitempty"`
	// Accuracy is, on a token track, the cfg's test accuracy per seed
	// (the share of labelled positions answered exactly), beside the
	// cross-entropy that Mean and PerSeed hold.
	Accuracy *Summary `json:"test_accuracy,omitempty"`
	// MASE is, on a real panel, the cfg's test MASE per seed (the mean
	// over the series), beside the MSE.
	MASE *Summary `json:"test_mase,omitempty"`
}

// IdeaRow is one idea cfg with its test summary and (added) validation summary.
type IdeaRow struct {
	Cfg    protocol.Cfg `json:"cfg"`
	Result Summary      `json:"result"`
	Val    *Summary     `json:"val,omitempty"`
	// Accuracy is, on a token track, the cfg's test accuracy per seed
	// (SweepRow.Accuracy).
	Accuracy *Summary `json:"test_accuracy,omitempty"`
	// MASE is, on a real panel, the cfg's test MASE per seed
	// (SweepRow.MASE).
	MASE *Summary `json:"test_mase,omitempty"`
}

// Secondary is a test metric beside the one that decides, of each arm's
// chosen cfg: on a token track its accuracy beside the cross-entropy
// (higher is better), on a real panel its MASE beside the MSE (lower is
// better); with each idea arm's paired difference from the baseline
// (idea - baseline) and its intervals at the protocol's level in the
// metric's direction (stats.IntervalsOf, bootstrap seeded by the first
// seed). It informs; the verdict is the deciding metric's.
type Secondary struct {
	Baseline Summary        `json:"baseline"`
	Arms     []ArmSecondary `json:"arms"` // the idea arm, then each of ideas
	// Solves reads, on a token track, each seed's accuracy as solved or
	// not (see Solves); nil elsewhere.
	Solves *Solves `json:"solves,omitempty"`
	// TimeToTarget is, on a token track whose trials recorded their val
	// accuracy during training, how fast each arm's chosen cfg learns
	// (see TimeToTarget); nil elsewhere.
	TimeToTarget *TimeToTarget `json:"time_to_target,omitempty"`
}

// TimeToTarget is how many training steps each arm's chosen cfg takes to
// reach a target val accuracy, seed by seed, beside where it ends (the
// verdict): AlgoPerf's time-to-result (Dahl et al. 2023) on steps. The
// target is the Solves rule's on val: the best val reference's accuracy
// plus SolveFraction of the way to the ceiling. A seed that never
// reaches it within its budget is censored there, and the arms are
// compared on the restricted time, min(steps to target, budget), whose
// mean is the restricted mean time to target (the area under the
// not-yet-reached curve up to the budget; Royston and Parmar 2013,
// "Restricted mean survival time", BMC Med. Res. Methodol. 13:152): with
// one censoring time for every seed the restricted time of each seed is
// observed, so the paired sign-flip test and intervals of the verdict
// apply to it as they are. The chosen cfgs are each arm's choice on the
// end val metric: the test is not selection-aware, and informs beside
// the verdict.
type TimeToTarget struct {
	// Rule says how the target and the times are read.
	Rule string `json:"rule"`
	// Floor is the best val token reference's accuracy, Ceiling the
	// oracle's, Target = Floor + SolveFraction·(Ceiling − Floor).
	Floor   float64 `json:"floor"`
	Ceiling float64 `json:"ceiling"`
	Target  float64 `json:"target"`
	// Baseline is the baseline's chosen cfg's times.
	Baseline ArmTimes `json:"baseline"`
	// Arms are the idea arm's, then each of ideas', against the
	// baseline's.
	Arms []PairedTimes `json:"arms"`
}

// ArmTimes are one chosen cfg's times to target, seed by seed.
type ArmTimes struct {
	// Every is the number of steps between val checkpoints and Budget
	// the steps the cfg trains at most, the censoring time.
	Every  int `json:"every"`
	Budget int `json:"budget"`
	// Curves are each seed's val accuracy after every Every steps (an
	// input: the trial's record).
	Curves [][]float64 `json:"val_accuracy_curves"`
	// Steps are each seed's steps to the first checkpoint at or above
	// the target, Budget where it never gets there (Reached false).
	Steps   []int  `json:"steps"`
	Reached []bool `json:"reached"`
	// RestrictedMean is the mean of Steps: the restricted mean time to
	// target within Budget.
	RestrictedMean float64 `json:"restricted_mean"`
}

// PairedTimes is an idea arm's ArmTimes against the baseline's, seed by
// seed: the mean of its restricted steps minus the baseline's (negative:
// it learns faster), the exact two-sided sign-flip p-value on them
// (stats.Compare) and their intervals (stats.IntervalsOf, lower is
// better), unadjusted for the arms, and Reading: "learns faster",
// "learns slower", "learns no faster" (no significant difference),
// "neither reaches the target" or "budgets differ" (not compared).
type PairedTimes struct {
	Name string `json:"name"`
	ArmTimes
	DeltaMean float64          `json:"delta_mean"`
	PValue    float64          `json:"p_value"`
	Intervals *stats.Intervals `json:"intervals,omitempty"`
	Reading   string           `json:"reading"`
}

// The readings of PairedTimes.
const (
	TimeFaster     = "learns faster"
	TimeSlower     = "learns slower"
	TimeNoFaster   = "learns no faster"
	TimeNeither    = "neither reaches the target"
	TimeBudgetsDif = "budgets differ"
)

// ArmSecondary is one idea arm's secondary metric against the
// baseline's.
type ArmSecondary struct {
	Name      string          `json:"name"`
	Result    Summary         `json:"result"`
	DeltaMean float64         `json:"delta_mean"` // mean of idea - baseline, seed by seed
	Intervals stats.Intervals `json:"intervals"`
	// Solves is the arm's seeds solved, paired with the baseline's, on a
	// token track.
	Solves *PairedSolves `json:"solves,omitempty"`
}

// Solves is the rule that reads a token track's per-seed test accuracy
// as solved or not, and the baseline's count. A recall task is learned
// in a sharp transition (a seed leaves a plateau or does not within the
// budget), so an arm's seeds can end in two clusters, and the mean of
// such an arm is a solve rate: the rule names that, so that a difference
// of solve rates is not read as one of quality.
type Solves struct {
	// Rule says how Target is set.
	Rule string `json:"rule"`
	// Floor is the best token reference's test accuracy (chance,
	// majority or bigram, the oracle left out) and Ceiling the oracle's.
	Floor   float64 `json:"floor"`
	Ceiling float64 `json:"ceiling"`
	// Target is the accuracy a seed solves at: Floor +
	// SolveFraction·(Ceiling − Floor).
	Target float64 `json:"target"`
	// Baseline is the baseline's chosen cfg's seeds.
	Baseline ArmSolves `json:"baseline"`
}

// SolveFraction is the share of the way from the best reference's
// accuracy to the ceiling that a seed must reach to count as solved.
const SolveFraction = 0.75

// SplitFraction is the share of Ceiling − Floor by which an arm's
// solved seeds must stand above its unsolved ones for the arm's
// outcomes to count as bimodal: two clusters, not seeds scattered
// about the target.
const SplitFraction = 0.25

// ArmSolves is one arm's seeds read by the Solves rule.
type ArmSolves struct {
	// Solved is the number of seeds at or above the target, of N.
	Solved int `json:"solved"`
	N      int `json:"n"`
	// Bimodal is set when the arm has solved and unsolved seeds and the
	// lowest solved accuracy stands at least SplitFraction·(Ceiling −
	// Floor) above the highest unsolved one (Gap).
	Bimodal bool `json:"bimodal"`
	// Gap is the lowest solved accuracy minus the highest unsolved one,
	// when the arm has both; 0 otherwise.
	Gap float64 `json:"gap"`
}

// PairedSolves is an idea arm's ArmSolves beside the baseline's, seed by
// seed: the seeds only the idea solves, those only the baseline solves,
// and the exact McNemar p-value on them (stats.McNemarExact), two-sided,
// unadjusted for the arms.
type PairedSolves struct {
	ArmSolves
	OnlyIdea     int     `json:"only_idea"`
	OnlyBaseline int     `json:"only_baseline"`
	PValue       float64 `json:"p_value"`
}

// Comparison is the paired comparison, idea - baseline, seed by seed.
// PValue and Verdict are the headline: the answer of Test, which in every
// profile but seed is the selection-aware test (stats.SelectionPValue),
// valid when each arm chooses its cfg on validation.
type Comparison struct {
	DeltaMean    float64   `json:"delta_mean"`
	IdeaWins     int       `json:"idea_wins"`
	NPairs       int       `json:"n_pairs"`
	PerSeedDiffs []float64 `json:"per_seed_diffs"`
	PValue       float64   `json:"p_value"` // of Test
	MDE          float64   `json:"mde"`
	MDERelPct    float64   `json:"mde_rel_pct"`
	Verdict      string    `json:"verdict"` // at alpha with PValue
	SystemWorked bool      `json:"system_worked"`

	// Marks qualify the verdict, each a short sentence that a page, a
	// figure or a summary shows beside it (VerdictLine): "unequal budget:
	// ..." when the arm trained on another budget than the baseline's,
	// "different recipe: ..." when it trained with other optimizer
	// settings, "idea inert: ..." when the idea changed no trial's
	// outcome (IdeaInert).
	Marks []string `json:"marks,omitempty"`
	// IdeaInert is true when, on every seed, the idea arm's chosen cfg
	// scores within InertRelTol of the baseline's cfg of the same index,
	// the same training without the idea: the idea did not act on this
	// track, so the verdict says nothing about it.
	IdeaInert bool `json:"idea_inert,omitempty"`

	// Test names the test behind p_value and verdict: the protocol's
	// (setup.protocol.test) when the idea's grid pairs with the
	// baseline's (the same length, index j against index j);
	// TestSignFlip when the grids do not pair, which a warning then says.
	Test         string   `json:"test,omitempty"`
	PValueMethod string   `json:"p_value_method,omitempty"`
	PValueDraws  int      `json:"p_value_draws,omitempty"`
	Alpha        float64  `json:"alpha,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`

	// PValueConditional and VerdictConditional are present when Test is
	// selection-aware: the paired sign-flip test (stats.Compare) on the
	// two chosen cfgs, conditional on each arm's choice. It answers "do
	// these two cfgs differ", which includes any difference between the
	// cfgs the arms chose (another learning rate, say); under an idea that
	// does nothing it says "significant" more often than alpha when the
	// arms choose different cfgs.
	PValueConditional  *float64 `json:"p_value_conditional,omitempty"`
	VerdictConditional string   `json:"verdict_conditional,omitempty"`

	// PValueSelection and VerdictSelection are present when the grids pair
	// but the selection-aware test does not decide (the seed profile): its
	// p-value and verdict beside the seed report's sign-flip headline.
	PValueSelection  *float64 `json:"p_value_selection,omitempty"`
	VerdictSelection string   `json:"verdict_selection,omitempty"`

	// PValueHolm and VerdictHolm are present when a run compares several
	// ideas with the baseline (Protocol.Ideas): the headline p-value
	// adjusted by Holm's step-down method over every idea arm (stats.Holm),
	// and the verdict at alpha with it, which controls the chance of any
	// false win among them.
	PValueHolm  *float64 `json:"p_value_holm,omitempty"`
	VerdictHolm string   `json:"verdict_holm,omitempty"`

	// Intervals are interval estimates at level 1 - alpha of the mean
	// difference (paired t and bootstrap) and of the probability of
	// improvement (stats.IntervalsOf); Power says how many seeds would
	// detect the observed effect and the protocol's min_effect
	// (stats.PowerOf). Both describe the chosen cfgs' differences and are
	// present from two seeds on.
	Intervals *stats.Intervals `json:"intervals,omitempty"`
	Power     *stats.Power     `json:"power,omitempty"`

	// Sensitivity, on an arm the protocol tunes over parameters of its
	// idea (setup.protocol.tune), is its effect at every setting drawn.
	Sensitivity *Sensitivity `json:"sensitivity,omitempty"`
}

// Sensitivity is an idea arm's effect at each setting its tuner drew:
// its cfg j against the baseline's cfg j, which trains at the same
// learning rate with the same recipe (protocol.Tune), seed by seed.
// Each setting's interval is unadjusted: a description of how the
// effect moves over the idea's space, not a test of each setting.
type Sensitivity struct {
	Settings []SettingEffect `json:"settings"`
	// Reading says in one sentence whether the verdict holds across the
	// settings drawn or flips with them, and where.
	Reading string `json:"reading"`
}

// SettingEffect is an idea arm's effect at one setting (cfg) drawn.
type SettingEffect struct {
	Cfg protocol.Cfg `json:"cfg"`
	// DeltaMean is the mean of the per-seed differences (idea minus
	// baseline) and Lo, Hi its paired-t interval at 1 - alpha (DeltaMean
	// ∓ stats.MDE); Wins counts the seeds the idea's cfg is better on.
	DeltaMean float64 `json:"delta_mean"`
	Lo        float64 `json:"lo"`
	Hi        float64 `json:"hi"`
	Wins      int     `json:"wins"`
	// Side is where the interval lies: "better" or "worse" (wholly on
	// that side of no difference) or "within noise".
	Side string `json:"side"`
	// Chosen marks the setting the arm chose on validation.
	Chosen bool `json:"chosen,omitempty"`
}

// The sides of a setting's interval (SettingEffect.Side).
const (
	SideBetter = "better"
	SideWorse  = "worse"
	SideNoise  = "within noise"
)

// The tests a comparison's headline can come from (Comparison.Test,
// SequentialReport.Test): the protocol's (protocol.Protocol.Test).
const (
	TestSelection = protocol.TestSelection
	TestSignFlip  = protocol.TestSignFlip
)

// IdeaReport is one further idea arm of a run (Protocol.Ideas): its sweep,
// its chosen cfg's test summary and its comparison with the baseline.
type IdeaReport struct {
	Name       string       `json:"name"`
	BestCfg    protocol.Cfg `json:"best_cfg"`
	Sweep      []IdeaRow    `json:"sweep"`
	Result     Summary      `json:"result"`
	Comparison Comparison   `json:"comparison"`
}

// Mechanism is the seed report's "mechanism_signature" block.
type Mechanism struct {
	TrackRationale     string        `json:"track_rationale"`
	ObservedBestCfg    protocol.Cfg  `json:"observed_best_cfg"`
	IdeaSweep          []IdeaRow     `json:"idea_sweep"`
	MechanismSignature SignatureJSON `json:"mechanism_signature"`
	MathCheck          MathCheck     `json:"math_check"`
	Protocol           ProtocolJSON  `json:"protocol"`
}

// SignatureJSON is the signature of the idea's best cfg on its first seed.
// The top-level fields read block 0; Layers (added) has every block.
type SignatureJSON struct {
	TrainedModelSeed    uint64           `json:"trained_model_seed"`
	Metric              float64          `json:"metric"`
	InitialGain         float64          `json:"initial_gain"`
	FinalGain           float64          `json:"final_gain"`
	MeanState           float64          `json:"mean_state"`
	PredictedSteadyGain float64          `json:"predicted_steady_gain"`
	FittedStatePole     float64          `json:"fitted_state_pole"`
	Rho                 float64          `json:"rho"`
	Beta                float64          `json:"beta"`
	Confirmed           bool             `json:"confirmed"`
	Layer               *int             `json:"layer,omitempty"`
	Layers              []idea.GateLayer `json:"layers,omitempty"`
	// NotMeasured, when set, says why the gate's signature was not read
	// (the idea's chosen cfg has no gate, or a gate at β = 0, the
	// identity): the fields above are then zero and confirmed is false.
	NotMeasured string `json:"not_measured,omitempty"`
	// Laws (added) are the idea's mechanism laws (idea.Signature): for the
	// gate, gate.Confirm's three criteria per block (idea.GateLaws); for
	// another idea with a probe, what its probe measured, the gate fields
	// above then being zero. Confirmed is then "every law holds".
	Laws []idea.Law `json:"laws,omitempty"`
}

// MathCheck compares the ideas' closed forms with simulation: Rows, the
// seed report's, hold the gate's check for each idea cfg that trains the
// gate (or nothing); Laws (added) hold the laws of every distinct idea
// setting of every idea arm with a theory (idea.Theory), the gate
// included. Confirmed is true when every row and every law holds.
type MathCheck struct {
	Rows      []idea.GateMathRow `json:"rows"`
	Laws      []IdeaLaws         `json:"laws,omitempty"`
	Confirmed bool               `json:"confirmed"`
}

// IdeaLaws is the math check of one idea setting.
type IdeaLaws struct {
	Idea   string      `json:"idea"`
	Params idea.Params `json:"params,omitzero"`
	Laws   []idea.Law  `json:"laws"`
	Holds  bool        `json:"holds"`
}

// ProtocolJSON is the seed report's protocol summary.
type ProtocolJSON struct {
	Seeds          []uint64  `json:"seeds"`
	Epochs         int       `json:"epochs"`
	BaselineLRGrid []float64 `json:"baseline_lr_grid"`
	IdeaLRGrid     []float64 `json:"idea_lr_grid"`
}

// Setup records what a report came from, so verify can rebuild it: the
// protocol, the training version and data its trials ran on, and digests
// that bind the report's inputs to it.
type Setup struct {
	Protocol protocol.Protocol `json:"protocol"`
	// DeriveVersion is the derivation the report was built with
	// (derive.DeriveVersion).
	DeriveVersion string `json:"derive_version,omitempty"`
	// TrainingVersion is the training path of the trials (TrainingVersion
	// of the build that trained them), part of every trial key.
	TrainingVersion string `json:"training_version,omitempty"`
	// DataSHA256 is the hex SHA-256 of the csv track's file, part of its
	// trial keys; empty for a generated track, which its config fixes.
	DataSHA256 string `json:"data_sha256,omitempty"`
	// DataNotes say what about the data a user should know (a csv file's
	// repeated timestamps or gaps, track.Table.Notes).
	DataNotes []string `json:"data_notes,omitempty"`
	// TrainSizes are the train windows at each look-back
	// (protocol.TrainSizes), which the arms' budgets count.
	TrainSizes []protocol.TrainSize `json:"train_sizes,omitempty"`
	// TrialsSHA256 is the SHA-256 of the ids of the report's trials in
	// order (Protocol.Key): the records of a results directory that hold
	// its raw values (verify --results).
	TrialsSHA256 string `json:"trials_sha256,omitempty"`
	// Digests are the digests of the report's inputs (ReadInputs): by
	// the JSON path of what each covers, the first 16 bytes of the SHA-256
	// of its JSON, in hex. Verify recomputes them, so an input edited
	// after the report was written is named even where nothing derived
	// from it shows the edit.
	Digests map[string]string `json:"digests,omitempty"`
}

// RunInfo is volatile: it differs between runs of the same protocol and is
// left out of golden comparisons. Nothing is derived from it; verify
// checks it against its own digest and invariants.
type RunInfo struct {
	WallSeconds float64 `json:"wall_seconds"`
	Workers     int     `json:"workers"`
	GoVersion   string  `json:"go_version"`
	Version     string  `json:"ideabench_version"`

	TrialsReused int    `json:"trials_reused"` // read from the results directory
	TrialsRun    int    `json:"trials_run"`    // trained by this process
	Results      string `json:"results"`       // the results directory (merge: the directories, comma-separated)

	// Finished is when the report was written, UTC, as RFC 3339, and
	// Machine what wrote it: the OS and architecture, the CPU, its cores
	// and the path the kernels took (harness.Machine). Both are shown on
	// the page; absent in reports written before they were recorded.
	Finished string `json:"finished,omitempty"`
	Machine  string `json:"machine,omitempty"`

	// Digest is the digest of the fields above (Report.SetRun), which
	// verify recomputes.
	Digest string `json:"digest,omitempty"`
}

// InertRelTol is the relative difference of test metrics below which an
// idea arm's trial counts as the baseline's at the same cfg and seed
// (Comparison.IdeaInert): a tenth of the smallest effect the default
// protocol plans for (min_effect_pct 1). Measured on the chosen cfgs: an
// idea that acts moves every seed's metric by percents (the gate on the
// panel track: 3% to 30%); the gate whose trained gain stays within
// 0.001 of 1 moves them by at most 0.015% (ILI) and 0.002% (sunspots).
const InertRelTol = 1e-3

// VerdictLine is the verdict as every summary, page and figure shows it:
// the verdict, then its marks (Comparison.Marks) in brackets, so that a
// qualified verdict never reads as a plain one.
func (c Comparison) VerdictLine() string {
	if len(c.Marks) == 0 {
		return c.Verdict
	}
	return c.Verdict + " [" + strings.Join(c.Marks, "; ") + "]"
}

// VerdictTag is VerdictLine for a figure's title: the verdict and the
// head of each mark ("unequal budget", "idea inert").
func (c Comparison) VerdictTag() string {
	if len(c.Marks) == 0 {
		return c.Verdict
	}
	var tags []string
	for _, m := range c.Marks {
		head, _, _ := strings.Cut(m, ":")
		tags = append(tags, strings.ToUpper(head))
	}
	return c.Verdict + " [" + strings.Join(tags, ", ") + "]"
}

// WriteFile writes the report as indented JSON to path atomically (temp
// file in the same directory, then rename), so a reader never sees half a
// report. It refuses NaN and ±Inf, which JSON cannot hold.
func (r *Report) WriteFile(path string) error {
	data, err := r.Marshal()
	if err != nil {
		return err
	}
	err = atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("report: writing report %s: %w", path, err)
	}
	return nil
}

// Marshal encodes the report as indented JSON with a final newline.
func (r *Report) Marshal() ([]byte, error) {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("report: encoding report (a NaN or Inf?): %w", err)
	}
	return append(data, '\n'), nil
}

// Read parses a report file (see Parse) of at most MaxFileBytes.
func Read(path string) (*Report, error) {
	raw, err := inputfile.Read(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return Parse(raw, path)
}

// MissingFields lists the seed-schema fields the parsed file lacked
// (Parse); nil for a report built here.
func (r *Report) MissingFields() []string { return r.missing }

// SummaryOf is the report's summary of s.
func SummaryOf(s stats.Summary) Summary {
	return Summary{Mean: s.Mean, Std: s.Std, PerSeed: s.PerSeed, N: s.N}
}

// BlowUpFactor is how many times persistence's test MSE a cfg's test
// mean may reach before the report calls it blown up: training made the
// model far worse than repeating the last value, which a working lr never
// does (on the normalized scale persistence is of order 1).
const BlowUpFactor = 100

// BlownUp reports whether a test mean is blown up against the reference
// ref: persistence's test MSE, or on a token track chance's
// cross-entropy (track.Forecasters.BlowUpReference). Derive warns by it
// and a page marks by it, so a reader of a report needs no trainer.
func BlownUp(mean, ref float64) bool { return mean > BlowUpFactor*ref }
