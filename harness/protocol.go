package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"

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
	Profile  string               `json:"profile"`       // name of the profile it started from
	Track    string               `json:"track"`         // "sequence" or "csv"
	Model    string               `json:"model"`         // "transformer_tiny"
	Seeds    []uint64             `json:"seeds"`         // training seeds, paired across arms
	Baseline []Cfg                `json:"baseline"`      // baseline sweep (β = 0)
	Idea     []Cfg                `json:"idea"`          // idea sweep
	Arch     Arch                 `json:"arch"`          // model size
	Sequence track.SequenceConfig `json:"sequence"`      // data of the sequence track
	CSV      *track.CSVConfig     `json:"csv,omitempty"` // data of the csv track
	Alpha    float64              `json:"alpha"`         // significance level of the comparison
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

// LoadProtocol reads a JSON config file over the given profile, as
// ParseProtocol does.
func LoadProtocol(path string, base Protocol) (Protocol, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Protocol{}, fmt.Errorf("harness: config: %w", err)
	}
	return ParseProtocol(raw, path, base)
}

// ParseProtocol decodes a JSON config, read from the file name (used only
// in messages), over base and validates the result. Fields it leaves out
// keep base's values; a grid it gives (seeds, baseline, idea) replaces
// base's whole. Malformed JSON is an error naming the file and the
// line:column of the fault; a value of the wrong type, an unknown key (keys
// are case-sensitive) and a repeated key also name their JSON path.
func ParseProtocol(raw []byte, name string, base Protocol) (Protocol, error) {
	if err := checkJSONObject(raw, name, "config"); err != nil {
		return Protocol{}, err
	}
	vals, err := jsonValues(raw)
	if err != nil {
		return Protocol{}, fmt.Errorf("harness: config %s: %w", name, err)
	}
	if err := checkKeys(raw, vals, name, reflect.TypeFor[Protocol]()); err != nil {
		return Protocol{}, err
	}
	p := base
	// encoding/json decodes array elements over the existing ones, so a
	// grid entry would inherit the profile's fields: given grids replace
	// the profile's whole.
	for _, v := range vals {
		if len(v.path) != 1 {
			continue
		}
		switch v.path[0] {
		case "baseline":
			p.Baseline = nil
		case "idea":
			p.Idea = nil
		case "seeds":
			p.Seeds = nil
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Protocol{}, decodeError(raw, vals, name, "config", err)
	}
	if err := p.Validate(); err != nil {
		return Protocol{}, fmt.Errorf("harness: config %s: %w", name, err)
	}
	return p, nil
}

// Validate reports every invalid field, joined with errors.Join, each as
//
//	<JSON path> = <value>: <what is wrong>; <fix>
func (p Protocol) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	switch p.Track {
	case "sequence":
	case "csv":
		if p.CSV == nil {
			bad("csv: missing; the csv track needs {\"path\": FILE, \"target\": COLUMN, \"t\": 96, \"h\": 96}")
		} else if err := p.CSV.Validate(); err != nil {
			es := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				es = j.Unwrap()
			}
			for _, e := range es {
				bad("%v", e)
			}
		}
	default:
		bad("track = %q: unknown track; use \"sequence\" or \"csv\"", p.Track)
	}
	if p.Model != "transformer_tiny" {
		bad("model = %q: unknown model; use \"transformer_tiny\"", p.Model)
	}
	if len(p.Seeds) < 2 {
		bad("seeds = %v: a paired comparison needs at least 2 seeds; list more, e.g. [0, 1, 2, 3, 4, 5, 6, 7]", p.Seeds)
	}
	first := make(map[uint64]int, len(p.Seeds))
	for i, s := range p.Seeds {
		if j, ok := first[s]; ok {
			bad("seeds[%d] = %d: repeats seeds[%d]; list each seed once", i, s, j)
			continue
		}
		first[s] = i
	}
	for _, arm := range []struct {
		name    string
		cs      []Cfg
		example string
	}{
		{"baseline", p.Baseline, `{"lr": 0.001, "epochs": 8, "rho": 0, "beta": 0}`},
		{"idea", p.Idea, `{"lr": 0.001, "epochs": 8, "rho": 0.9, "beta": 0.5}`},
	} {
		if len(arm.cs) == 0 {
			bad("%s = []: empty grid; give at least one cfg such as %s", arm.name, arm.example)
		}
		for i, c := range arm.cs {
			at := fmt.Sprintf("%s[%d]", arm.name, i)
			if !(c.LR > 0) || math.IsInf(c.LR, 0) {
				bad("%s.lr = %v: must be a finite number > 0; use e.g. 0.001", at, c.LR)
			}
			if c.Epochs <= 0 {
				bad("%s.epochs = %d: must be >= 1; use e.g. 8", at, c.Epochs)
			}
			if !(c.Rho >= 0 && c.Rho < 1) {
				bad("%s.rho = %v: must be in [0,1); pick a memory factor such as 0.9", at, c.Rho)
			}
			switch {
			case arm.name == "baseline" && c.Beta != 0:
				bad("%s.beta = %v: the baseline arm has no gate; set beta to 0", at, c.Beta)
			case !(c.Beta >= 0) || math.IsInf(c.Beta, 0):
				bad("%s.beta = %v: must be a finite number >= 0; pick a gain strength such as 0.5 (0 switches the gate off)", at, c.Beta)
			}
		}
	}
	a := p.Arch
	for _, f := range []struct {
		name       string
		v, example int
	}{{"d", a.D, 32}, {"heads", a.Heads, 4}, {"layers", a.Layers, 2}, {"batch", a.Batch, 32}} {
		if f.v <= 0 {
			bad("arch.%s = %d: must be >= 1; use e.g. %d", f.name, f.v, f.example)
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
	if p.Track != "sequence" {
		// The sequence block is not used.
	} else if err := p.Sequence.Validate(); err != nil {
		// The track joins one error per field, each naming its JSON key
		// under the track's prefix.
		es := []error{err}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			es = j.Unwrap()
		}
		for _, e := range es {
			bad("sequence.%s", strings.TrimPrefix(e.Error(), "track: "))
		}
	} else if p.Sequence.TrainWindows < p.Sequence.T+1 {
		bad("sequence.train_windows = %d: the linear reference forecaster needs at least sequence.t+1 = %d; raise it to %d or more", p.Sequence.TrainWindows, p.Sequence.T+1, p.Sequence.T+1)
	}
	if !(p.Alpha > 0 && p.Alpha < 1) {
		bad("alpha = %v: must be in (0,1); use e.g. 0.05", p.Alpha)
	}
	return errors.Join(errs...)
}

// modelConfig is the transformer config of one cfg, with one input
// channel (the channel count of a csv track is known once its file is
// read; see ModelConfig).
func (p Protocol) modelConfig(c Cfg) transformer.Config {
	t, h := p.Sequence.T, p.Sequence.H
	if p.Track == "csv" && p.CSV != nil {
		t, h = p.CSV.T, p.CSV.H
	}
	return transformer.Config{
		D: p.Arch.D, Heads: p.Arch.Heads, Layers: p.Arch.Layers,
		T: t, H: h, CIn: 1, Gate: c.Gate(),
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
