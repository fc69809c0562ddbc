package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/ideabench/ideabench/gate"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// Cfg is one point of a sweep: the report's "cfg" object.
type Cfg struct {
	LR     float64 `json:"lr"`     // Adam learning rate
	Epochs int     `json:"epochs"` // passes over the train windows
	Rho    float64 `json:"rho"`    // gate memory factor ρ
	Beta   float64 `json:"beta"`   // gate strength β; 0 is the baseline
}

// Gate is the gate part of the config.
func (c Cfg) Gate() gate.Params { return gate.Params{Rho: c.Rho, Beta: c.Beta} }

// Arch is the model size; T and H come from the track.
type Arch struct {
	D      int `json:"d"`      // model width
	Heads  int `json:"heads"`  // attention heads
	Layers int `json:"layers"` // blocks
	Batch  int `json:"batch"`  // training batch size
}

// Protocol is everything a run depends on. A config file is a JSON
// Protocol; fields it leaves out keep the chosen profile's values.
type Protocol struct {
	Profile  string               `json:"profile"`  // name of the profile it started from
	Track    string               `json:"track"`    // "sequence"
	Model    string               `json:"model"`    // "transformer_tiny"
	Seeds    []uint64             `json:"seeds"`    // training seeds, paired across arms
	Baseline []Cfg                `json:"baseline"` // baseline sweep (β = 0)
	Idea     []Cfg                `json:"idea"`     // idea sweep
	Arch     Arch                 `json:"arch"`     // model size
	Sequence track.SequenceConfig `json:"sequence"` // data of the sequence track
	Alpha    float64              `json:"alpha"`    // significance level of the comparison
}

// DefaultProtocol is the reference protocol of the seed report: seeds
// 0..7, 8 epochs, baseline lr ∈ {0.001, 0.003, 0.006}, idea (lr,ρ,β) ∈
// {(0.001,0.85,0.5), (0.003,0.9,0.5), (0.006,0.9,1.0)}, d=32, 4 heads,
// L=2, batch 32, the default sequence track (1024/256/256 windows, T=32,
// H=8).
func DefaultProtocol() Protocol {
	const e = 8
	return Protocol{
		Profile: "full", Track: "sequence", Model: "transformer_tiny",
		Seeds:    []uint64{0, 1, 2, 3, 4, 5, 6, 7},
		Baseline: []Cfg{{0.001, e, 0, 0}, {0.003, e, 0, 0}, {0.006, e, 0, 0}},
		Idea:     []Cfg{{0.001, e, 0.85, 0.5}, {0.003, e, 0.9, 0.5}, {0.006, e, 0.9, 1.0}},
		Arch:     Arch{D: 32, Heads: 4, Layers: 2, Batch: 32},
		Sequence: track.DefaultSequenceConfig(),
		Alpha:    0.05,
	}
}

// CIProfile has the structure of DefaultProtocol (same grids, 8 seeds,
// same model) on less data and fewer epochs, so `go test ./...` stays fast.
func CIProfile() Protocol {
	p := DefaultProtocol()
	p.Profile = "ci"
	p.Sequence.TrainWindows, p.Sequence.ValWindows, p.Sequence.TestWindows = 128, 64, 64
	for _, cs := range [][]Cfg{p.Baseline, p.Idea} {
		for i := range cs {
			cs[i].Epochs = 3
		}
	}
	return p
}

// Profile returns the named profile: "full" or "ci".
func Profile(name string) (Protocol, error) {
	switch name {
	case "", "full":
		return DefaultProtocol(), nil
	case "ci":
		return CIProfile(), nil
	}
	return Protocol{}, fmt.Errorf("harness: profile %q is unknown; use full or ci", name)
}

// LoadProtocol reads a JSON config file over the given profile. Unknown
// fields are an error, and the result is validated.
func LoadProtocol(path string, base Protocol) (Protocol, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Protocol{}, fmt.Errorf("harness: config: %w", err)
	}
	p := base
	// encoding/json decodes array elements over the existing ones, so a
	// grid entry would inherit the profile's fields: given grids replace
	// the profile's whole.
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return Protocol{}, fmt.Errorf("harness: config %s: %w", path, err)
	}
	if _, ok := keys["baseline"]; ok {
		p.Baseline = nil
	}
	if _, ok := keys["idea"]; ok {
		p.Idea = nil
	}
	if _, ok := keys["seeds"]; ok {
		p.Seeds = nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Protocol{}, fmt.Errorf("harness: config %s: %w", path, err)
	}
	if err := p.Validate(); err != nil {
		return Protocol{}, fmt.Errorf("harness: config %s: %w", path, err)
	}
	return p, nil
}

// Validate reports every invalid field by its JSON path and the fix.
func (p Protocol) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if p.Track != "sequence" {
		bad("track = %q: only \"sequence\" is available", p.Track)
	}
	if p.Model != "transformer_tiny" {
		bad("model = %q: only \"transformer_tiny\" is available", p.Model)
	}
	if len(p.Seeds) < 2 {
		bad("seeds: %d seed(s); a paired comparison needs at least 2 (8 is the default)", len(p.Seeds))
	}
	s := slices.Clone(p.Seeds)
	slices.Sort(s)
	if len(slices.Compact(s)) != len(p.Seeds) {
		bad("seeds: duplicate seeds; list each seed once")
	}
	for arm, cs := range map[string][]Cfg{"baseline": p.Baseline, "idea": p.Idea} {
		if len(cs) == 0 {
			bad("%s: empty grid; give at least one cfg", arm)
		}
		for i, c := range cs {
			if !(c.LR > 0) {
				bad("%s[%d].lr = %v must be > 0 (e.g. 0.001)", arm, i, c.LR)
			}
			if c.Epochs <= 0 {
				bad("%s[%d].epochs = %d must be >= 1", arm, i, c.Epochs)
			}
			if err := c.Gate().Validate(); err != nil {
				bad("%s[%d]: %v", arm, i, err)
			}
			if arm == "baseline" && c.Beta != 0 {
				bad("baseline[%d].beta = %v: the baseline arm has no gate; set beta to 0", i, c.Beta)
			}
		}
	}
	if err := p.modelConfig(Cfg{}).Validate(); err != nil {
		bad("arch: %v", err)
	}
	if p.Arch.Batch <= 0 {
		bad("arch.batch = %d must be >= 1", p.Arch.Batch)
	}
	if err := p.Sequence.Validate(); err != nil {
		bad("sequence: %v", err)
	} else if p.Sequence.TrainWindows < p.Sequence.T+1 {
		bad("sequence.train_windows = %d: the linear reference forecaster needs at least t+1 = %d", p.Sequence.TrainWindows, p.Sequence.T+1)
	}
	if !(p.Alpha > 0 && p.Alpha < 1) {
		bad("alpha = %v must be in (0,1), e.g. 0.05", p.Alpha)
	}
	return errors.Join(errs...)
}

// modelConfig is the transformer config of one cfg.
func (p Protocol) modelConfig(c Cfg) transformer.Config {
	return transformer.Config{
		D: p.Arch.D, Heads: p.Arch.Heads, Layers: p.Arch.Layers,
		T: p.Sequence.T, H: p.Sequence.H, CIn: 1, Gate: c.Gate(),
	}
}

// Trial is one training run: an arm's cfg on one seed.
type Trial struct {
	Arm  string // "baseline" or "idea"
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
	return ts
}

// cfg returns the trial's Cfg.
func (p Protocol) cfg(t Trial) Cfg {
	if t.Arm == "baseline" {
		return p.Baseline[t.Cfg]
	}
	return p.Idea[t.Cfg]
}
