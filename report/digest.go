package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/ideabench/ideabench/protocol"
)

// TrialsDigest is Setup.TrialsSHA256: the SHA-256 of the trial ids of
// p's trials (Protocol.KeyAt), one per line, in order.
func TrialsDigest(p protocol.Protocol, trials []protocol.Trial, dataSHA, version string) string {
	h := sha256.New()
	for _, t := range trials {
		fmt.Fprintln(h, p.KeyAt(t, dataSHA, version).ID())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Digest is the first 16 bytes of the SHA-256 of v's JSON, in hex.
func Digest(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err) // a report holds no NaN or Inf
	}
	s := sha256.Sum256(raw)
	return hex.EncodeToString(s[:16])
}

// Seal sets the report's input digests (Setup.Digests) from its
// inputGroups.
func (r *Report) Seal() {
	if r.Setup == nil {
		return
	}
	r.Setup.Digests = r.InputDigests()
}

// InputDigests are the digests of the report's inputGroups as they stand.
func (r *Report) InputDigests() map[string]string {
	d := map[string]string{}
	for path, v := range r.inputGroups() {
		d[path] = Digest(v)
	}
	return d
}

// SetRun records the run block (volatile facts of the process that
// wrote the report) with its digest (RunInfo.Digest).
func (r *Report) SetRun(info RunInfo) {
	info.Digest = info.Sum()
	r.Run = &info
}

// Sum is the digest of the run block's other fields.
func (ri RunInfo) Sum() string {
	ri.Digest = ""
	return Digest(ri)
}

// inputGroups returns the report's inputs by the JSON path where each
// stands: the values Derive takes rather than computes. Each has a
// digest in Setup.Digests, so verify names an edited input even where
// nothing derived from it shows the edit:
//
//   - setup.protocol.<key>, setup.training_version, setup.data_sha256:
//     what the trials ran (their keys); setup.train_sizes, the data's
//     train windows (the budget);
//   - each sweep row's per-seed test and val metrics (of diverged seeds,
//     the substitutes), and diverged.trials;
//   - each seed's training.<arm>.epoch_losses and .val_curves, and the
//     starting models' val metrics;
//   - the baseline's starting models' test metrics and its skip path's
//     alone (informativeness);
//   - the gate's per-block measurements (gain and state by position, the
//     pole fit), or another idea's measured laws;
//   - the reference forecasters' MSEs.
//
// The run block, volatile, carries its own digest (RunInfo.Digest), so
// setup.digests is the same whatever process wrote the report.
func (r *Report) inputGroups() map[string]any {
	g := map[string]any{}
	var prot map[string]json.RawMessage
	raw, _ := json.Marshal(r.Setup.Protocol)
	json.Unmarshal(raw, &prot)
	for k, v := range prot {
		g["setup.protocol."+k] = v
	}
	g["setup.training_version"] = r.Setup.TrainingVersion
	g["setup.data_sha256"] = r.Setup.DataSHA256
	if r.Setup.DataNotes != nil {
		g["setup.data_notes"] = r.Setup.DataNotes
	}
	if r.Setup.TrainSizes != nil {
		g["setup.train_sizes"] = r.Setup.TrainSizes
	}
	for j, row := range r.Baseline.Sweep {
		g[fmt.Sprintf("baseline.sweep[%d].per_seed", j)] = row.PerSeed
		if row.Val != nil {
			g[fmt.Sprintf("baseline.sweep[%d].val.per_seed", j)] = row.Val.PerSeed
		}
	}
	rows := func(at string, rs []IdeaRow) {
		for j, row := range rs {
			g[fmt.Sprintf("%s[%d].result.per_seed", at, j)] = row.Result.PerSeed
			if row.Val != nil {
				g[fmt.Sprintf("%s[%d].val.per_seed", at, j)] = row.Val.PerSeed
			}
		}
	}
	rows("mechanism_signature.idea_sweep", r.MechanismSignature.IdeaSweep)
	for k, a := range r.Ideas {
		rows(fmt.Sprintf("ideas[%d].sweep", k), a.Sweep)
	}
	if r.Diverged != nil {
		g["diverged.trials"] = r.Diverged.Trials
	}
	if tr := r.Training; tr != nil {
		for _, a := range []struct {
			name string
			ac   ArmCurves
		}{{"baseline", tr.Baseline}, {"idea", tr.Idea}} {
			for i, c := range a.ac.EpochLosses {
				g[fmt.Sprintf("training.%s.epoch_losses[%d]", a.name, i)] = c
			}
			for i, c := range a.ac.ValCurves {
				g[fmt.Sprintf("training.%s.val_curves[%d]", a.name, i)] = c
			}
			g["training."+a.name+".start_vals"] = a.ac.StartVals
		}
	}
	s := r.MechanismSignature.MechanismSignature
	for l, ls := range s.Layers {
		at := fmt.Sprintf("mechanism_signature.mechanism_signature.layers[%d].", l)
		g[at+"gain_by_position"] = ls.GainByPosition
		g[at+"state_by_position"] = ls.StateByPosition
		g[at+"fitted_state_pole"] = ls.FittedStatePole
		g[at+"fitted_drive"] = ls.FittedDrive
	}
	if len(s.Layers) == 0 && len(s.Laws) > 0 {
		g["mechanism_signature.mechanism_signature.laws"] = s.Laws
	}
	if inf := r.Informativeness; inf != nil {
		g["informativeness.start_test"] = inf.StartTest
		if inf.LinearTest != nil {
			g["informativeness.linear_part_test"] = inf.LinearTest
		}
	}
	if e := r.External; e != nil && e.Rerun != nil {
		m := *e.Rerun
		g["external.rerun"] = []any{m.Arm, m.Cfg, m.Seed, m.Identical, m.MaxAbsDiff, m.RelDiff}
	}
	if f := r.ReferenceForecasters; f != nil {
		raw, _ := json.Marshal(f.Raw())
		var m map[string]json.RawMessage
		json.Unmarshal(raw, &m)
		for k, v := range m {
			if k != "baseline_beats_linear" && k != "idea_beats_linear" && k != "best_reference" && k != "best_reference_mse" &&
				k != "baseline_margin" && k != "baseline_margin_pct" && k != "baseline_competent" {
				g["reference_forecasters."+k] = v
			}
		}
	}
	return g
}
