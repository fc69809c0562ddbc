package protocol

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"

	"github.com/ideabench/ideabench/track"
)

// TrainingVersion names the numerics of the training path (data
// generation, initialization, kernels, the optimizer, evaluation and the
// mechanism signature) and the content of a trial record. It is part of
// every trial id, so results of another training path are never reused.
// Any change that moves a record's bytes must change it;
// TestTrainingVersionPinned fails until it does.
const TrainingVersion = "train-2026-12-05"

// TrialKey is everything one trial's result depends on. Its id is the
// SHA-256 of its JSON encoding (fixed field order, shortest round-trip
// floats), so equal keys give equal ids on every machine.
type TrialKey struct {
	TrainingVersion string               `json:"training_version"`
	Track           string               `json:"track"`
	Sequence        track.SequenceConfig `json:"sequence"` // zero unless the kind reads it (track.Kind.Key)
	Model           string               `json:"model"`
	Arch            Arch                 `json:"arch"`
	Arm             string               `json:"arm"`
	Cfg             Cfg                  `json:"cfg"`
	Seed            uint64               `json:"seed"`
	// KeyBlocks are the track kind's entry ("csv", "panel"), after the
	// sequence block.
	track.KeyBlocks
	// Trainer is what of the arm's external trainer makes its results:
	// the command and its files' SHA-256 (Protocol.Pin), and the arm's
	// name, which the trainer is told; nil for the built-in model. Its
	// time limit and rerun tolerance are left out, so raising them keeps
	// the finished trials.
	Trainer *TrainerKey `json:"trainer,omitempty"`
}

// TrainerKey is the part of a trial key that names an external trainer.
type TrainerKey struct {
	Arm     string            `json:"arm"`
	Command []string          `json:"command"`
	Files   []string          `json:"files,omitempty"`
	SHA256  map[string]string `json:"sha256,omitempty"`
}

// CSVKey is what a csv-track trial depends on (track.CSVKey).
type CSVKey = track.CSVKey

// Key is the store key of trial t of p under this build's training
// path; dataSHA is the SHA-256 of a csv track's file (Data.SHA256), empty
// for a generated track.
func (p Protocol) Key(t Trial, dataSHA string) TrialKey {
	return p.KeyAt(t, dataSHA, TrainingVersion)
}

// KeyAt is Key under the training path version (a report's
// setup.training_version).
func (p Protocol) KeyAt(t Trial, dataSHA, version string) TrialKey {
	k := TrialKey{
		TrainingVersion: version, Track: p.Track, Sequence: p.Sequence, Model: p.Model,
		Arch: p.Arch, Arm: keyArm(t.Arm), Cfg: p.Cfg(t), Seed: t.Seed,
	}
	if tr := p.TrainerOf(t.Arm); tr != nil {
		k.Trainer = &TrainerKey{Arm: p.ArmName(t.Arm), Command: tr.Command, Files: tr.Files, SHA256: tr.SHA256}
	}
	if kind, ok := track.LookupKind(p.Track); ok {
		k.Sequence, k.KeyBlocks = kind.Key(&p.Blocks, dataSHA)
	}
	return k
}

// keyArm is the arm a trial key records: every idea arm's trials are
// "idea" trials, since a result depends on the cfg and seed alone, so an
// idea arm reuses what another arm or run trained.
func keyArm(arm string) string {
	if arm == "baseline" {
		return arm
	}
	return "idea"
}

// ID is the key's content address: 32 hex digits (128 bits) of SHA-256.
func (k TrialKey) ID() string {
	b, err := json.Marshal(k)
	if err != nil {
		panic(err) // a key holds no NaN: Validate rejects it before any key is made
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:16])
}

// ID is the content address of the whole protocol (every field, including
// the comparison's alpha): shards of one sweep share it.
func (p Protocol) ID() string {
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:16])
}

// DataID identifies the windows a protocol trains and scores on: a hash of
// the track, its config and, for the csv track, the file's SHA-256
// (dataSHA), the parts of a trial's key that choose the data. A
// checkpoint records it, and ideabench data stamps it on the windows CSV
// it writes (WriteStamp), so that eval can refuse windows of another
// protocol.
func (p Protocol) DataID(dataSHA string) string {
	k := p.Key(Trial{Arm: "baseline"}, dataSHA)
	b, err := json.Marshal(struct {
		Track    string               `json:"track"`
		Sequence track.SequenceConfig `json:"sequence"`
		track.KeyBlocks
	}{k.Track, k.Sequence, k.KeyBlocks})
	if err != nil {
		panic(err) // a validated protocol holds no NaN
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:16])
}
