package report

import (
	"os"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/stretchr/testify/require"
)

// TestParseReportTruncated cuts the seed report at every byte: each cut
// inside the JSON is an error that names the file and calls it truncated.
func TestParseReportTruncated(t *testing.T) {
	raw, err := os.ReadFile(testkit.SeedReport)
	require.NoError(t, err)
	r, err := ParseReport(raw, "seed.json")
	require.NoError(t, err)
	require.Equal(t, 8, r.NSeeds)
	end := len(raw)
	for end > 0 && raw[end-1] != '}' {
		end--
	}
	for n := range end {
		_, err := ParseReport(raw[:n], "seed.json")
		require.Error(t, err, "cut at %d", n)
		require.ErrorContains(t, err, "seed.json")
		require.ErrorContains(t, err, "truncated", "cut at %d", n)
	}
}
