package suitereport

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/ideabench/ideabench/internal/jsonstrict/stricttest"
	"github.com/stretchr/testify/require"
)

// TestReadReportStrict: a suite report with trailing data or an unknown
// key is refused where the fault is; IsReport tells it from a track's.
func TestReadReportStrict(t *testing.T) {
	raw, err := os.ReadFile("../golden/suite_ci_1.snap.json")
	require.NoError(t, err)
	require.True(t, IsReport(raw))
	require.False(t, IsReport([]byte(`{"bench_version": "1"}`)))
	path := filepath.Join(t.TempDir(), "s.json")
	stricttest.Refuses(t, raw, func(raw []byte) error {
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		_, err := Read(path)
		return err
	})
}
