package harness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/internal/atomicfile"
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
	Sequence        track.SequenceConfig `json:"sequence"`
	Model           string               `json:"model"`
	Arch            Arch                 `json:"arch"`
	Arm             string               `json:"arm"`
	Cfg             Cfg                  `json:"cfg"`
	Seed            uint64               `json:"seed"`
	CSV             *CSVKey              `json:"csv,omitempty"`   // the csv track; its Sequence is then zero
	Panel           *track.PanelConfig   `json:"panel,omitempty"` // the panel track; its Sequence is then zero
}

// CSVKey is what a csv-track trial depends on: the task on the file and
// the file's content (not its path, so a moved file keeps its trials).
type CSVKey struct {
	Target    string   `json:"target"`
	Features  []string `json:"features,omitempty"`
	T         int      `json:"t"`
	H         int      `json:"h"`
	Split     string   `json:"split,omitempty"`
	TrainFrac float64  `json:"train_frac,omitempty"`
	ValFrac   float64  `json:"val_frac,omitempty"`
	// Channels is csv.channels: "independent" and "mixed" train on every
	// column's windows, so their trials are not the target's.
	Channels string `json:"channels,omitempty"`
	SHA256   string `json:"sha256"`
}

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
		Arch: p.Arch, Arm: keyArm(t.Arm), Cfg: p.cfg(t), Seed: t.Seed,
	}
	if p.Track == "panel" && p.Panel != nil {
		k.Sequence, k.Panel = track.SequenceConfig{}, p.Panel
	}
	if p.Track == "csv" && p.CSV != nil {
		c := p.CSV
		k.Sequence = track.SequenceConfig{}
		k.CSV = &CSVKey{Target: c.Target, Features: c.Features, T: c.T, H: c.H, Split: c.Split,
			TrainFrac: c.TrainFrac, ValFrac: c.ValFrac, Channels: c.Channels, SHA256: dataSHA}
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

// Store is a results directory: one JSON file per finished trial under
// trials/, named by the trial id, each written atomically and carrying
// the SHA-256 of its result, so a torn or edited record is detected.
// Several processes may write one store at once (a shared volume for
// shards): records of distinct trials never share a file, and records of
// the same trial are identical.
type Store struct {
	Dir string

	leases leases // the trial leases this process holds (lease.go)
}

// OpenStore creates dir (and dir/trials) if needed and checks that it can
// be written, so an unwritable or full volume fails before any training.
func OpenStore(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("harness: results directory: empty path")
	}
	if err := os.MkdirAll(filepath.Join(dir, "trials"), 0o755); err != nil {
		return nil, fmt.Errorf("harness: results directory %s: %w", dir, err)
	}
	// A private probe file: shards open one shared directory at once.
	f, err := os.CreateTemp(filepath.Join(dir, "trials"), ".probe-*")
	if err == nil {
		_, err = f.Write(make([]byte, 4096))
		if err == nil {
			err = f.Sync()
		}
		f.Close()
		if rerr := os.Remove(f.Name()); err == nil {
			err = rerr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("harness: results directory %s is not writable: %w", dir, err)
	}
	s := &Store{Dir: dir}
	s.removeStale()
	return s, nil
}

// record is the file format of one trial.
type record struct {
	ID     string          `json:"id"`
	Key    TrialKey        `json:"key"`
	Result json.RawMessage `json:"result"`
	SHA256 string          `json:"sha256"` // of the bytes of result
}

// resultJSON is Result as JSON: a diverged trial's metrics (+Inf) are
// null.
type resultJSON struct {
	Val          *float64   `json:"val"`
	Test         *float64   `json:"test"`
	EpochLoss    []float64  `json:"epoch_loss"`
	ValCurve     []float64  `json:"val_curve,omitempty"`
	StartVal     float64    `json:"start_val"`
	StartTest    float64    `json:"start_test"`
	LinearTest   float64    `json:"linear_test,omitempty"`
	BestEpoch    int        `json:"best_epoch,omitempty"`
	Diverged     bool       `json:"diverged,omitempty"`
	DivergedStep int        `json:"diverged_step,omitempty"`
	Signature    *Signature `json:"signature,omitempty"`
}

func (s *Store) path(id string) string { return filepath.Join(s.Dir, "trials", id+".json") }

// ErrCorrupt marks a record that exists but cannot be trusted.
var ErrCorrupt = errors.New("corrupt trial record")

// Load returns the stored result of k: ok false when there is none; an
// error wrapping ErrCorrupt when the file is truncated, fails its
// checksum or holds another key. The caller recomputes in both cases.
func (s *Store) Load(k TrialKey) (res Result, ok bool, err error) {
	_, res, ok, err = s.read(k.ID())
	if err != nil {
		return Result{}, false, fmt.Errorf("harness: trial record %s: %w", s.path(k.ID()), err)
	}
	return res, ok, nil
}

// read reads and checks the record of trial id: ok false when there is
// none; an error wrapping ErrCorrupt when it cannot be trusted.
func (s *Store) read(id string) (rec record, res Result, ok bool, err error) {
	raw, err := os.ReadFile(s.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return record{}, Result{}, false, nil
	}
	if err != nil {
		return record{}, Result{}, false, err
	}
	rec, res, err = decodeRecord(raw)
	if err == nil && rec.ID != id {
		err = fmt.Errorf("%w: it holds trial %s, not %s", ErrCorrupt, rec.ID, id)
	}
	if err != nil {
		return record{}, Result{}, false, err
	}
	return rec, res, true, nil
}

// decodeRecord parses and checks one record file.
func decodeRecord(raw []byte) (record, Result, error) {
	var rec record
	if err := json.Unmarshal(raw, &rec); err != nil {
		return record{}, Result{}, fmt.Errorf("%w (truncated or not JSON: %v)", ErrCorrupt, err)
	}
	sum := sha256.Sum256(rec.Result)
	if hex.EncodeToString(sum[:]) != rec.SHA256 {
		return record{}, Result{}, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	if rec.Key.ID() != rec.ID {
		return record{}, Result{}, fmt.Errorf("%w: id %s does not match its key", ErrCorrupt, rec.ID)
	}
	var rj resultJSON
	dec := json.NewDecoder(bytes.NewReader(rec.Result))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rj); err != nil {
		return record{}, Result{}, fmt.Errorf("%w: result: %v", ErrCorrupt, err)
	}
	res := Result{EpochLoss: rj.EpochLoss, ValCurve: rj.ValCurve, StartVal: rj.StartVal, StartTest: rj.StartTest, LinearTest: rj.LinearTest, BestEpoch: rj.BestEpoch,
		Diverged: rj.Diverged, DivergedStep: rj.DivergedStep, Signature: rj.Signature}
	switch {
	case rj.Diverged:
		res.Val, res.Test = math.Inf(1), math.Inf(1)
	case rj.Val == nil || rj.Test == nil:
		return record{}, Result{}, fmt.Errorf("%w: a finished trial without val or test metric", ErrCorrupt)
	default:
		res.Val, res.Test = *rj.Val, *rj.Test
	}
	return rec, res, nil
}

// Save writes the record of k atomically.
func (s *Store) Save(k TrialKey, r Result) error {
	data, err := encodeRecord(k, r)
	if err != nil {
		return err
	}
	err = atomicfile.Write(s.path(k.ID()), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("harness: saving trial %s: %w", k.ID(), err)
	}
	return nil
}

func encodeRecord(k TrialKey, r Result) ([]byte, error) {
	rj := resultJSON{EpochLoss: r.EpochLoss, ValCurve: r.ValCurve, StartVal: r.StartVal, StartTest: r.StartTest, LinearTest: r.LinearTest, BestEpoch: r.BestEpoch,
		Diverged: r.Diverged, DivergedStep: r.DivergedStep, Signature: r.Signature}
	if !r.Diverged {
		rj.Val, rj.Test = &r.Val, &r.Test
	}
	res, err := json.Marshal(rj)
	if err != nil {
		return nil, fmt.Errorf("harness: encoding trial %s (a NaN or Inf in a finished trial?): %w", k.ID(), err)
	}
	sum := sha256.Sum256(res)
	data, err := json.Marshal(record{ID: k.ID(), Key: k, Result: res, SHA256: hex.EncodeToString(sum[:])})
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Manifest names the protocol a results directory (or one shard of it)
// belongs to; merge reads it to know which trials make the report.
type Manifest struct {
	ProtocolID      string   `json:"protocol_id"`
	TrainingVersion string   `json:"training_version"`
	Shard           int      `json:"shard"`                 // this process's index, 0 when unsharded
	Shards          int      `json:"shards"`                // number of shards, 1 when unsharded
	DataSHA256      string   `json:"data_sha256,omitempty"` // the csv track's file
	Protocol        Protocol `json:"protocol"`
}

// manifestName is the manifest's file name for shard i of n.
func manifestName(i, n int) string {
	if n <= 1 {
		return "protocol.json"
	}
	return fmt.Sprintf("shard-%d-of-%d.json", i, n)
}

// WriteManifest records that shard i of n of p writes into the store.
func (s *Store) WriteManifest(p Protocol, dataSHA string, i, n int) error {
	m := Manifest{ProtocolID: p.ID(), TrainingVersion: TrainingVersion, Shard: i, Shards: max(n, 1), DataSHA256: dataSHA, Protocol: p}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("harness: manifest: %w", err)
	}
	path := filepath.Join(s.Dir, manifestName(i, n))
	if err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	}); err != nil {
		return fmt.Errorf("harness: writing %s: %w", path, err)
	}
	return nil
}

// readManifests returns the manifests of dir, by file name.
func readManifests(dir string) (map[string]Manifest, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	ms := map[string]Manifest{}
	for _, name := range names {
		base := filepath.Base(name)
		if base != "protocol.json" && !strings.HasPrefix(base, "shard-") {
			continue
		}
		raw, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("harness: %w", err)
		}
		var m Manifest
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("harness: manifest %s: %w", name, err)
		}
		if m.Protocol.ID() != m.ProtocolID {
			return nil, fmt.Errorf("harness: manifest %s: protocol_id %s does not match its protocol (edited?)", name, m.ProtocolID)
		}
		ms[name] = m
	}
	return ms, nil
}

// Merge assembles the report of the protocol that the results
// directories' manifests name from the trial records found in them. It
// refuses, naming the files, when the manifests disagree on the protocol
// or the training version, when this build's TrainingVersion differs,
// when a trial is missing (naming the shard that runs it), when one trial
// has records with different results, or when a record is corrupt.
func Merge(dirs []string) (*Outcome, error) {
	if len(dirs) == 0 {
		return nil, errors.New("harness: merge: no results directories given")
	}
	var (
		p        Protocol
		shards   int
		first    string
		haveProt bool
		dataSHA  string
	)
	for _, dir := range dirs {
		ms, err := readManifests(dir)
		if err != nil {
			return nil, err
		}
		if len(ms) == 0 {
			return nil, fmt.Errorf("harness: merge: %s has no protocol.json or shard-*.json manifest; is it an ideabench results directory (run --results)?", dir)
		}
		for _, name := range slices.Sorted(maps.Keys(ms)) {
			m := ms[name]
			if m.TrainingVersion != TrainingVersion {
				return nil, fmt.Errorf("harness: merge: %s was written by training version %s, this build is %s; rerun that shard with this build", name, m.TrainingVersion, TrainingVersion)
			}
			if !haveProt {
				p, first, haveProt, dataSHA = m.Protocol, name, true, m.DataSHA256
			} else if m.ProtocolID != p.ID() || m.DataSHA256 != dataSHA {
				return nil, fmt.Errorf("harness: merge: %s is protocol %s but %s is protocol %s; merge only shards of one protocol", name, m.ProtocolID, first, p.ID())
			}
			shards = max(shards, m.Shards)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("harness: merge: protocol of %s: %w", first, err)
	}
	d, err := p.Data()
	if err != nil {
		return nil, fmt.Errorf("harness: merge: %w", err)
	}
	if dataSHA != d.SHA256 {
		return nil, fmt.Errorf("harness: merge: %s ran on data with SHA-256 %s, but %s now has %s; merge where the shards' data file is", first, dataSHA, p.CSV.Path, d.SHA256)
	}
	trials := p.Trials()
	results := make([]Result, len(trials))
	var missing []string
	for i, t := range trials {
		k := p.Key(t, d.SHA256)
		var found []byte
		var from string
		for _, dir := range dirs {
			st := &Store{Dir: dir}
			path := st.path(k.ID())
			rec, res, ok, err := st.read(k.ID())
			if err != nil {
				return nil, fmt.Errorf("harness: merge: %s: %w; delete it and rerun its shard", path, err)
			}
			if !ok {
				continue
			}
			if found != nil && !bytes.Equal(found, rec.Result) {
				return nil, fmt.Errorf("harness: merge: trial %s (%s cfg %d seed %d) has different results in %s and %s", k.ID(), t.Arm, t.Cfg, t.Seed, from, path)
			}
			found, from, results[i] = rec.Result, path, res
		}
		if found == nil {
			missing = append(missing, fmt.Sprintf("%s cfg %d seed %d (trial %d, --shard %d/%d)", t.Arm, t.Cfg, t.Seed, i, i%max(shards, 1), max(shards, 1)))
		}
	}
	if n := len(missing); n > 0 {
		const show = 5
		more := ""
		if n > show {
			more = fmt.Sprintf("; and %d more", n-show)
			missing = missing[:show]
		}
		return nil, fmt.Errorf("harness: merge: %d of %d trials missing: %s%s; run the missing shards into these directories", n, len(trials), strings.Join(missing, "; "), more)
	}
	r, err := Assemble(p, d, trials, results)
	if err != nil {
		return nil, err
	}
	return &Outcome{Report: r, Trials: trials, Results: results, Data: d.Dataset}, nil
}
