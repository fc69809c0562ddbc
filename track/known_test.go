package track

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestKnownFind(t *testing.T) {
	raw, err := os.ReadFile("testdata/tiny.csv")
	require.NoError(t, err)
	sum := sha256.Sum256(raw)
	k := KnownData{Name: "tiny", File: "ETT-small/tiny.csv", SHA256: hex.EncodeToString(sum[:]), Source: "testdata", Split: "fractions", Target: "OT", T: 24, H: 6}
	write := func(dir, rel string, b []byte) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
	}
	t.Run("usual path", func(t *testing.T) {
		dir := t.TempDir()
		write(dir, "ETT-small/tiny.csv", raw)
		p, err := k.Find(dir)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(dir, "ETT-small", "tiny.csv"), p)
	})
	t.Run("elsewhere below", func(t *testing.T) {
		dir := t.TempDir()
		write(dir, "b/tiny.csv", raw)
		write(dir, "a/x/tiny.csv", raw)
		p, err := k.Find(dir)
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(dir, "a", "x", "tiny.csv"), p, "the first in lexical order")
	})
	t.Run("missing", func(t *testing.T) {
		_, err := k.Find(t.TempDir())
		require.True(t, errors.Is(err, ErrNotFound))
		assert.Contains(t, err.Error(), "download it from testdata")
	})
	t.Run("edited", func(t *testing.T) {
		dir := t.TempDir()
		write(dir, "ETT-small/tiny.csv", append(raw, '\n'))
		_, err := k.Find(dir)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "not the published file's")
		assert.Contains(t, err.Error(), "--data")
	})
	t.Run("config", func(t *testing.T) {
		c := k.Config("p.csv", "")
		assert.Equal(t, CSVConfig{Path: "p.csv", Target: "OT", Features: []string{"OT"}, T: 24, H: 6, Split: "fractions"}, c)
		m := k.Config("p.csv", ChannelsIndependent)
		assert.Equal(t, ChannelsIndependent, m.Channels)
		require.NoError(t, m.Validate())
	})
}

// TestKnownEditedHint: the error of an edited copy prints a command
// that runs that copy as it is on the track of the set's kind, with the
// set's usual settings, its path quoted for a shell (cmd/ideabench's
// TestKnownEditedHintRuns runs it).
func TestKnownEditedHint(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my data")
	for _, tc := range []struct {
		name string
		k    KnownData
		want string
	}{
		{"csv", KnownData{Name: "tiny", File: "tiny.csv", SHA256: "00", Source: "s", Split: "fractions", Target: "OT", T: 24, H: 6, Patch: 4},
			"ideabench run --track csv --data '" + filepath.Join(dir, "tiny.csv") + "' --target OT --features OT --csv-split fractions --context 24 --horizon 6 --patch 4"},
		{"tsf", KnownData{Name: "tiny-weekly", Kind: "tsf", File: "tiny.tsf", SHA256: "00", Source: "s", T: 8, H: 4, Patch: 4},
			"ideabench run --track tsf --data '" + filepath.Join(dir, "tiny.tsf") + "' --context 8 --horizon 4 --patch 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.MkdirAll(dir, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(dir, tc.k.File), []byte("edited"), 0o644))
			_, err := tc.k.Find(dir)
			require.ErrorContains(t, err, "not the published file's")
			require.True(t, strings.HasSuffix(err.Error(), tc.want), "%v", err)
		})
	}
}

// TestKnownShared: the copies beside the project are the published
// files (skipped where ../shared is absent).
func TestKnownShared(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "data")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("no data directory at %s", dir)
	}
	for _, k := range Known {
		t.Run(k.Name, func(t *testing.T) {
			p, err := k.Find(dir)
			if errors.Is(err, ErrNotFound) {
				t.Skipf("%s not in %s", k.Name, dir)
			}
			require.NoError(t, err)
			_, ok := LookupKnown(k.Name)
			require.True(t, ok)
			if k.TrackKind() == "tsf" {
				f, err := LoadTSF(p)
				require.NoError(t, err)
				_, err = NewRealPanel(f, RealPanelConfig{T: k.T, H: k.H})
				require.NoError(t, err)
				return
			}
			tab, err := LoadCSV(p)
			require.NoError(t, err)
			_, err = CSV(tab, k.Config(p, ""))
			require.NoError(t, err)
		})
	}
}

// TestKnownConvert: a set published as a pair of text files becomes its
// .tsf file, checked on the way in (both files' SHA-256) and out (the
// file's); Find points to the conversion while only the pair is there.
func TestKnownConvert(t *testing.T) {
	train, test := []byte("1,2,3,4,5\n5,4,3,2,1.5\n"), []byte("1;6;7\n1;1;0.5\n")
	hash := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }
	f, err := ReadTSFPair(context.Background(), bytes.NewReader(train), bytes.NewReader(test), "a", "b", PairConfig{Relation: "tiny_weekly", Frequency: "weekly"})
	require.NoError(t, err)
	var made bytes.Buffer
	require.NoError(t, WriteTSF(&made, f, "tiny: made by ideabench datasets --convert from tiny_dataset.txt and tiny_results.txt"))
	k := KnownData{Name: "tiny", Kind: "tsf", File: "tiny_dataset.tsf", SHA256: hash(made.Bytes()), Source: "testdata", T: 2, H: 2,
		Pair: &KnownPair{Train: "tiny_dataset.txt", Test: "tiny_results.txt", TrainSHA: hash(train), TestSHA: hash(test),
			PairConfig: PairConfig{Relation: "tiny_weekly", Frequency: "weekly"}}}
	dir := t.TempDir()
	_, err = k.Find(dir)
	require.ErrorIs(t, err, ErrNotFound)
	require.NotErrorIs(t, err, ErrToConvert)
	require.Contains(t, err.Error(), "nor its two text files")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "w"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "w", "tiny_dataset.txt"), train, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tiny_results.txt"), test, 0o644))
	_, err = k.Find(dir)
	require.ErrorIs(t, err, ErrToConvert)
	require.ErrorIs(t, err, ErrNotFound)
	require.Contains(t, err.Error(), "ideabench datasets --convert tiny")

	p, err := k.Convert(context.Background(), dir)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(dir, "w", "tiny_dataset.tsf"), p, "beside the in-sample file")
	got, err := k.Find(dir)
	require.NoError(t, err)
	require.Equal(t, p, got)
	g, err := LoadTSF(p)
	require.NoError(t, err)
	require.Equal(t, 2, g.Horizon)
	require.Equal(t, []float64{5, 4, 3, 2, 1.5, 1, 0.5}, g.Series[1].Values)
	p2, err := k.Convert(context.Background(), dir)
	require.NoError(t, err, "made before: returned as it is")
	require.Equal(t, p, p2)

	t.Run("edited input", func(t *testing.T) {
		d := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(d, "tiny_dataset.txt"), train, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, "tiny_results.txt"), append(test, '\n'), 0o644))
		_, err := k.Convert(context.Background(), d)
		require.ErrorContains(t, err, "tiny_results.txt has SHA-256")
		_, err = os.Stat(filepath.Join(d, "tiny_dataset.tsf"))
		require.True(t, os.IsNotExist(err), "nothing written")
	})
	t.Run("other file in the way", func(t *testing.T) {
		d := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(d, "tiny_dataset.txt"), train, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, "tiny_results.txt"), test, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, "tiny_dataset.tsf"), []byte("x"), 0o644))
		_, err := k.Convert(context.Background(), d)
		require.ErrorContains(t, err, "is not the file the pair makes")
	})
	t.Run("not a pair", func(t *testing.T) {
		_, err := KnownData{Name: "csv", File: "x.csv", Source: "s"}.Convert(context.Background(), dir)
		require.ErrorContains(t, err, "nothing to convert")
	})
}
