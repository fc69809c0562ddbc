package track

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
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
