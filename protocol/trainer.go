package protocol

import (
	"fmt"
	"sort"
	"strings"

	"github.com/ideabench/ideabench/track"
)

// Trainer is an external trainer: a command that trains one trial of an
// arm in any framework and writes its forecasts, instead of the built-in
// model. The harness runs it once per trial (see docs/external.md for the
// contract): the command gets the path of a JSON file naming the cfg, the
// seed, the track's exported train, val and test windows and the folder to
// write into, and writes its forecasts of the val and test windows there.
// The harness computes every metric from those forecasts on its own copy
// of the targets, so a trainer cannot misreport its score.
type Trainer struct {
	// Command is the program and its arguments (no shell); the trial
	// file's path is appended as the last argument.
	Command []string `json:"command"`
	// Files are the files the command reads (its scripts and modules):
	// their SHA-256 enter every trial's key (Pin), so editing one trains
	// its trials again and leaves other arms' trials stored.
	Files []string `json:"files,omitempty"`
	// TimeoutS is the most seconds one trial may run before it is killed
	// and reported as timed out; 0 is DefaultTrainerTimeout.
	TimeoutS float64 `json:"timeout_s,omitempty"`
	// Tolerance is the largest difference between a rerun's forecasts and
	// the first run's, relative to the forecasts' root mean square, that
	// counts as reproduced; 0 is DefaultRerunTolerance.
	Tolerance float64 `json:"rerun_tolerance,omitempty"`
	// SHA256 maps each of Files to its SHA-256 (hex), set by Pin when a
	// run starts; a report's protocol carries the trainer it ran.
	SHA256 map[string]string `json:"sha256,omitempty"`
}

// DefaultTrainerTimeout is a trial's time limit when TimeoutS is 0, in
// seconds.
const DefaultTrainerTimeout = 3600

// maxTrainerTimeout is the largest TimeoutS, 30 days.
const maxTrainerTimeout = 30 * 24 * 3600

// DefaultRerunTolerance is Tolerance when it is 0.
const DefaultRerunTolerance = 1e-6

// Timeout is the trial's time limit in seconds.
func (tr *Trainer) Timeout() float64 {
	if tr.TimeoutS > 0 {
		return tr.TimeoutS
	}
	return DefaultTrainerTimeout
}

// RerunTolerance is Tolerance, or DefaultRerunTolerance when it is 0.
func (tr *Trainer) RerunTolerance() float64 {
	if tr.Tolerance > 0 {
		return tr.Tolerance
	}
	return DefaultRerunTolerance
}

// ArmName is the name an arm has in Trainers: "baseline", "idea", or the
// name of an idea arm (ideas[k].name).
func (p Protocol) ArmName(arm string) string {
	for k, a := range p.Ideas {
		if arm == IdeasArm(k) {
			return a.Name
		}
	}
	return arm
}

// TrainerOf is the external trainer of arm ("baseline", "idea" or
// "ideas[k]"), nil for the built-in model.
func (p Protocol) TrainerOf(arm string) *Trainer {
	return p.Trainers[p.ArmName(arm)]
}

// External reports whether any arm has an external trainer.
func (p Protocol) External() bool { return len(p.Trainers) > 0 }

// Pin returns p with every trainer's SHA256 set from its Files as they are
// now; an unreadable file is an error naming it and its trainer.
func (p Protocol) Pin() (Protocol, error) {
	if len(p.Trainers) == 0 {
		return p, nil
	}
	pinned := make(map[string]*Trainer, len(p.Trainers))
	for name, tr := range p.Trainers {
		if tr == nil {
			pinned[name] = nil
			continue
		}
		c := *tr
		c.Command = append([]string(nil), tr.Command...)
		c.Files = append([]string(nil), tr.Files...)
		c.SHA256 = make(map[string]string, len(tr.Files))
		for _, f := range tr.Files {
			sum, err := track.FileSHA256(f)
			if err != nil {
				return p, fmt.Errorf("trainers.%s.files: %w; list the files the command reads, as paths from the folder ideabench runs in", name, err)
			}
			c.SHA256[f] = sum
		}
		pinned[name] = &c
	}
	p.Trainers = pinned
	return p, nil
}

// trainerErrors validates p.Trainers, each error shaped as Validate's.
func (p Protocol) trainerErrors() []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	arms := []string{"baseline", "idea"}
	for _, a := range p.Ideas {
		arms = append(arms, a.Name)
	}
	names := make([]string, 0, len(p.Trainers))
	for name := range p.Trainers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		tr := p.Trainers[name]
		at := "trainers." + name
		known := false
		for _, a := range arms {
			known = known || a == name
		}
		switch {
		case !known:
			bad("%s = {...}: no arm has this name; key a trainer by \"baseline\", \"idea\" or an idea arm's name (%s)", at, strings.Join(arms, ", "))
			continue
		case tr == nil:
			bad("%s = null: no trainer; give {\"command\": [\"python3\", \"train.py\"], \"files\": [\"train.py\"]}, or leave the arm out for the built-in model", at)
			continue
		}
		if len(tr.Command) == 0 || tr.Command[0] == "" {
			bad("%s.command = %q: empty; give the program and its arguments, e.g. [\"python3\", \"train.py\"]", at, tr.Command)
		}
		if !(tr.TimeoutS >= 0 && tr.TimeoutS <= maxTrainerTimeout) {
			bad("%s.timeout_s = %v: must be a number of seconds in [0, %d] (30 days); use e.g. 600 (0 is %d)", at, tr.TimeoutS, maxTrainerTimeout, DefaultTrainerTimeout)
		}
		if !(tr.Tolerance >= 0 && tr.Tolerance < 1) {
			bad("%s.rerun_tolerance = %v: must be in [0,1); use e.g. %g (0 is %g)", at, tr.Tolerance, DefaultRerunTolerance, DefaultRerunTolerance)
		}
		for i, f := range tr.Files {
			if f == "" {
				bad("%s.files[%d] = \"\": empty; give the path of a file the command reads", at, i)
			}
		}
	}
	return errs
}

// Reproduction is the rerun check of one external trial: its trainer run
// a second time on the same trial file, its forecasts compared with the
// first run's.
type Reproduction struct {
	Arm  string `json:"arm"` // "baseline", "idea" or "ideas[k]"
	Cfg  int    `json:"cfg"`
	Seed uint64 `json:"seed"`
	// Identical says the rerun's val and test forecasts are the first
	// run's bit for bit.
	Identical bool `json:"identical"`
	// MaxAbsDiff is the largest absolute difference between the two
	// runs' forecasts; RelDiff is MaxAbsDiff over the root mean square of
	// the first run's.
	MaxAbsDiff float64 `json:"max_abs_diff"`
	RelDiff    float64 `json:"rel_diff"`
	// StoredDiffers says the first run's forecasts were gone and, made
	// again, differ from those the stored result was scored on.
	StoredDiffers bool `json:"stored_differs,omitempty"`
	// Tolerance is the trainer's rerun_tolerance; Reproduced says
	// RelDiff <= Tolerance and not StoredDiffers.
	Tolerance  float64 `json:"tolerance"`
	Reproduced bool    `json:"reproduced"`
}
