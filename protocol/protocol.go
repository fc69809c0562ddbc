package protocol

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/internal/jsonstrict"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/archname"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/track"
)

// Cfg is one point of a sweep: the report's "cfg" object. The fields
// after beta are left out of JSON at their zero value, which is the
// training of the seed report (plain Adam at a constant rate, every epoch,
// the last weights), so its cfgs keep their four keys.
type Cfg struct {
	LR     float64 `json:"lr"`     // peak learning rate
	Epochs int     `json:"epochs"` // passes over the train windows: the budget
	Rho    float64 `json:"rho"`    // gate memory factor ρ
	Beta   float64 `json:"beta"`   // gate strength β; 0 is the baseline

	// Idea names a registered idea other than the gate (package idea),
	// Params its parameters; "" (or "gate") is the fading-memory gate at
	// rho and beta. See IdeaConfig.
	Idea   string      `json:"idea,omitempty"`
	Params idea.Params `json:"params,omitzero"`

	// WeightDecay is AdamW's decoupled weight decay λ on the weight
	// matrices and embeddings; 0 is Adam.
	WeightDecay float64 `json:"weight_decay,omitempty"`
	// Schedule shapes the learning rate over the Epochs·steps-per-epoch
	// steps after warmup: "" or "constant", "cosine" or "linear" (decay
	// to 0). See LRAt.
	Schedule string `json:"schedule,omitempty"`
	// Warmup is the fraction of the steps over which the rate rises
	// linearly to lr, in [0,1).
	Warmup float64 `json:"warmup,omitempty"`
	// Clip is the largest gradient L2 norm a step applies unscaled; 0
	// never clips.
	Clip float64 `json:"clip,omitempty"`
	// Patience turns on early stopping: the model is scored on val after
	// every epoch, training stops once Patience epochs pass without a new
	// best, and the weights of the best epoch are the ones evaluated. 0
	// trains every epoch and keeps the last weights.
	Patience int `json:"patience,omitempty"`
	// EpochWindows, when > 0 and below the number of train windows, is
	// how many windows an epoch trains on: each epoch a seeded sample
	// without replacement (the first EpochWindows of that epoch's
	// shuffle), so a track of a million windows gets epochs of a size
	// the budget affords and early stopping looks at val often enough.
	// 0 trains on every window each epoch.
	EpochWindows int `json:"epoch_windows,omitempty"`
	// Context is the cfg's look-back in input positions, on the csv
	// track: tuned on val like lr when the grids hold several. 0 is the
	// track's csv.t. Every look-back forecasts the same val and test
	// targets (the windows' inputs reach back further, the first target
	// stays), so test MSEs compare across cfgs and with the literature;
	// the reference forecasters are fitted at each look-back and each
	// takes the one its val MSE prefers.
	Context int `json:"context,omitempty"`
}

// Arch.SkipStart values.
const (
	SkipStartPerChannel = "per_channel"
	SkipStartVal        = "val"
)

// Schedules.
const (
	ScheduleConstant = "constant"
	ScheduleCosine   = "cosine"
	ScheduleLinear   = "linear"
)

// LRAt is the learning rate of step s (0-based) of a run of total steps:
// a linear warmup over the first w = ⌈Warmup·total⌉ steps, then the
// schedule over the remaining ones, with progress u = (s-w)/(total-w) in
// [0,1):
//
//	warmup    lr·(s+1)/w                 s < w
//	constant  lr
//	cosine    lr·(1 + cos(π·u))/2        (Loshchilov and Hutter 2017, SGDR, without restarts)
//	linear    lr·(1 - u)
func (c Cfg) LRAt(s, total int) float64 {
	w := int(math.Ceil(c.Warmup * float64(total)))
	if s < w {
		return c.LR * float64(s+1) / float64(w)
	}
	u := float64(s-w) / float64(total-w)
	switch c.Schedule {
	case ScheduleCosine:
		return c.LR * (1 + math.Cos(math.Pi*u)) / 2
	case ScheduleLinear:
		return c.LR * (1 - u)
	}
	return c.LR
}

// IdeaConfig is the idea the cfg trains: the fading-memory gate at (rho,
// beta) when Idea is "" or "gate" (the seed report's cfgs), else the
// registered idea Idea with Params; zero for the plain model.
func (c Cfg) IdeaConfig() idea.Config {
	if c.Idea == "" || c.Idea == "gate" {
		if c.Idea == "" && c.Rho == 0 && c.Beta == 0 {
			return idea.Config{}
		}
		return idea.Config{Name: "gate", Params: idea.NewParams(map[string]float64{"rho": c.Rho, "beta": c.Beta})}
	}
	return idea.Config{Name: c.Idea, Params: c.Params}
}

// WithIdea returns c training idea ic instead of its own: the gate as
// rho and beta at the cfg's top level, as the seed report writes it
// (IdeaConfig's inverse), any other idea by name and params.
func (c Cfg) WithIdea(ic idea.Config) Cfg {
	c.Idea, c.Params, c.Rho, c.Beta = ic.Name, ic.Params, 0, 0
	if ic.Name == "gate" {
		// The gate's parameters are the cfg's rho and beta, where a zero
		// is a value (beta 0 is the baseline), not a default: the ones
		// ic leaves out take the gate's defaults here.
		full := ic.WithDefaults().Params
		c.Idea, c.Params = "", idea.Params{}
		c.Rho, _ = full.Get("rho")
		c.Beta, _ = full.Get("beta")
	}
	return c
}

// ideaErrors validates the idea part of a cfg, each error shaped
// "<field> = <value>: <what is wrong>; <fix>" for its JSON path. A
// baseline cfg trains no idea.
func (c Cfg) ideaErrors(baseline bool) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if c.Idea == "" || c.Idea == "gate" {
		if !c.Params.IsZero() {
			bad("params = %v: the gate takes rho and beta at the cfg's top level; move them there", c.Params)
		}
		beta := c.Beta
		if baseline && c.Beta != 0 {
			bad("beta = %v: the baseline arm has no gate; set beta to 0", c.Beta)
			beta = 0
		}
		errs = append(errs, Unjoin(idea.GateValidate(c.Rho, beta))...)
		return errs
	}
	if baseline {
		bad("idea = %q: the baseline arm trains no idea; leave idea out", c.Idea)
	}
	if _, ok := idea.Lookup(c.Idea); !ok {
		bad("idea = %q: not a registered idea; use one of %s", c.Idea, strings.Join(idea.Names(), ", "))
		return errs
	}
	if c.Rho != 0 {
		bad("rho = %v: rho and beta are the gate's; give %s's parameters under params", c.Rho, c.Idea)
	}
	if c.Beta != 0 {
		bad("beta = %v: rho and beta are the gate's; give %s's parameters under params", c.Beta, c.Idea)
	}
	if _, err := idea.New(c.IdeaConfig()); err != nil {
		bad("params = {%v}: %v", c.Params, err)
	}
	return errs
}

// Arch is the model both arms train, and its batch size; T and H come
// from the track. The fields after batch are left out of JSON at their
// zero value, the model of the seed report.
type Arch struct {
	D      int `json:"d"`      // model width
	Heads  int `json:"heads"`  // attention heads
	Layers int `json:"layers"` // blocks
	Batch  int `json:"batch"`  // training batch size

	// Patch is the number of input positions per token (non-overlapping
	// patches, PatchTST-style); 0 or 1 is one token per position. It must
	// divide the track's t.
	Patch int `json:"patch,omitempty"`
	// Norm normalizes every window by its own statistics and takes the
	// forecast back to the track's scale: "revin" (mean and std, Kim et
	// al. 2022) or "last" (minus the last input, NLinear's); "" none. It
	// needs loss "last".
	Norm string `json:"norm,omitempty"`
	// Skip adds a linear map of the target channel's window to the last
	// token's forecast, a linear path beside the transformer that starts
	// at the least-squares fit on the train windows (skipInit).
	Skip bool `json:"skip,omitempty"`
	// SkipStart is where the skip path starts (with Skip): "" the
	// least-squares fit shared by every window (skipInit); on a track of
	// several series (csv channels "independent" or "mixed") "per_channel", each
	// series' own closed-form map (linear_centred_per_channel under norm
	// "last", linear_ar_per_channel without a norm), added to the forecast
	// and held fixed while the shared skip path starts at zero, so the
	// model trains on its residual (perChannelSkip); "val", whichever of
	// the two has the lower val MSE on the track (the shared fit on a
	// track of one series). The model then starts as that reference, and
	// early stopping keeps it unless training beats it on val.
	SkipStart string `json:"skip_start,omitempty"`
	// Loss is "" or "all" (every token's forecast is trained) or "last"
	// (only the last token's, the one evaluated).
	Loss string `json:"loss,omitempty"`
	// Positions is the model's position embedding: "" or "learned"
	// (absolute, learned), "none" (attention alone, being causal, tells
	// positions apart; with an idea at the logits site such as alibi,
	// the bias alone).
	Positions string `json:"positions,omitempty"`
}

// Protocol is everything a run depends on. A config file is a JSON
// Protocol; fields it leaves out keep the chosen profile's values.
type Protocol struct {
	Profile  string    `json:"profile"`         // name of the profile it started from
	Track    string    `json:"track"`           // a registered track kind (track.KindNames)
	Model    string    `json:"model"`           // "transformer_tiny"
	Seeds    []uint64  `json:"seeds"`           // training seeds, paired across arms
	Baseline []Cfg     `json:"baseline"`        // baseline sweep (β = 0)
	Idea     []Cfg     `json:"idea"`            // idea sweep
	Ideas    []IdeaArm `json:"ideas,omitempty"` // further ideas against the same baseline
	Arch     Arch      `json:"arch"`            // model size

	// Blocks are the data blocks of the track kinds ("sequence",
	// "panel", "csv"); the kind Track names reads its own.
	track.Blocks

	Alpha float64 `json:"alpha"` // significance level of the comparison

	// MinEffectPct and MinEffect are the smallest improvement the user
	// cares about, relative (percent of the baseline's test mean) or
	// absolute (metric units); at most one is set. The power analysis
	// (comparison.power.min_effect) says how many seeds detect it.
	MinEffectPct float64 `json:"min_effect_pct,omitempty"`
	MinEffect    float64 `json:"min_effect,omitempty"`

	// Sequential, when set, runs the seeds in looks and stops once the
	// comparison is decided (see Sequential).
	Sequential *Sequential `json:"sequential,omitempty"`

	// ExtendGrid, when set, extends every arm's learning rates while an
	// arm's choice takes the edge of its grid (see GridExtension); the
	// grids above are where it starts.
	ExtendGrid *GridExtension `json:"extend_grid,omitempty"`

	// Tune, when set, draws every arm's grid from its own search space on
	// one number of cfgs (see Tune): the grids above are then its draws,
	// which Validate checks, and Build makes them.
	Tune *Tune `json:"tune,omitempty"`

	// Trainers names the arms trained by an external command instead of
	// the built-in model, by arm name ("baseline", "idea" or an idea
	// arm's name); see Trainer.
	Trainers map[string]*Trainer `json:"trainers,omitempty"`

	// Test is the test behind the headline p_value and verdict:
	// TestSelection (every profile but seed), valid when each arm
	// chooses its cfg on validation, or TestSignFlip (the seed report's),
	// on the chosen cfgs alone, conditional on each arm's choice.
	Test string `json:"test"`

	// UnequalBudget lets the idea arms train on another budget than the
	// baseline's (BudgetDiffs); every verdict of the report is then
	// marked "unequal budget". Without it Validate refuses such a
	// protocol.
	UnequalBudget bool `json:"unequal_budget,omitempty"`

	// DifferentRecipe lets the idea arms train with another recipe than
	// the baseline's cfg of the same index (RecipeDiffs: weight decay,
	// schedule, warmup, clipping); every verdict of the report is then
	// marked "different recipe". Without it Validate refuses such a
	// protocol.
	DifferentRecipe bool `json:"different_recipe,omitempty"`
}

// The headline tests (Protocol.Test).
const (
	// TestSelection is stats.SelectionPValue: each arm's choice of cfg is
	// repeated under every relabelling of the seeds.
	TestSelection = "selection-aware"
	// TestSignFlip is the sign-flip test of stats.Compare on the chosen
	// cfgs' per-seed differences, conditional on the choice.
	TestSignFlip = "sign-flip"
)

// MinEffectAt is the protocol's smallest improvement of interest as a mean
// difference idea - baseline against a baseline of mean baseMean: negative
// for a lower-is-better metric; 0 when none is set.
func (p Protocol) MinEffectAt(baseMean float64, dir stats.Direction) float64 {
	e := p.MinEffect
	if p.MinEffectPct > 0 {
		e = p.MinEffectPct / 100 * math.Abs(baseMean)
	}
	if dir == stats.LowerIsBetter {
		return -e
	}
	return e
}

// SeedProfile is the reference protocol of the seed report (profile
// "seed"): seeds 0..7, 8 epochs of plain Adam at a constant rate, baseline
// lr ∈ {0.001, 0.003, 0.006}, idea (lr,ρ,β) ∈ {(0.001,0.85,0.5),
// (0.003,0.9,0.5), (0.006,0.9,1.0)}, d=32, 4 heads, L=2, batch 32, a token
// per position, the default sequence track (1024/256/256 windows, T=32,
// H=8). Its baseline does not beat the linear reference forecaster; it is
// kept to reproduce the seed report.
func SeedProfile() Protocol {
	const e = 8
	return Protocol{
		Profile: "seed", Track: "sequence", Model: "transformer_tiny",
		Seeds:    []uint64{0, 1, 2, 3, 4, 5, 6, 7},
		Baseline: []Cfg{{LR: 0.001, Epochs: e}, {LR: 0.003, Epochs: e}, {LR: 0.006, Epochs: e}},
		Idea: []Cfg{{LR: 0.001, Epochs: e, Rho: 0.85, Beta: 0.5}, {LR: 0.003, Epochs: e, Rho: 0.9, Beta: 0.5},
			{LR: 0.006, Epochs: e, Rho: 0.9, Beta: 1.0}},
		Arch:   Arch{D: 32, Heads: 4, Layers: 2, Batch: 32},
		Blocks: track.DefaultBlocks(),
		Alpha:  0.05,
		Test:   TestSignFlip,
	}
}

// DefaultProtocol is the "full" profile on its own track, the panel
// track (see FullProfile).
func DefaultProtocol() Protocol { return FullProfile(DefaultTrack) }

// DefaultTrack is the track of the full and ci profiles when none is
// asked for.
const DefaultTrack = "panel"

// FullProfile is the default protocol ("full") on a track: seeds 0..7;
// both arms sweep the same three peak learning rates under the same
// training (AdamW with weight decay 0.05, 5% warmup then cosine decay,
// gradients clipped at norm 1, early stopping on val), so they get the
// same budget; the idea arm runs the gate at ρ = 0.8, β = 0.5. When an
// arm chooses the smallest or largest rate, both grids grow a step that
// way (DefaultGridExtension). The power analysis plans for a 1%
// improvement (min_effect_pct).
//
//   - panel: d=32, 4 heads, L=2, batch 32, tokens of 4 positions, every
//     token's forecast trained; lr ∈ {0.005, 0.015, 0.045}, 96 epochs,
//     patience 12; the default panel track.
//   - sequence: as panel with 12 epochs and the linear skip path
//     (starting at linear_ar), lr ∈ {0.0015, 0.005, 0.015}, and 8192
//     train windows of the default sequence track.
//   - csv: d=32, 4 heads, L=2, batch 32, tokens of 16 positions, norm
//     "last", the linear skip path, the last token's forecast trained;
//     lr ∈ {0.0001, 0.0003, 0.001}, 20 epochs of at most 32768 windows,
//     patience 5; the csv block comes from the caller (on a track of
//     several series the skip path starts at the shared or the
//     per-channel closed form, whichever val prefers (skip_start "val").
func FullProfile(trk string) Protocol { return profileOn("full", trk) }

// profileOn is the full or ci profile on track trk: the training its
// kind gives the profile (track.Kind.Profile), the gate at ρ = 0.8,
// β = 0.5 on the idea arm. An unknown track gets the panel's training
// and no block (Validate refuses it).
func profileOn(name, trk string) Protocol {
	p := Protocol{
		Profile: name, Track: trk, Model: "transformer_tiny",
		Seeds:  []uint64{0, 1, 2, 3, 4, 5, 6, 7},
		Blocks: track.DefaultBlocks(),
		Alpha:  0.05,
		Test:   TestSelection,
		// Plan for an improvement of 1% of the baseline's metric.
		MinEffectPct: 1,
		// A choice on the edge of the lr grid moves the grid.
		ExtendGrid: DefaultGridExtension(),
	}
	tr := track.Training{LRs: []float64{0.005, 0.015, 0.045}, Epochs: 12, Patience: 3, Patch: 4}
	if name == "ci" {
		tr.Epochs = 3
	}
	if k, ok := track.LookupKind(trk); ok {
		tr = k.Profile(name, &p.Blocks)
	}
	p.Arch = Arch{D: cmp.Or(tr.D, 32), Heads: 4, Layers: 2, Batch: cmp.Or(tr.Batch, 32), Patch: tr.Patch, Norm: tr.Norm, Skip: tr.Skip, SkipStart: tr.SkipStart, Loss: tr.Loss}
	for _, lr := range tr.LRs {
		c := Cfg{LR: lr, Epochs: tr.Epochs, WeightDecay: cmp.Or(tr.WeightDecay, 0.05), Schedule: ScheduleCosine, Warmup: cmp.Or(tr.Warmup, 0.05), Clip: 1, Patience: tr.Patience, EpochWindows: tr.EpochWindows}
		p.Baseline = append(p.Baseline, c)
		c.Rho, c.Beta = 0.8, 0.5
		p.Idea = append(p.Idea, c)
	}
	return p
}

// withTune is p, a full or ci profile's fixed grids, with its tune block
// and the grids it draws: every arm searches its own space on one
// number of cfgs, the full profile twice as many as its rates, so an
// idea's parameters get draws of their own, the ci profile as many as
// its rates (a smoke test's).
func withTune(p Protocol) Protocol {
	k := 2 * len(p.Baseline)
	if p.Profile == "ci" {
		k = len(p.Baseline)
	}
	p.Tune = &Tune{Cfgs: k, Seed: 1}
	return p.Tuned()
}

// CIProfile is CIProfileFor the panel track.
func CIProfile() Protocol { return CIProfileFor(DefaultTrack) }

// CIProfileFor has the structure of FullProfile(trk) (same grids, 8
// seeds, same model) on less data and fewer epochs, so `go test ./...`
// stays fast: panel 1024/256/256 series and 3 epochs (patience 3),
// sequence 128/64/64 windows and 3 epochs, csv 2 epochs.
func CIProfileFor(trk string) Protocol { return profileOn("ci", trk) }

// Profile returns the named profile on its own track: "full" (the
// default), "seed" or "ci".
func Profile(name string) (Protocol, error) { return ProfileFor(name, "") }

// ProfileFor returns the named profile on the track trk ("" for the
// profile's own), as the command line and a suite start from it: full
// and ci bring the architecture and training of that track
// (FullProfile, CIProfileFor) with a tune block (Tune: 6 cfgs an arm in
// the full profile, as many as its rates in ci) and the grids it draws;
// seed keeps its own fixed grids and switches the track only.
func ProfileFor(name, trk string) (Protocol, error) {
	switch name {
	case "", "full":
		if trk == "" {
			trk = DefaultTrack
		}
		return withTune(FullProfile(trk)), nil
	case "ci":
		if trk == "" {
			trk = DefaultTrack
		}
		return withTune(CIProfileFor(trk)), nil
	case "seed":
		p := SeedProfile()
		if trk != "" {
			p.Track = trk
		}
		if k, ok := track.LookupKind(trk); ok {
			k.Profile(name, &p.Blocks) // the block only: seed keeps its training
		}
		return p, nil
	}
	return Protocol{}, fmt.Errorf("protocol: profile %q is unknown; use full, seed or ci", name)
}

// Load reads a JSON config file (ReadConfig) over the given
// profile, as Parse does.
func Load(path string, base Protocol) (Protocol, error) {
	raw, err := ReadConfig(path)
	if err != nil {
		return Protocol{}, err
	}
	return Parse(raw, path, base)
}

// Parse decodes a JSON config, read from the file name (used only
// in messages), over base and validates the result. Fields it leaves out
// keep base's values; a grid it gives (seeds, baseline, idea) replaces
// base's whole. Malformed JSON is an error naming the file and the
// line:column of the fault; a value of the wrong type, an unknown key (keys
// are case-sensitive) and a repeated key also name their JSON path.
func Parse(raw []byte, name string, base Protocol) (Protocol, error) {
	p, err := decodeProtocol(raw, name, base)
	if err != nil {
		return Protocol{}, err
	}
	if err := p.Validate(); err != nil {
		return Protocol{}, fmt.Errorf("protocol: config %s: %w", name, err)
	}
	return p, nil
}

// decodeProtocol is Parse without the validation.
func decodeProtocol(raw []byte, name string, base Protocol) (Protocol, error) {
	doc, err := jsonstrict.Parse(raw, name, "config", reflect.TypeFor[Protocol]())
	if err != nil {
		return Protocol{}, fmt.Errorf("protocol: %w", err)
	}
	p := base
	// encoding/json decodes array elements over the existing ones, so a
	// grid entry would inherit the profile's fields: given grids replace
	// the profile's whole.
	grids, tune := false, false
	for _, v := range doc.Values() {
		if len(v.Path) != 1 {
			continue
		}
		switch v.Path[0] {
		case "baseline":
			p.Baseline, grids = nil, true
		case "idea":
			p.Idea, grids = nil, true
		case "ideas":
			p.Ideas = nil
		case "seeds":
			p.Seeds = nil
		case "tune":
			tune = true
		}
	}
	if grids && !tune {
		// A config's own baseline or idea grid is taken as given: the
		// profile's tuner would draw over it.
		p.Tune = nil
	}
	if err := doc.Decode(&p); err != nil {
		return Protocol{}, fmt.Errorf("protocol: %w", err)
	}
	if base.Profile != "" && p.Profile != base.Profile {
		// The key names the profile a config starts from; it cannot
		// switch the profile, whose grids, model and test are already in
		// place.
		return Protocol{}, fmt.Errorf("protocol: config %s: profile = %q: the config is applied over the %q profile, and a config cannot switch it; choose the profile with --profile (full, seed or ci) and leave the key out, or set it to %q", name, p.Profile, base.Profile, base.Profile)
	}
	return p, nil
}

// Upper bounds of Validate: beyond them sizes overflow the arithmetic
// of the estimates, long before any machine could run them; what fits a
// machine is Protocol.Estimate's to say.
const (
	maxArch   = 1 << 16 // arch.d, arch.heads, arch.layers
	maxBatch  = 1 << 24 // arch.batch
	maxEpochs = 1 << 30 // epochs and patience of a cfg
	maxSeeds  = 1 << 16 // seeds of a protocol
	// maxContext bounds cfg.context (and is far beyond any file's rows).
	maxContext = 1 << 24
)

// Validate reports every invalid field, joined with errors.Join, each as
//
//	<JSON path> = <value>: <what is wrong>; <fix>
func (p Protocol) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	kind, known := track.LookupKind(p.Track)
	errs = append(errs, p.headErrors(known)...)
	ge, gridsValid := p.gridErrors(kind, known)
	errs = append(errs, ge...)
	errs = append(errs, p.archErrors(kind, known)...)
	if known {
		// The data blocks come after arch in the JSON, and their errors
		// here.
		errs = append(errs, kind.Validate(&p.Blocks)...)
	}
	switch p.Test {
	case TestSelection, TestSignFlip:
	default:
		bad("test = %q: unknown headline test; use %q (valid when each arm chooses its cfg on val) or %q (the seed report's, on the chosen cfgs, conditional on each arm's choice)", p.Test, TestSelection, TestSignFlip)
	}
	if gridsValid { // the budgets of valid grids
		if d := p.BudgetDiffs(); len(d) > 0 && !p.UnequalBudget {
			errs = append(errs, budgetError(d))
		}
		if d := p.RecipeDiffs(); len(d) > 0 && !p.DifferentRecipe {
			errs = append(errs, recipeError(d))
		}
		errs = append(errs, p.tuneErrors()...)
	}
	if err := stats.CheckAlpha(p.Alpha); err != nil {
		bad("alpha = %v: %v", p.Alpha, err)
	}
	if err := stats.CheckMinEffectPct(p.MinEffectPct); err != nil {
		bad("min_effect_pct = %v: %v", p.MinEffectPct, err)
	}
	if !(p.MinEffect >= 0) || math.IsInf(p.MinEffect, 0) {
		bad("min_effect = %v: must be a finite improvement >= 0 in the metric's units; use e.g. 0.005", p.MinEffect)
	}
	errs = append(errs, p.trainerErrors()...)
	if p.Sequential != nil {
		errs = append(errs, p.Sequential.errors(p)...)
	}
	if p.ExtendGrid != nil {
		errs = append(errs, p.ExtendGrid.errors(p)...)
	}
	if p.MinEffectPct > 0 && p.MinEffect > 0 {
		bad("min_effect = %v: min_effect_pct = %v is set too; give the smallest effect of interest one way, relative or absolute", p.MinEffect, p.MinEffectPct)
	}
	return errors.Join(errs...)
}

// headErrors validates the track (known: registered), the model and the
// seeds.
func (p Protocol) headErrors(known bool) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if !known {
		bad("track = %q: unknown track; use %s", p.Track, orList(kindNames()))
	}
	if p.Model != "transformer_tiny" {
		bad("model = %q: unknown model; use \"transformer_tiny\"", p.Model)
	}
	if len(p.Seeds) < 2 {
		bad("seeds = %v: a paired comparison needs at least 2 seeds; list more, e.g. [0, 1, 2, 3, 4, 5, 6, 7]", p.Seeds)
	}
	if len(p.Seeds) > maxSeeds {
		bad("seeds: %d seeds, at most %d; a sequential design (sequential.max_seeds) adds seeds only while the comparison is undecided", len(p.Seeds), maxSeeds)
	}
	first := make(map[uint64]int, len(p.Seeds))
	for i, s := range p.Seeds {
		if j, ok := first[s]; ok {
			bad("seeds[%d] = %d: repeats seeds[%d]; list each seed once", i, s, j)
			continue
		}
		first[s] = i
	}
	return errs
}

// gridErrors validates the idea arms' names and every cfg of every arm's
// grid on the track kind (known: registered), then that no two arms are
// one; valid reports that every cfg passed (the budgets and recipes of
// the grids are then comparable).
func (p Protocol) gridErrors(kind track.Kind, known bool) (errs []error, valid bool) {
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	type armGrid struct {
		name     string
		cs       []Cfg
		example  string
		external bool // trained by a Trainer
	}
	arms := []armGrid{
		{"baseline", p.Baseline, `{"lr": 0.001, "epochs": 8, "rho": 0, "beta": 0}`, p.Trainers["baseline"] != nil},
		{"idea", p.Idea, `{"lr": 0.001, "epochs": 8, "rho": 0.9, "beta": 0.5}`, p.Trainers["idea"] != nil},
	}
	names := map[string]int{}
	for k, a := range p.Ideas {
		at := fmt.Sprintf("ideas[%d]", k)
		switch j, dup := names[a.Name]; {
		case a.Name == "":
			bad("%s.name = \"\": empty; name the idea arm, e.g. \"rezero\"", at)
		case dup:
			bad("%s.name = %q: repeats ideas[%d].name; name each arm once", at, a.Name, j)
		default:
			names[a.Name] = k
		}
		arms = append(arms, armGrid{at + ".grid", a.Grid, `{"lr": 0.001, "epochs": 8, "rho": 0, "beta": 0, "idea": "rezero"}`, p.Trainers[a.Name] != nil})
	}
	cfgErrs := len(errs)
	for _, arm := range arms {
		if len(arm.cs) == 0 {
			bad("%s = []: empty grid; give at least one cfg such as %s", arm.name, arm.example)
		}
		for i, c := range arm.cs {
			at := fmt.Sprintf("%s[%d]", arm.name, i)
			if !(c.LR > 0) || math.IsInf(c.LR, 0) {
				bad("%s.lr = %v: must be a finite number > 0; use e.g. 0.001", at, c.LR)
			}
			if c.Epochs <= 0 || c.Epochs > maxEpochs {
				bad("%s.epochs = %d: must be in [1, %d]; use e.g. 8", at, c.Epochs, maxEpochs)
			}
			if !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0) {
				bad("%s.weight_decay = %v: must be a finite number >= 0; use e.g. 0.05 (0 is plain Adam)", at, c.WeightDecay)
			}
			switch c.Schedule {
			case "", ScheduleConstant, ScheduleCosine, ScheduleLinear:
			default:
				bad("%s.schedule = %q: unknown; use %q, %q or %q", at, c.Schedule, ScheduleConstant, ScheduleCosine, ScheduleLinear)
			}
			if !(c.Warmup >= 0 && c.Warmup < 1) {
				bad("%s.warmup = %v: the warmup fraction of the steps must be in [0,1); use e.g. 0.05", at, c.Warmup)
			}
			if !(c.Clip >= 0) || math.IsInf(c.Clip, 0) {
				bad("%s.clip = %v: must be a finite number >= 0; use e.g. 1 (0 never clips)", at, c.Clip)
			}
			if c.Patience < 0 || c.Patience > maxEpochs {
				bad("%s.patience = %d: must be >= 0; use e.g. 3 (0 keeps the last epoch's weights)", at, c.Patience)
			}
			switch {
			case c.Context < 0 || c.Context > maxContext:
				bad("%s.context = %d: must be in [0, %d]; use e.g. 336 (0 is the track's t)", at, c.Context, maxContext)
			case c.Context > 0 && !(known && kind.LookBacks()):
				bad("%s.context = %d: only the csv track cuts windows at several look-backs; the %s track generates windows of its own t, so leave context out", at, c.Context, p.Track)
			case c.Context > 0 && c.Context%max(p.Arch.Patch, 1) != 0:
				bad("%s.context = %d: arch.patch = %d must divide it; use %d, the nearest multiple, or another patch", at, c.Context, p.Arch.Patch, nearestMultiple(c.Context, p.Arch.Patch, maxContext))
			}
			if c.EpochWindows < 0 {
				bad("%s.epoch_windows = %d: must be >= 0; use e.g. 65536 (0 trains on every window each epoch)", at, c.EpochWindows)
			}
			if arm.external {
				continue // the cfg's idea fields are the trainer's to read
			}
			ie := c.ideaErrors(arm.name == "baseline")
			for _, e := range ie {
				bad("%s.%v", at, e)
			}
			if len(ie) == 0 && known && kind.Tokens() {
				if in, err := idea.New(c.IdeaConfig()); err == nil && in.Site() == idea.SiteHead {
					bad("%s.idea = %q: it sits at the head, which a token model runs at its labelled positions only; pick an idea at another site (ideabench help run lists each one's)", at, c.IdeaConfig().Name)
				}
			}
		}
	}
	valid = len(errs) == cfgErrs
	// The same idea arm twice (--idea fox --ideas fox, or fox:bias=1 and
	// fox:bias=1.0) trains the same trials twice and counts one
	// hypothesis twice in Holm's adjustment. An external trainer is
	// handed its arm's name, so two arms of one trainer may differ.
	for i, x := range arms[1:] {
		for _, y := range arms[2+i:] {
			if len(x.cs) > 0 && slices.Equal(x.cs, y.cs) && !x.external && !y.external {
				bad("%s = the cfgs of %s: arms %s and %s are one arm, which would train the same trials twice and count one idea twice in Holm's adjustment; drop one of them", y.name, x.name, p.ArmName(armOf(y.name)), p.ArmName(armOf(x.name)))
			}
		}
	}
	return errs, valid
}

// archErrors validates the model's architecture (arch) against the track
// kind (known: registered).
func (p Protocol) archErrors(kind track.Kind, known bool) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	a := p.Arch
	for _, f := range []struct {
		name            string
		v, example, max int
	}{{"d", a.D, 32, maxArch}, {"heads", a.Heads, 4, maxArch}, {"layers", a.Layers, 2, maxArch}, {"batch", a.Batch, 32, maxBatch}} {
		switch {
		case f.v <= 0:
			bad("arch.%s = %d: must be >= 1; use e.g. %d", f.name, f.v, f.example)
		case f.v > f.max:
			bad("arch.%s = %d: at most %d (what fits a machine is checked against the memory at hand before training); use e.g. %d", f.name, f.v, f.max, f.example)
		}
	}
	if a.D > 0 && a.Heads > 0 && a.D%a.Heads != 0 {
		// Suggest the largest divisor of d at most heads, looking no more
		// than 64 below so that absurd sizes still validate at once; 1
		// always divides.
		k := min(a.Heads, a.D)
		for lo := k - 64; k > 1 && k > lo && a.D%k != 0; k-- {
		}
		if a.D%k != 0 {
			k = 1
		}
		bad("arch.heads = %d: must divide arch.d = %d; pick a divisor of %d such as %d", a.Heads, a.D, a.D, k)
	}
	t, _ := p.window()
	switch {
	case a.Patch < 0:
		bad("arch.patch = %d: must be >= 0 (0 or 1: a token per position); use e.g. 4", a.Patch)
	case t > 0 && t%max(a.Patch, 1) != 0:
		// A patch that also divides every cfg's context, so the hint
		// does not trade this error for theirs.
		g, of := t, ""
		for _, k := range p.Contexts() {
			if k > 0 && k <= maxContext && k != t {
				g, of = gcd(g, k), " and every cfg's context"
			}
		}
		bad("arch.patch = %d: must divide the track's t = %d (tokens of equal length); use %d, the nearest divisor of %d (t%s), or change the context", a.Patch, t, nearestDivisor(g, a.Patch), g, of)
	}
	switch a.Norm {
	case "", archname.NormRevIN, archname.NormLast:
	default:
		bad("arch.norm = %q: unknown; use %q, %q or leave it out", a.Norm, archname.NormRevIN, archname.NormLast)
	}
	switch a.Loss {
	case "", archname.LossAll:
		if a.Norm != "" {
			bad("arch.loss = %q: arch.norm needs loss %q (a window's statistics see the inputs earlier tokens forecast); set \"loss\": %q", a.Loss, archname.LossLast, archname.LossLast)
		}
	case archname.LossLast:
	default:
		bad("arch.loss = %q: unknown; use %q or %q", a.Loss, archname.LossAll, archname.LossLast)
	}
	tokens := known && kind.Tokens()
	switch a.Positions {
	case "", archname.PositionsLearned, archname.PositionsNone:
	default:
		bad("arch.positions = %q: unknown; use %q or %q (the model's position embedding; a logit bias such as alibi is an idea)", a.Positions, archname.PositionsLearned, archname.PositionsNone)
	}
	if tokens {
		for _, f := range []struct {
			name string
			v    any
			set  bool
		}{{"patch", a.Patch, a.Patch > 1}, {"norm", fmt.Sprintf("%q", a.Norm), a.Norm != ""}, {"skip", a.Skip, a.Skip},
			{"skip_start", fmt.Sprintf("%q", a.SkipStart), a.SkipStart != ""}, {"loss", fmt.Sprintf("%q", a.Loss), a.Loss != ""}} {
			if f.set {
				bad("arch.%s = %v: a forecaster's setting; the %s track's model reads token ids and is trained on the cross-entropy of its labelled positions, so leave it out", f.name, f.v, p.Track)
			}
		}
	}
	several := known && kind.Several(&p.Blocks)
	switch a.SkipStart {
	case "":
	case SkipStartPerChannel, SkipStartVal:
		perChannel := a.SkipStart == SkipStartPerChannel || several
		switch {
		case !a.Skip:
			bad("arch.skip_start = %q: needs arch.skip (it says where the skip path starts); set \"skip\": true", a.SkipStart)
		case a.SkipStart == SkipStartPerChannel && !several:
			bad("arch.skip_start = %q: needs a track of several series; use the csv track with csv.channels %q or %q, or skip_start %q", a.SkipStart, track.ChannelsIndependent, track.ChannelsMixed, SkipStartVal)
		case perChannel && a.Norm != "" && a.Norm != archname.NormLast:
			bad("arch.skip_start = %q: under norm %q the per-channel maps would need each window's statistics; use norm %q or none", a.SkipStart, a.Norm, archname.NormLast)
		case perChannel && a.Loss != archname.LossLast:
			bad("arch.skip_start = %q: the per-channel maps forecast the last token's horizon only; set \"loss\": %q", a.SkipStart, archname.LossLast)
		}
	default:
		bad("arch.skip_start = %q: unknown; use %q, %q or leave it out (the shared fit)", a.SkipStart, SkipStartPerChannel, SkipStartVal)
	}
	if several && a.Skip && a.Norm == archname.NormRevIN {
		bad("arch.norm = %q: the skip path's start on a track of several series is fitted in closed form from the series' rows, which each window's own statistics do not allow; use norm %q or none", a.Norm, archname.NormLast)
	}
	return errs
}

// nearestDivisor is the divisor of t nearest to k, the smaller on a tie.
func nearestDivisor(t, k int) int {
	best := 1
	for d := 1; d <= t; d++ {
		if t%d == 0 && abs(d-k) < abs(best-k) {
			best = d
		}
	}
	return best
}

// nearestMultiple is the multiple of k (k <= 1: of 1) nearest to x, at
// least k and at most hi.
func nearestMultiple(x, k, hi int) int {
	k = max(k, 1)
	m := max(1, (x+k/2)/k) * k
	if m > hi {
		m = hi / k * k
	}
	return m
}

func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// window returns the track's context length and horizon; the sequence
// block's when the track or its block is missing, which Validate
// refuses.
func (p Protocol) window() (t, h int) {
	if k, ok := track.LookupKind(p.Track); ok {
		if t, h, ok := k.Window(&p.Blocks); ok {
			return t, h
		}
	}
	return p.Sequence.T, p.Sequence.H
}

// kindNames lists the registered track kinds in registry order, quoted.
func kindNames() []string {
	var out []string
	for _, k := range track.Kinds() {
		out = append(out, fmt.Sprintf("%q", k.Name()))
	}
	return out
}

// orList joins xs as "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// Unjoin returns the errors an errors.Join holds, or err alone; nil for
// nil.
func Unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// IdeaArm is a further idea compared with the same baseline in the same
// run: its own grid, selected on val like the idea arm's, its own paired
// comparison, and Holm's adjustment across every idea arm.
type IdeaArm struct {
	Name string `json:"name"` // its label in the report, e.g. "rezero"
	Grid []Cfg  `json:"grid"` // its sweep, as idea's
}

// armOf is the Trial.Arm of an arm's grid path in Validate's messages
// ("idea", "ideas[2].grid" -> "ideas[2]").
func armOf(path string) string { return strings.TrimSuffix(path, ".grid") }

// IdeasArm is the Trial.Arm of the further idea arm k.
func IdeasArm(k int) string { return fmt.Sprintf("ideas[%d]", k) }

// Trial is one training run: an arm's cfg on one seed.
type Trial struct {
	Arm  string // "baseline", "idea" or "ideas[k]"
	Cfg  int    // index into the arm's grid
	Seed uint64
}

// Trials lists every trial in a fixed order: baseline then idea, cfg by
// cfg, seed by seed.
func (p Protocol) Trials() []Trial {
	var ts []Trial
	for _, arm := range []struct {
		name string
		cs   []Cfg
	}{{"baseline", p.Baseline}, {"idea", p.Idea}} {
		for i := range arm.cs {
			for _, s := range p.Seeds {
				ts = append(ts, Trial{Arm: arm.name, Cfg: i, Seed: s})
			}
		}
	}
	for k, a := range p.Ideas {
		for i := range a.Grid {
			for _, s := range p.Seeds {
				ts = append(ts, Trial{Arm: IdeasArm(k), Cfg: i, Seed: s})
			}
		}
	}
	return ts
}

// Grid returns the grid of arm ("baseline", "idea" or "ideas[k]"), nil
// for an unknown arm.
func (p Protocol) Grid(arm string) []Cfg {
	switch arm {
	case "baseline":
		return p.Baseline
	case "idea":
		return p.Idea
	}
	for k, a := range p.Ideas {
		if arm == IdeasArm(k) {
			return a.Grid
		}
	}
	return nil
}

// Cfg returns the trial's Cfg.
func (p Protocol) Cfg(t Trial) Cfg { return p.Grid(t.Arm)[t.Cfg] }
