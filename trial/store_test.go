package trial

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/internal/jsonstrict/stricttest"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"

	"github.com/stretchr/testify/require"
)

// trainingPins maps TrainingVersion to the SHA-256 of one tiny trial's
// stored result. A change of the training path that moves bits fails here
// until TrainingVersion is changed and its pin added, so that no stored
// trial of the old path is reused as if it were new.
var trainingPins = map[string]string{
	"train-2026-12-03b": "7a0e117fee76105084c4406cccf37203de3ca24c27b9b0e30b936cbbee7a0361",
	"train-2026-12-04a": "fe7d0f5b8dc91108f801d1a24cff6346db0b268d3240792666e18aea0c69096a",
	"train-2026-12-04b": "9e4d8aa4530d5e6798b7fc123bca22865371003e38a4e697916d182b0cb7e435",
	"train-2026-12-05":  "e11cbfd64a95d8143f4482bf8fa12e7b7aede668e81ca5ddfc4197afbf279310",
}

func TestTrainingVersionPinned(t *testing.T) {
	p := testkit.TinyProtocol()
	tr := protocol.Trial{Arm: "idea", Cfg: 1, Seed: 2}
	ds := testkit.MustSequence(t, p)
	r, err := RunTrial(context.Background(), p, ds, p.Cfg(tr), tr.Seed)
	require.NoError(t, err)
	data, err := encodeRecord(p.Key(tr, ""), r)
	require.NoError(t, err)
	var rec record
	require.NoError(t, json.Unmarshal(data, &rec))
	want, ok := trainingPins[protocol.TrainingVersion]
	require.True(t, ok, "no pin for TrainingVersion %q", protocol.TrainingVersion)
	require.Equal(t, want, rec.SHA256,
		"the training path's bits moved: set TrainingVersion in store.go to a new name and pin %s for it", rec.SHA256)
}

func TestStoreRoundTrip(t *testing.T) {
	p := testkit.TinyProtocol()
	ds := testkit.MustSequence(t, p)
	s, err := OpenStore(t.TempDir())
	require.NoError(t, err)
	tr := protocol.Trial{Arm: "idea", Cfg: 0, Seed: 1}
	r, err := RunTrial(context.Background(), p, ds, p.Cfg(tr), tr.Seed)
	require.NoError(t, err)
	require.NotNil(t, r.Signature)
	k := p.Key(tr, "")
	_, ok, err := s.Load(k)
	require.NoError(t, err)
	require.False(t, ok, "empty store")
	require.NoError(t, s.Save(k, r))
	got, ok, err := s.Load(k)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, r, got, "stored floats round-trip exactly")

	d := Result{EpochLoss: []float64{0.5}, Diverged: true, DivergedStep: 7, Val: math.Inf(1), Test: math.Inf(1)}
	k2 := p.Key(protocol.Trial{Arm: "baseline", Cfg: 1, Seed: 0}, "")
	require.NoError(t, s.Save(k2, d))
	got, ok, err = s.Load(k2)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, d, got, "a diverged trial stores null metrics and loads +Inf")

	require.ErrorContains(t, s.Save(k2, Result{Val: math.NaN()}), "NaN or Inf")
}

func TestStoreCorrupt(t *testing.T) {
	p := testkit.TinyProtocol()
	k := p.Key(protocol.Trial{Arm: "baseline", Cfg: 0, Seed: 0}, "")
	other := p.Key(protocol.Trial{Arm: "baseline", Cfg: 0, Seed: 1}, "")
	good, err := encodeRecord(k, Result{Val: 0.25, Test: 0.5, EpochLoss: []float64{1, 0.75}})
	require.NoError(t, err)
	otherRec, err := encodeRecord(other, Result{Val: 0.25, Test: 0.5})
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)/2], "truncated"},
		{"empty", nil, "truncated"},
		{"edited_value", []byte(strings.Replace(string(good), `"val":0.25`, `"val":0.24`, 1)), "checksum mismatch"},
		{"edited_checksum", []byte(strings.Replace(string(good), `"sha256":"`, `"sha256":"0`, 1)), "checksum mismatch"},
		{"other_trial", otherRec, "holds trial"},
		{"not_json", []byte("\x00\x01garbage"), "invalid character"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := OpenStore(t.TempDir())
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(s.Path(k.ID()), tc.data, 0o644))
			_, ok, err := s.Load(k)
			require.False(t, ok)
			require.ErrorIs(t, err, ErrCorrupt)
			require.ErrorContains(t, err, tc.want)
			require.ErrorContains(t, err, k.ID()+".json", "names the file")
		})
	}
}

func TestOpenStoreUnwritable(t *testing.T) {
	if os.Getuid() == 0 {
		// root writes through permission bits; a file in the way still fails.
		f := filepath.Join(t.TempDir(), "file")
		require.NoError(t, os.WriteFile(f, nil, 0o644))
		_, err := OpenStore(filepath.Join(f, "results"))
		require.ErrorContains(t, err, "results directory")
		return
	}
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o500))
	_, err := OpenStore(filepath.Join(dir, "results"))
	require.ErrorContains(t, err, "results directory")
}

// TestReadStrict: a trial record (also inside its result), a manifest, an
// external trainer's result with trailing data or an unknown
// key are refused where the fault is.
func TestReadStrict(t *testing.T) {
	p := testkit.TinyProtocol()
	k := p.Key(protocol.Trial{Arm: "baseline", Cfg: 0, Seed: 0}, "")
	rec, err := encodeRecord(k, Result{Val: 0.25, Test: 0.5, EpochLoss: []float64{1, 0.75}})
	require.NoError(t, err)
	stricttest.Refuses(t, rec, func(raw []byte) error {
		_, _, err := DecodeRecord(raw, "r.json")
		return err
	})
	_, _, err = DecodeRecord([]byte(strings.Replace(string(rec), `"val":0.25`, `"val":0.25,"zz_unknown":0`, 1)), "r.json")
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, `unknown field "zz_unknown" in result`)

	dir := t.TempDir()
	s := &Store{Dir: dir}
	require.NoError(t, s.WriteManifest(p, "", 0, 1))
	man, err := os.ReadFile(filepath.Join(dir, "protocol.json"))
	require.NoError(t, err)
	stricttest.Refuses(t, man, func(raw []byte) error {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "protocol.json"), raw, 0o644))
		_, err := ReadManifests(dir)
		return err
	})

	stricttest.Refuses(t, []byte(`{"val_curve": [0.5, 0.4], "epoch_loss": [1, 0.9], "best_epoch": 2}`), func(raw []byte) error {
		_, err := readTrainerResult(raw)
		return err
	})
}
