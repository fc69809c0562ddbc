package report_test

import (
	"os"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ideabench/ideabench/compare"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/report"
)

// TestReadBounds: a report file beyond its kind's bound is refused
// before it is read (under a MiB allocated), naming the file and the
// bound.
func TestReadBounds(t *testing.T) {
	for _, tc := range []struct {
		name  string
		read  func(path string) error
		bound int64
		want  string
	}{
		{"run report", func(p string) error { _, err := report.Read(p); return err }, report.MaxFileBytes, "more than 32 MiB"},
		{"comparison", func(p string) error { _, err := report.ReadCompared(p); return err }, report.MaxComparedBytes, "more than 256 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := testkit.SparseFile(t, tc.bound+1)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := tc.read(path)
			runtime.ReadMemStats(&after)
			require.ErrorContains(t, err, "report: "+path+": "+tc.want+", larger than any file of this kind; check the path")
			require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "refused unread")
		})
	}
}

// TestMaxFileBytes: the full profile's golden report is far within the
// bound (MaxFileBytes says by how much the largest legitimate one is).
func TestMaxFileBytes(t *testing.T) {
	st, err := os.Stat("../golden/full_1.snap.json")
	require.NoError(t, err)
	require.Less(t, 100*st.Size(), int64(report.MaxFileBytes))
}

// TestMaxComparedBytes: a comparison holds its metrics file's values at
// 1.4 bytes a byte (MaxComparedBytes), so its bound keeps twice that
// over the largest metrics file compare reads.
func TestMaxComparedBytes(t *testing.T) {
	require.GreaterOrEqual(t, float64(report.MaxComparedBytes), 2*1.4*float64(compare.MaxMetricsBytes))
}
