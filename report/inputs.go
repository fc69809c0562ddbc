package report

import (
	"github.com/ideabench/ideabench/track"

	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
)

// Facts are the inputs of a report besides its trials' results: what
// the trials ran (the protocol, the training path, the data's digest),
// what the data determines (its notes, train windows and reference
// forecasters) and the external trainers' rerun check. Derive takes them
// (derive.Inputs) and sets each in the report, where ReadInputs reads it
// back.
type Facts struct {
	Protocol        protocol.Protocol
	TrainingVersion string // the training path of the results (protocol.TrainingVersion)
	DataSHA256      string // the csv track's file (Data.SHA256); empty otherwise
	// DataNotes say what about the source data a user should know
	// (track.Dataset.Notes); each becomes a warning.
	DataNotes []string
	// TrainSizes are the track's train windows at each look-back
	// (protocol.TrainSizes), which the arms' budgets count; nil leaves
	// the budget out (a report written before it was recorded).
	TrainSizes []protocol.TrainSize
	// References are the reference forecasters' test and val MSEs
	// (persistence, seasonal persistence, linear_ar, linear_centred, the
	// noise floor); Derive sets the fields that judge the baseline.
	References *track.Forecasters
	// Rerun is the determinism check of the external trainers (a trial
	// trained a second time); nil without them, or when none finished.
	// Derive takes its trial and measurements (arm, cfg, seed, identical,
	// max_abs_diff, rel_diff) and sets the rest.
	Rerun *protocol.Reproduction
}

// Raw is what a report holds of its inputs (ReadInputs): its facts, and
// its trials' results as the report shows them.
type Raw struct {
	Facts
	// Baseline, Idea and Ideas are the arms' sweeps (baseline.sweep,
	// mechanism_signature.idea_sweep, ideas[k].sweep).
	Baseline, Idea RawArm
	Ideas          []RawArm
	// Diverged are the trials whose training diverged (diverged.trials).
	Diverged []DivergedTrial
	// Curves are the chosen cfgs' curves by arm, "baseline" and "idea"
	// (training.<arm>); nil when the report has no training block.
	Curves map[string]RawCurves
	// ValAcc are, on a token track, the chosen cfgs' val accuracy curves
	// during training by arm, "baseline", "idea" and "ideas[k]"
	// (accuracy.time_to_target); nil when the report has none.
	ValAcc map[string]RawValAcc
	// Signature is what the probe measured on the idea arm's chosen cfg
	// and first seed: each block's gate (gain and state by position, the
	// pole fit), or another idea's laws; nil when nothing was.
	Signature *idea.Measured
	// StartTest and LinearTest are the test metrics of the baseline's
	// chosen cfg's starting models and of its skip path alone, seed by
	// seed (informativeness.start_test, .linear_part_test).
	StartTest, LinearTest []float64
}

// RawValAcc is one chosen cfg's val accuracy curves, seed by seed, the
// steps between their points and the cfg's budget of steps.
type RawValAcc struct {
	Curves        [][]float64
	Every, Budget int
}

// RawArm is one arm's sweep.
type RawArm struct {
	Arm  string // the trials' arm: "baseline", "idea" or "ideas[k]"
	At   string // the sweep's path, e.g. "baseline.sweep"
	Rows []RawRow
}

// RawRow is one cfg of a sweep.
type RawRow struct {
	// Cfg is no input: Derive sets it from the protocol's grids. It is
	// read for the grids a grid extension grew, which Derive's replay of
	// the extension checks.
	Cfg    protocol.Cfg
	Val    []float64 // val.per_seed
	HasVal bool      // whether the row has its val summary
	// Acc is, on a token track, the per-seed test accuracy
	// (test_accuracy.per_seed); nil when the row has none.
	Acc []float64
	// MASE is, on a real panel, the per-seed test MASE
	// (test_mase.per_seed); nil when the row has none.
	MASE []float64
	Test []float64 // per_seed (a baseline row) or result.per_seed
}

// RawCurves are one arm's chosen cfg's curves, seed by seed.
type RawCurves struct {
	EpochLosses [][]float64
	ValCurves   [][]float64
	StartVals   []float64
}

// Input is one input of a report: the JSON path where it stands and the
// value read there, which its digest covers (Digests).
type Input struct {
	Path  string
	Value any
}

// ReadInputs reads the report's inputs out of it, the values Derive
// takes rather than computes, and lists each value it read with the JSON
// path where it stands. It is the one reader of a report's inputs: the
// digests (Setup.Digests) are of the values it lists and verify derives
// again from the values it returns, so an input is digested exactly when
// it is read back, and an edited input is named at its path even where
// nothing derived from it shows the edit. It reads:
//
//   - setup.protocol.<key>, setup.training_version, setup.data_sha256:
//     what the trials ran (their keys); setup.data_notes and
//     setup.train_sizes, the data's notes and train windows (the budget);
//   - each sweep row's per-seed test and val metrics (of diverged seeds,
//     the substitutes), and diverged.trials;
//   - each seed's training.<arm>.epoch_losses and .val_curves, and the
//     starting models' val metrics;
//   - the baseline's starting models' test metrics and its skip path's
//     alone (informativeness);
//   - the gate's per-block measurements (gain and state by position, the
//     pole fit), or another idea's measured laws;
//   - the external rerun check's trial and measurements;
//   - the reference forecasters' MSEs.
//
// The run block, volatile, is no input: it carries its own digest
// (RunInfo.Digest), so setup.digests is the same whatever process wrote
// the report.
func (r *Report) ReadInputs() (Raw, []Input) {
	rd := &reader{}
	var in Raw
	if s := r.Setup; s != nil {
		in.Protocol = s.Protocol
		rd.keys("setup.protocol.", s.Protocol)
		in.TrainingVersion = read(rd, "setup.training_version", s.TrainingVersion)
		in.DataSHA256 = read(rd, "setup.data_sha256", s.DataSHA256)
		if s.DataNotes != nil {
			in.DataNotes = read(rd, "setup.data_notes", s.DataNotes)
		}
		if s.TrainSizes != nil {
			in.TrainSizes = read(rd, "setup.train_sizes", s.TrainSizes)
		}
	}

	in.Baseline = RawArm{Arm: "baseline", At: "baseline.sweep"}
	for j, row := range r.Baseline.Sweep {
		at := fmt.Sprintf("baseline.sweep[%d]", j)
		in.Baseline.Rows = append(in.Baseline.Rows, rd.row(at, row.Cfg, row.Val, at+".per_seed", row.PerSeed, row.Accuracy, row.MASE))
	}
	ideaArm := func(arm, at string, rows []IdeaRow) RawArm {
		a := RawArm{Arm: arm, At: at}
		for j, row := range rows {
			at := fmt.Sprintf("%s[%d]", at, j)
			a.Rows = append(a.Rows, rd.row(at, row.Cfg, row.Val, at+".result.per_seed", row.Result.PerSeed, row.Accuracy, row.MASE))
		}
		return a
	}
	in.Idea = ideaArm("idea", "mechanism_signature.idea_sweep", r.MechanismSignature.IdeaSweep)
	for k, a := range r.Ideas {
		in.Ideas = append(in.Ideas, ideaArm(protocol.IdeasArm(k), fmt.Sprintf("ideas[%d].sweep", k), a.Sweep))
	}
	if d := r.Diverged; d != nil {
		in.Diverged = read(rd, "diverged.trials", d.Trials)
	}

	if tr := r.Training; tr != nil {
		in.Curves = map[string]RawCurves{}
		for _, a := range []struct {
			name string
			ac   ArmCurves
		}{{"baseline", tr.Baseline}, {"idea", tr.Idea}} {
			var c RawCurves
			for i, l := range a.ac.EpochLosses {
				c.EpochLosses = append(c.EpochLosses, read(rd, fmt.Sprintf("training.%s.epoch_losses[%d]", a.name, i), l))
			}
			for i, v := range a.ac.ValCurves {
				c.ValCurves = append(c.ValCurves, read(rd, fmt.Sprintf("training.%s.val_curves[%d]", a.name, i), v))
			}
			c.StartVals = read(rd, "training."+a.name+".start_vals", a.ac.StartVals)
			in.Curves[a.name] = c
		}
	}
	if a := r.Accuracy; a != nil && a.TimeToTarget != nil {
		tt := a.TimeToTarget
		in.ValAcc = map[string]RawValAcc{}
		add := func(arm, at string, x ArmTimes) {
			var v RawValAcc
			for i, c := range x.Curves {
				v.Curves = append(v.Curves, read(rd, fmt.Sprintf("%s.val_accuracy_curves[%d]", at, i), c))
			}
			v.Every = read(rd, at+".every", x.Every)
			v.Budget = read(rd, at+".budget", x.Budget)
			in.ValAcc[arm] = v
		}
		add("baseline", "accuracy.time_to_target.baseline", tt.Baseline)
		for k, x := range tt.Arms {
			arm := "idea"
			if k > 0 {
				arm = protocol.IdeasArm(k - 1)
			}
			add(arm, fmt.Sprintf("accuracy.time_to_target.arms[%d]", k), x.ArmTimes)
		}
	}
	switch s := r.MechanismSignature.MechanismSignature; {
	case len(s.Layers) > 0:
		// The rest of each layer is derived (idea.GateSummarize).
		in.Signature = &idea.Measured{}
		for l, ls := range s.Layers {
			at := fmt.Sprintf("mechanism_signature.mechanism_signature.layers[%d].", l)
			in.Signature.Layers = append(in.Signature.Layers, idea.GateLayer{
				GainByPosition:  read(rd, at+"gain_by_position", ls.GainByPosition),
				StateByPosition: read(rd, at+"state_by_position", ls.StateByPosition),
				FittedStatePole: read(rd, at+"fitted_state_pole", ls.FittedStatePole),
				FittedDrive:     read(rd, at+"fitted_drive", ls.FittedDrive),
			})
		}
	case len(s.Laws) > 0:
		in.Signature = &idea.Measured{Laws: read(rd, "mechanism_signature.mechanism_signature.laws", s.Laws)}
	}
	if inf := r.Informativeness; inf != nil {
		in.StartTest = read(rd, "informativeness.start_test", inf.StartTest)
		if inf.LinearTest != nil {
			in.LinearTest = read(rd, "informativeness.linear_part_test", inf.LinearTest)
		}
	}

	if e := r.External; e != nil && e.Rerun != nil {
		m := protocol.Reproduction{Arm: e.Rerun.Arm, Cfg: e.Rerun.Cfg, Seed: e.Rerun.Seed, Identical: e.Rerun.Identical, MaxAbsDiff: e.Rerun.MaxAbsDiff, RelDiff: e.Rerun.RelDiff}
		rd.add("external.rerun", []any{m.Arm, m.Cfg, m.Seed, m.Identical, m.MaxAbsDiff, m.RelDiff})
		in.Rerun = &m
	}
	if f := r.ReferenceForecasters; f != nil {
		in.References = f.Raw()
		rd.keys("reference_forecasters.", in.References, "baseline_beats_linear", "idea_beats_linear", "best_reference", "best_reference_mse",
			"baseline_margin", "baseline_margin_pct", "baseline_competent") // what Derive sets: Forecasters.Raw leaves them zero
	}
	return in, rd.read
}

// reader lists the values ReadInputs reads.
type reader struct {
	read []Input
}

func (rd *reader) add(path string, v any) {
	rd.read = append(rd.read, Input{Path: path, Value: v})
}

// read lists v, read at path, and returns it.
func read[T any](rd *reader, path string, v T) T {
	rd.add(path, v)
	return v
}

// keys lists each key of v's JSON object, but those skipped, as an
// input of its own at prefix+key.
func (rd *reader) keys(prefix string, v any, skip ...string) {
	raw, _ := json.Marshal(v)
	var m map[string]json.RawMessage
	json.Unmarshal(raw, &m)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if !slices.Contains(skip, k) {
			rd.add(prefix+k, m[k])
		}
	}
}

// row reads a sweep row at path at: its test metrics at testAt, its val
// metrics when it has its val summary.
func (rd *reader) row(at string, cfg protocol.Cfg, val *Summary, testAt string, test []float64, acc, mase *Summary) RawRow {
	row := RawRow{Cfg: cfg, Test: read(rd, testAt, test)}
	if acc != nil {
		row.Acc = read(rd, at+".test_accuracy.per_seed", acc.PerSeed)
	}
	if mase != nil {
		row.MASE = read(rd, at+".test_mase.per_seed", mase.PerSeed)
	}
	if val != nil {
		row.Val, row.HasVal = read(rd, at+".val.per_seed", val.PerSeed), true
	}
	return row
}
