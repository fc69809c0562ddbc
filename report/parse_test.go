package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ideabench/ideabench/internal/jsonstrict/stricttest"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/stretchr/testify/require"
)

// TestParseReportTruncated cuts the seed report at every byte: each cut
// inside the JSON is an error that names the file and calls it truncated.
func TestParseReportTruncated(t *testing.T) {
	raw, err := os.ReadFile(testkit.SeedReport)
	require.NoError(t, err)
	r, err := Parse(raw, "seed.json")
	require.NoError(t, err)
	require.Equal(t, 8, r.NSeeds)
	end := len(raw)
	for end > 0 && raw[end-1] != '}' {
		end--
	}
	for n := range end {
		_, err := Parse(raw[:n], "seed.json")
		require.Error(t, err, "cut at %d", n)
		require.ErrorContains(t, err, "seed.json")
		require.ErrorContains(t, err, "truncated", "cut at %d", n)
	}
}

// TestReadStrict: a report or a comparison report with trailing data or
// an unknown key is refused where the fault is.
func TestReadStrict(t *testing.T) {
	raw, err := os.ReadFile(testkit.SeedReport)
	require.NoError(t, err)
	stricttest.Refuses(t, raw, func(raw []byte) error {
		_, err := Parse(raw, "seed.json")
		return err
	})
	path := filepath.Join(t.TempDir(), "c.json")
	require.NoError(t, (&Compared{CompareVersion: CompareVersion, Source: "x"}).WriteFile(path))
	raw, err = os.ReadFile(path)
	require.NoError(t, err)
	stricttest.Refuses(t, raw, func(raw []byte) error {
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		_, err := ReadCompared(path)
		return err
	})
}
