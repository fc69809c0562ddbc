package protocol

import (
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"testing"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// messages splits a Validate error into its joined messages.
// messageShape is `<JSON path> = <value>: <what is wrong>; <fix>`.
var messageShape = regexp.MustCompile(`^[a-z_]+(\[\d+\])?(\.[a-z_]+(\[\d+\])?)* = [^:]+: [^;]+; .+$`)

func messages(t *testing.T, err error) []string {
	t.Helper()
	require.Error(t, err)
	j, ok := err.(interface{ Unwrap() []error })
	require.True(t, ok, "Validate must join its errors: %v", err)
	var out []string
	for _, e := range j.Unwrap() {
		out = append(out, e.Error())
	}
	return out
}

func TestValidateEachField(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name      string
		edit      func(p *Protocol)
		path, fix string // the message starts with path and contains fix
	}{
		{"track", func(p *Protocol) { p.Track = "parquet" }, `track = "parquet"`, `use "panel", "sequence", "csv", "tsf", "mqar"`},
		{"min_effect_pct", func(p *Protocol) { p.MinEffectPct = 150 }, "min_effect_pct = 150", "use e.g. 1"},
		{"min_effect_nan", func(p *Protocol) { p.MinEffect = nan }, "min_effect = NaN", "use e.g. 0.005"},
		{"min_effect_both", func(p *Protocol) { p.MinEffect = 0.01 }, "min_effect = 0.01: min_effect_pct = 1 is set too", "one way"},
		{"model", func(p *Protocol) { p.Model = "gpt" }, `model = "gpt"`, `use "transformer_tiny"`},
		{"no_seeds", func(p *Protocol) { p.Seeds = nil }, "seeds = []", "at least 2 seeds"},
		{"one_seed", func(p *Protocol) { p.Seeds = []uint64{3} }, "seeds = [3]", "at least 2 seeds"},
		// The message names the later copy and the first.
		{"duplicate_seeds", func(p *Protocol) { p.Seeds = []uint64{4, 5, 4} }, "seeds[2] = 4: repeats seeds[0]", "list each seed once"},
		{"empty_baseline", func(p *Protocol) { p.Baseline = nil }, "baseline = []", "give at least one cfg"},
		// A token model runs its head on the labelled positions only, so
		// an idea at the head is refused before any trial, not by the
		// model once trials start.
		{"head_idea_on_tokens", func(p *Protocol) {
			*p = CIProfileFor("mqar")
			p.Idea[0] = p.Baseline[0].WithIdea(idea.Config{Name: "calib"})
		}, `idea[0].idea = "calib": it sits at the head`, "pick an idea at another site"},
		// One idea arm twice (--idea gate --ideas gate, or two spellings
		// of one parameter) is one hypothesis, not two.
		{"same_arm_twice", func(p *Protocol) { p.Ideas = []IdeaArm{{Name: "gate", Grid: slices.Clone(p.Idea)}} },
			"ideas[0].grid = the cfgs of idea: arms gate and idea are one arm", "drop one of them"},
		{"same_further_arm_twice", func(p *Protocol) {
			ema := func(l float64) []Cfg {
				var g []Cfg
				for _, c := range p.Baseline {
					g = append(g, c.WithIdea(idea.Config{Name: "ema", Params: idea.NewParams(map[string]float64{"lambda": l})}))
				}
				return g
			}
			p.Ideas = []IdeaArm{{Name: "ema:lambda=0.5", Grid: ema(0.5)}, {Name: "ema:lambda=0.50", Grid: ema(0.50)}, {Name: "ema:lambda=0.6", Grid: ema(0.6)}}
		}, "ideas[1].grid = the cfgs of ideas[0].grid: arms ema:lambda=0.50 and ema:lambda=0.5 are one arm", "drop one of them"},
		{"empty_idea", func(p *Protocol) { p.Idea = []Cfg{} }, "idea = []", "give at least one cfg"},
		{"lr_zero", func(p *Protocol) { p.Idea[1].LR = 0 }, "idea[1].lr = 0", "use e.g. 0.001"},
		{"lr_negative", func(p *Protocol) { p.Baseline[2].LR = -0.1 }, "baseline[2].lr = -0.1", "use e.g. 0.001"},
		{"lr_nan", func(p *Protocol) { p.Idea[0].LR = nan }, "idea[0].lr = NaN", "use e.g. 0.001"},
		{"lr_inf", func(p *Protocol) { p.Idea[0].LR = math.Inf(1) }, "idea[0].lr = +Inf", "use e.g. 0.001"},
		{"epochs_zero", func(p *Protocol) { p.Baseline[0].Epochs = 0 }, "baseline[0].epochs = 0", "use e.g. 8"},
		{"epochs_negative", func(p *Protocol) { p.Idea[2].Epochs = -3 }, "idea[2].epochs = -3", "use e.g. 8"},
		// ρ = 1 never forgets: the state is a running sum.
		{"rho_one", func(p *Protocol) { p.Idea[0].Rho = 1 }, "idea[0].rho = 1", "pick a memory factor such as 0.9"},
		{"rho_negative", func(p *Protocol) { p.Baseline[0].Rho = -0.5 }, "baseline[0].rho = -0.5", "pick a memory factor"},
		{"rho_nan", func(p *Protocol) { p.Idea[1].Rho = nan }, "idea[1].rho = NaN", "pick a memory factor"},
		{"beta_negative", func(p *Protocol) { p.Idea[0].Beta = -1 }, "idea[0].beta = -1", "pick a gain strength such as 0.5"},
		{"beta_nan", func(p *Protocol) { p.Idea[2].Beta = nan }, "idea[2].beta = NaN", "pick a gain strength"},
		{"beta_inf", func(p *Protocol) { p.Idea[2].Beta = math.Inf(1) }, "idea[2].beta = +Inf", "pick a gain strength"},
		{"baseline_gated", func(p *Protocol) { p.Baseline[1].Beta = 0.5 }, "baseline[1].beta = 0.5", "set beta to 0"},
		{"baseline_beta_nan", func(p *Protocol) { p.Baseline[1].Beta = nan }, "baseline[1].beta = NaN", "set beta to 0"},
		{"weight_decay_negative", func(p *Protocol) { p.Idea[0].WeightDecay = -0.1 }, "idea[0].weight_decay = -0.1", "use e.g. 0.05"},
		{"weight_decay_nan", func(p *Protocol) { p.Baseline[0].WeightDecay = nan }, "baseline[0].weight_decay = NaN", "use e.g. 0.05"},
		{"schedule_unknown", func(p *Protocol) { p.Idea[1].Schedule = "step" }, `idea[1].schedule = "step"`, `use "constant", "cosine" or "linear"`},
		// A warmup over every step would never reach lr.
		{"warmup_one", func(p *Protocol) { p.Baseline[2].Warmup = 1 }, "baseline[2].warmup = 1", "use e.g. 0.05"},
		{"warmup_negative", func(p *Protocol) { p.Baseline[2].Warmup = -0.1 }, "baseline[2].warmup = -0.1", "in [0,1)"},
		{"clip_inf", func(p *Protocol) { p.Idea[2].Clip = math.Inf(1) }, "idea[2].clip = +Inf", "use e.g. 1"},
		{"patience_negative", func(p *Protocol) { p.Idea[0].Patience = -2 }, "idea[0].patience = -2", "use e.g. 3"},
		{"epoch_windows_negative", func(p *Protocol) { p.Idea[1].EpochWindows = -1 }, "idea[1].epoch_windows = -1", "use e.g. 65536"},
		{"context_synthetic", func(p *Protocol) { p.Baseline[0].Context = 64 }, "baseline[0].context = 64", "leave context out"},
		{"context_negative", func(p *Protocol) { p.Baseline[1].Context = -5 }, "baseline[1].context = -5", "use e.g. 336"},
		{"patch_negative", func(p *Protocol) { p.Arch.Patch = -1 }, "arch.patch = -1", "use e.g. 4"},
		{"patch_not_dividing", func(p *Protocol) { p.Arch.Patch = 5 }, "arch.patch = 5: must divide the track's t = 32", "use 4, the nearest divisor of 32"},
		{"loss_unknown", func(p *Protocol) { p.Arch.Loss = "first" }, `arch.loss = "first"`, `use "all" or "last"`},
		// A window's statistics see what earlier tokens forecast.
		{"norm_all_tokens", func(p *Protocol) { p.Arch.Norm = "revin" }, `arch.loss = ""`, `set "loss": "last"`},
		{"norm_unknown", func(p *Protocol) { p.Arch.Norm = "minmax"; p.Arch.Loss = "last" }, `arch.norm = "minmax"`, `use "revin", "last" or leave it out`},
		{"d_zero", func(p *Protocol) { p.Arch.D = 0 }, "arch.d = 0", "use e.g. 32"},
		{"heads_zero", func(p *Protocol) { p.Arch.Heads = 0 }, "arch.heads = 0", "use e.g. 4"},
		{"layers_negative", func(p *Protocol) { p.Arch.Layers = -1 }, "arch.layers = -1", "use e.g. 2"},
		{"batch_zero", func(p *Protocol) { p.Arch.Batch = 0 }, "arch.batch = 0", "use e.g. 32"},
		{"heads_not_dividing", func(p *Protocol) { p.Arch.Heads = 3 }, "arch.heads = 3: must divide arch.d = 32", "pick a divisor of 32 such as 2"},
		{"heads_above_d", func(p *Protocol) { p.Arch.D, p.Arch.Heads = 6, 8 }, "arch.heads = 8: must divide arch.d = 6", "such as 6"},
		{"t_zero", func(p *Protocol) { p.Sequence.T = 0 }, "sequence.t = 0", "use e.g. 32"},
		{"h_negative", func(p *Protocol) { p.Sequence.H = -1 }, "sequence.h = -1", "use e.g. 8"},
		{"train_windows_zero", func(p *Protocol) { p.Sequence.TrainWindows = 0 }, "sequence.train_windows = 0", "use e.g. 1024"},
		{"val_windows_zero", func(p *Protocol) { p.Sequence.ValWindows = 0 }, "sequence.val_windows = 0", "use e.g. 256"},
		{"components_zero", func(p *Protocol) { p.Sequence.Components = 0 }, "sequence.components = 0", "use e.g. 3"},
		{"min_period_nan", func(p *Protocol) { p.Sequence.MinPeriod = nan }, "sequence.min_period = NaN", "use e.g. 6"},
		{"max_period_below_min", func(p *Protocol) { p.Sequence.MaxPeriod = 5 }, "sequence.max_period = 5", "use e.g. 48"},
		{"ar_coef_unit_root", func(p *Protocol) { p.Sequence.ARCoef = 1 }, "sequence.ar_coef = 1", "use e.g. 0.8"},
		{"noise_std_nan", func(p *Protocol) { p.Sequence.NoiseStd = nan }, "sequence.noise_std = NaN", "use e.g. 0.3"},
		// The linear reference forecaster fits t+1 coefficients.
		{"train_windows_below_t", func(p *Protocol) { p.Sequence.TrainWindows = 10 }, "sequence.train_windows = 10", "raise it to 33"},
		{"alpha_zero", func(p *Protocol) { p.Alpha = 0 }, "alpha = 0", "use e.g. 0.05"},
		{"alpha_one", func(p *Protocol) { p.Alpha = 1 }, "alpha = 1", "use e.g. 0.05"},
		{"alpha_nan", func(p *Protocol) { p.Alpha = nan }, "alpha = NaN", "use e.g. 0.05"},
		{"trainer_arm", func(p *Protocol) { p.Trainers = map[string]*Trainer{"ideaa": {Command: []string{"x"}}} }, "trainers.ideaa = {...}: no arm has this name", `"baseline", "idea"`},
		{"trainer_null", func(p *Protocol) { p.Trainers = map[string]*Trainer{"idea": nil} }, "trainers.idea = null", `{"command": ["python3", "train.py"]`},
		{"trainer_command", func(p *Protocol) { p.Trainers = map[string]*Trainer{"baseline": {}} }, "trainers.baseline.command = []: empty", `["python3", "train.py"]`},
		{"trainer_timeout", func(p *Protocol) { p.Trainers = map[string]*Trainer{"idea": {Command: []string{"x"}, TimeoutS: -1}} }, "trainers.idea.timeout_s = -1", "use e.g. 600"},
		{"trainer_tolerance", func(p *Protocol) { p.Trainers = map[string]*Trainer{"idea": {Command: []string{"x"}, Tolerance: 1}} }, "trainers.idea.rerun_tolerance = 1", "use e.g. 1e-06"},
		{"trainer_file", func(p *Protocol) {
			p.Trainers = map[string]*Trainer{"idea": {Command: []string{"x"}, Files: []string{""}}}
		}, `trainers.idea.files[0] = ""`, "give the path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := CIProfileFor("sequence")
			tc.edit(&p)
			msgs := messages(t, p.Validate())
			require.Len(t, msgs, 1, "one invalid field, one message: %q", msgs)
			assert.Regexp(t, messageShape, msgs[0])
			assert.Truef(t, len(msgs[0]) >= len(tc.path) && msgs[0][:len(tc.path)] == tc.path, "%q must start with %q", msgs[0], tc.path)
			assert.Contains(t, msgs[0], tc.fix)
		})
	}
}

// TestValidateReportsAll: every invalid field of one protocol is reported,
// in a fixed order.
func TestValidateReportsAll(t *testing.T) {
	p := CIProfileFor("sequence")
	p.Seeds = []uint64{1, 1}
	p.Baseline[0].LR = math.NaN()
	p.Idea[1].Rho = 1.5
	p.Idea[2].Beta = -1
	p.Arch.Heads = 3
	p.Arch.Batch = 0
	p.Sequence.T = 0
	p.Sequence.NoiseStd = -1
	p.Alpha = 2
	err := p.Validate()
	msgs := messages(t, err)
	var paths []string
	for _, m := range msgs {
		assert.Regexp(t, messageShape, m)
		paths = append(paths, regexp.MustCompile(`^\S+`).FindString(m))
	}
	require.Equal(t, []string{"seeds[1]", "baseline[0].lr", "idea[1].rho", "idea[2].beta", "arch.batch", "arch.heads",
		"sequence.t", "sequence.noise_std", "alpha"}, paths)
	require.Equal(t, err.Error(), p.Validate().Error(), "the order must not change between calls")
}

func TestValidateValid(t *testing.T) {
	for name, p := range map[string]Protocol{"full": DefaultProtocol(), "ci": CIProfile()} {
		t.Run(name, func(t *testing.T) { require.NoError(t, p.Validate()) })
	}
	t.Run("readme_example", func(t *testing.T) {
		p, err := Parse([]byte(`{
  "seeds": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
  "baseline": [
    {"lr": 0.001, "epochs": 8, "rho": 0, "beta": 0},
    {"lr": 0.003, "epochs": 8, "rho": 0, "beta": 0}
  ],
  "idea": [
    {"lr": 0.001, "epochs": 8, "rho": 0.85, "beta": 0.5},
    {"lr": 0.001, "epochs": 8, "rho": 0.95, "beta": 2.0}
  ],
  "arch": {"d": 32, "heads": 4, "layers": 2, "batch": 32},
  "sequence": {"data_seed": 1, "train_windows": 512, "noise_std": 0.3},
  "alpha": 0.05
}`), "example.json", DefaultProtocol())
		require.NoError(t, err)
		require.Len(t, p.Seeds, 12)
		// A partial sequence object keeps the profile's other fields.
		require.Equal(t, 512, p.Sequence.TrainWindows)
		require.Equal(t, DefaultProtocol().Sequence.T, p.Sequence.T)
	})
}

// TestParseProtocolErrors: faults of the JSON itself name the file, the
// line:column and, where there is one, the JSON path.
func TestParseProtocolErrors(t *testing.T) {
	for _, tc := range []struct {
		name, json string
		want       []string
	}{
		{"empty", "  \n", []string{"c.json: the file is empty"}},
		{"syntax", "{\n  \"seeds\": [0, 1],\n  \"alpha\": 0.05,,\n}", []string{"c.json:3:17: invalid character ','"}},
		{"truncated", "{\n  \"seeds\": [0,", []string{"c.json:2:15:", "looks truncated"}},
		{"nan", "{\"baseline\": [{\"lr\": 0.1},\n  {\"lr\": NaN}]}", []string{"c.json:2:10: baseline[1].lr: invalid character 'N'", "JSON has no NaN or Infinity"}},
		{"inf_in_array", `{"seeds": [0, Infinity]}`, []string{"c.json:1:15: seeds[1]: invalid character 'I'", "JSON has no NaN"}},
		{"nested", `{"arch": {"d": 16, "heads": x}}`, []string{"c.json:1:29: arch.heads: invalid character 'x'"}},
		{"trailing", `{} {}`, []string{"c.json:1:4: invalid character '{' after top-level value"}},
		{"not_object", `[1]`, []string{"c.json:1:1: the top level is an array, not a JSON object"}},
		{"null", ` null`, []string{"c.json:1:2: the top level is null"}},
		{"type", "{\"idea\": [\n  {\"lr\": 0.1, \"epochs\": 1, \"rho\": 0, \"beta\": 0},\n  {\"epochs\": \"8\"}]}",
			[]string{`c.json:3:14: idea[1].epochs = "8": not a whole number`, "write one such as 8"}},
		{"negative_seed", `{"seeds": [0, -1]}`, []string{`c.json:1:15: seeds[1] = -1: not a whole number >= 0`}},
		{"huge_number", `{"alpha": 1e999}`, []string{`c.json:1:11: alpha = 1e999: not a number in float64 range`}},
		{"object_for_array", `{"seeds": {"0": 1}}`, []string{`c.json:1:11: seeds = {"0": 1}: not an array`}},
		{"array_for_object", `{"arch": [32]}`, []string{`c.json:1:10: arch = [32]: not an object`, "keys d, heads, layers, batch"}},
		{"unknown", `{"arch": {"width": 32}}`, []string{`c.json:1:11: unknown field "width" in arch; arch takes d, heads, layers, batch`}},
		{"unknown_top", `{"learning_rate": 0.1}`, []string{`c.json:1:2: unknown field "learning_rate" in the top level`}},
		// encoding/json alone would match "Baseline" to baseline and decode
		// its entries over the profile's.
		{"wrong_case", `{"Baseline": []}`, []string{`unknown field "Baseline"`, `write "baseline"`}},
		{"wrong_case_nested", `{"idea": [{"LR": 0.1}]}`, []string{`unknown field "LR" in idea[0]`, `write "lr"`}},
		// encoding/json alone would decode the second grid over the first.
		{"duplicate", "{\"idea\": [],\n \"idea\": []}", []string{`c.json:2:2: duplicate key "idea"`}},
		{"invalid", `{"alpha": 0}`, []string{"c.json: alpha = 0: must be in (0,1)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.json), "c.json", CIProfile())
			require.Error(t, err)
			for _, w := range tc.want {
				assert.ErrorContains(t, err, w)
			}
		})
	}
}

// ExampleProtocol_Validate shows the shape of the messages.
func ExampleProtocol_Validate() {
	p := CIProfile()
	p.Arch.Heads = 3
	p.Alpha = 0
	var j interface{ Unwrap() []error }
	if errors.As(p.Validate(), &j) {
		for _, e := range j.Unwrap() {
			fmt.Println(e)
		}
	}
	// Output:
	// arch.heads = 3: must divide arch.d = 32; pick a divisor of 32 such as 2
	// alpha = 0: must be in (0,1); use e.g. 0.05
}

// TestDataWithinCSV: a csv track whose windows would not fit the memory
// at hand is refused from its file, before its windows are cut, with
// the way out; the same file fits as every column's rows alone.
func TestDataWithinCSV(t *testing.T) {
	p := CIProfileFor("csv")
	p.CSV = &track.CSVConfig{Path: "../track/testdata/tiny.csv", Channels: track.ChannelsMixed, T: 24, H: 6}
	p.Arch.Patch = 4
	mixed := 8 * 400.0 * 3 * 4 // C(C+1) values a row: three rotated copies and the target (track's csvBytes)
	_, err := p.DataWithin(context.Background(), Limits{MaxBytes: mixed / 2})
	require.ErrorIs(t, err, ErrBeyondLimits)
	require.ErrorContains(t, err, `csv.channels "independent"`)
	p.CSV.Channels = track.ChannelsIndependent
	d, err := p.DataWithin(context.Background(), Limits{MaxBytes: mixed / 2})
	require.NoError(t, err)
	require.Equal(t, 3, d.Train.Series())
}

// TestTokenArch: a token track refuses the forecasters' arch settings;
// every track refuses an unknown position embedding and takes a known
// one.
func TestTokenArch(t *testing.T) {
	for _, tc := range []struct {
		name, track string
		edit        func(*Arch)
		want        string
	}{
		{"positions unknown", "mqar", func(a *Arch) { a.Positions = "rotary" }, `arch.positions = "rotary": unknown`},
		{"positions unknown on panel", "panel", func(a *Arch) { a.Positions = "alibi" }, `arch.positions = "alibi": unknown`},
		{"patch", "mqar", func(a *Arch) { a.Patch = 4 }, "arch.patch = 4: a forecaster's setting"},
		{"norm", "recall", func(a *Arch) { a.Norm = "revin"; a.Loss = "last" }, `arch.norm = "revin": a forecaster's setting`},
		{"skip", "selective-copy", func(a *Arch) { a.Skip = true }, "arch.skip = true: a forecaster's setting"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := CIProfileFor(tc.track)
			tc.edit(&p.Arch)
			require.ErrorContains(t, p.Validate(), tc.want)
		})
	}
	for _, trk := range []string{"mqar", "panel"} {
		for _, pos := range []string{"", "learned", "none"} {
			p := CIProfileFor(trk)
			p.Arch.Positions = pos
			require.NoError(t, p.Validate(), "%s: positions %q", trk, pos)
		}
	}
}
