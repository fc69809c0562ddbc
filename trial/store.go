package trial

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"

	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/internal/jsonstrict"
)

// Store is a results directory: one JSON file per finished trial under
// trials/, named by the trial id, each written atomically and carrying
// the SHA-256 of its result, so a torn or edited record is detected.
// Several processes may write one store at once (a shared volume for
// shards): records of distinct trials never share a file, and records of
// the same trial are identical.
type Store struct {
	Dir string
	// Also are further results directories whose records Load reads
	// (after Dir's); nothing is written there.
	Also []string

	leases leases // the trial leases this process holds (lease.go)
}

// OpenStore creates dir (and dir/trials) if needed and checks that it can
// be written, so an unwritable or full volume fails before any training.
func OpenStore(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("trial: results directory: empty path")
	}
	if err := os.MkdirAll(filepath.Join(dir, "trials"), 0o755); err != nil {
		return nil, fmt.Errorf("trial: results directory %s: %w", dir, err)
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
		return nil, fmt.Errorf("trial: results directory %s is not writable: %w", dir, err)
	}
	s := &Store{Dir: dir}
	s.removeStale()
	return s, nil
}

// record is the file format of one trial.
type record struct {
	ID     string            `json:"id"`
	Key    protocol.TrialKey `json:"key"`
	Result json.RawMessage   `json:"result"`
	SHA256 string            `json:"sha256"` // of the bytes of result
}

// resultJSON is Result as JSON: a diverged trial's metrics (+Inf) are
// null.
type resultJSON struct {
	Val          *float64       `json:"val"`
	Test         *float64       `json:"test"`
	EpochLoss    []float64      `json:"epoch_loss"`
	ValCurve     []float64      `json:"val_curve,omitempty"`
	StartVal     float64        `json:"start_val"`
	StartTest    float64        `json:"start_test"`
	LinearTest   float64        `json:"linear_test,omitempty"`
	BestEpoch    int            `json:"best_epoch,omitempty"`
	Diverged     bool           `json:"diverged,omitempty"`
	DivergedStep int            `json:"diverged_step,omitempty"`
	Signature    *idea.Measured `json:"signature,omitempty"`
	Forecasts    string         `json:"forecasts,omitempty"`
	ValAcc       float64        `json:"val_accuracy,omitempty"`
	TestAcc      float64        `json:"test_accuracy,omitempty"`
	TestMASE     float64        `json:"test_mase,omitempty"`
	ValAccCurve  []float64      `json:"val_accuracy_curve,omitempty"`
	ValEvery     int            `json:"val_every,omitempty"`
	Steps        int            `json:"steps,omitempty"`
}

func (s *Store) Path(id string) string { return filepath.Join(s.Dir, "trials", id+".json") }

// ErrCorrupt marks a record that exists but cannot be trusted.
var ErrCorrupt = errors.New("corrupt trial record")

// Load returns the stored result of k: ok false when there is none; an
// error wrapping ErrCorrupt when the file is truncated, fails its
// checksum or holds another key. The caller recomputes in both cases.
func (s *Store) Load(k protocol.TrialKey) (res Result, ok bool, err error) {
	for _, dir := range append([]string{s.Dir}, s.Also...) {
		st := &Store{Dir: dir}
		_, res, ok, err = st.Read(k.ID())
		if err != nil {
			return Result{}, false, fmt.Errorf("trial: %w", err)
		}
		if ok {
			return res, true, nil
		}
	}
	return Result{}, false, nil
}

// Read reads and checks the record of trial id: ok false when there is
// none; an error naming the file, wrapping ErrCorrupt when it cannot be
// trusted.
func (s *Store) Read(id string) (rec record, res Result, ok bool, err error) {
	path := s.Path(id)
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return record{}, Result{}, false, nil
	}
	if err != nil {
		return record{}, Result{}, false, err
	}
	rec, res, err = DecodeRecord(raw, path)
	if err == nil && rec.ID != id {
		err = fmt.Errorf("%w %s: it holds trial %s, not %s", ErrCorrupt, path, rec.ID, id)
	}
	if err != nil {
		return record{}, Result{}, false, err
	}
	return rec, res, true, nil
}

// recordFile is a record as its file is checked: the result decoded
// in place, so that a fault in it is named at its line and column.
type recordFile struct {
	ID     string            `json:"id"`
	Key    protocol.TrialKey `json:"key"`
	Result resultJSON        `json:"result"`
	SHA256 string            `json:"sha256"`
}

// DecodeRecord parses and checks one record file, read from name (used
// in messages), strictly (jsonstrict); every error wraps ErrCorrupt.
func DecodeRecord(raw []byte, name string) (record, Result, error) {
	doc, err := jsonstrict.Parse(raw, name, "trial record", reflect.TypeFor[recordFile]())
	if err != nil {
		return record{}, Result{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	var rec record
	if err := doc.Decode(&rec); err != nil {
		return record{}, Result{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	sum := sha256.Sum256(rec.Result)
	if hex.EncodeToString(sum[:]) != rec.SHA256 {
		return record{}, Result{}, fmt.Errorf("%w %s: checksum mismatch", ErrCorrupt, name)
	}
	if rec.Key.ID() != rec.ID {
		return record{}, Result{}, fmt.Errorf("%w %s: id %s does not match its key", ErrCorrupt, name, rec.ID)
	}
	var file recordFile
	if err := doc.Decode(&file); err != nil {
		return record{}, Result{}, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	rj := file.Result
	res := Result{EpochLoss: rj.EpochLoss, ValCurve: rj.ValCurve, StartVal: rj.StartVal, StartTest: rj.StartTest, LinearTest: rj.LinearTest, BestEpoch: rj.BestEpoch,
		Diverged: rj.Diverged, DivergedStep: rj.DivergedStep, Signature: rj.Signature, Forecasts: rj.Forecasts,
		ValAcc: rj.ValAcc, TestAcc: rj.TestAcc, TestMASE: rj.TestMASE, ValAccCurve: rj.ValAccCurve, ValEvery: rj.ValEvery, Steps: rj.Steps}
	switch {
	case rj.Diverged:
		res.Val, res.Test = math.Inf(1), math.Inf(1)
	case rj.Val == nil || rj.Test == nil:
		return record{}, Result{}, fmt.Errorf("%w %s: a finished trial without val or test metric", ErrCorrupt, name)
	default:
		res.Val, res.Test = *rj.Val, *rj.Test
	}
	return rec, res, nil
}

// Save writes the record of k atomically.
func (s *Store) Save(k protocol.TrialKey, r Result) error {
	data, err := encodeRecord(k, r)
	if err != nil {
		return err
	}
	err = atomicfile.Write(s.Path(k.ID()), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return fmt.Errorf("trial: saving trial %s: %w", k.ID(), err)
	}
	return nil
}

func encodeRecord(k protocol.TrialKey, r Result) ([]byte, error) {
	rj := resultJSON{EpochLoss: r.EpochLoss, ValCurve: r.ValCurve, StartVal: r.StartVal, StartTest: r.StartTest, LinearTest: r.LinearTest, BestEpoch: r.BestEpoch,
		Diverged: r.Diverged, DivergedStep: r.DivergedStep, Signature: r.Signature, Forecasts: r.Forecasts,
		ValAcc: r.ValAcc, TestAcc: r.TestAcc, TestMASE: r.TestMASE, ValAccCurve: r.ValAccCurve, ValEvery: r.ValEvery, Steps: r.Steps}
	if !r.Diverged {
		rj.Val, rj.Test = &r.Val, &r.Test
	}
	res, err := json.Marshal(rj)
	if err != nil {
		return nil, fmt.Errorf("trial: encoding trial %s (a NaN or Inf in a finished trial?): %w", k.ID(), err)
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
	ProtocolID      string            `json:"protocol_id"`
	TrainingVersion string            `json:"training_version"`
	Shard           int               `json:"shard"`                 // this process's index, 0 when unsharded
	Shards          int               `json:"shards"`                // number of shards, 1 when unsharded
	DataSHA256      string            `json:"data_sha256,omitempty"` // the csv track's file
	Protocol        protocol.Protocol `json:"protocol"`
}

// ManifestName is the manifest's file name for shard i of n.
func ManifestName(i, n int) string {
	if n <= 1 {
		return "protocol.json"
	}
	return fmt.Sprintf("shard-%d-of-%d.json", i, n)
}

// WriteManifest records that shard i of n of p writes into the store.
func (s *Store) WriteManifest(p protocol.Protocol, dataSHA string, i, n int) error {
	m := Manifest{ProtocolID: p.ID(), TrainingVersion: protocol.TrainingVersion, Shard: i, Shards: max(n, 1), DataSHA256: dataSHA, Protocol: p}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("trial: manifest: %w", err)
	}
	path := filepath.Join(s.Dir, ManifestName(i, n))
	if err := atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	}); err != nil {
		return fmt.Errorf("trial: writing %s: %w", path, err)
	}
	return nil
}

// ReadManifests returns the manifests of dir, by file name.
func ReadManifests(dir string) (map[string]Manifest, error) {
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
		var m Manifest
		if err := jsonstrict.ReadFile(name, "manifest", &m); err != nil {
			return nil, fmt.Errorf("trial: %w", err)
		}
		if m.Protocol.ID() != m.ProtocolID {
			return nil, fmt.Errorf("trial: manifest %s: protocol_id %s does not match its protocol (edited?)", name, m.ProtocolID)
		}
		ms[name] = m
	}
	return ms, nil
}
