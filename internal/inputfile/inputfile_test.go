package inputfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.json")
	require.NoError(t, os.WriteFile(small, []byte(`{"alpha": 0.1}`), 0o644))
	for _, tc := range []struct {
		name, path string
		max        int64
		want       string // error; "" reads the file
	}{
		{"fits", small, 14, ""},
		{"over", small, 13, small + ": more than 13 bytes, larger than any file of this kind; check the path"},
		{"missing", filepath.Join(dir, "none.json"), 10, "no such file"},
		// A device that never ends stops at the bound.
		{"device", "/dev/zero", 1 << 20, "/dev/zero: more than 1 MiB"},
		// A regular file that says it is larger is refused unread
		// (TestReadRefusesUnread).
		{"sparse", sparse(t, 1<<30), 1<<30 - 1, "more than 1073741823 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := os.Stat(tc.path); tc.name == "device" && err != nil {
				t.Skip("no /dev/zero")
			}
			raw, err := Read(tc.path, tc.max)
			if tc.want != "" {
				require.ErrorContains(t, err, tc.want)
				return
			}
			require.NoError(t, err)
			require.Equal(t, `{"alpha": 0.1}`, string(raw))
		})
	}
}

// sparse creates a file of size zero bytes that takes no disk
// (testkit.SparseFile, whose package imports this one).
func sparse(t *testing.T, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "sparse.json")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(size))
	require.NoError(t, f.Close())
	return path
}

// TestReadRefusesUnread: a regular file larger than the bound is refused
// from its size, before a byte is read: under a MiB allocated where
// reading up to the bound would take 256.
func TestReadRefusesUnread(t *testing.T) {
	path := sparse(t, 1<<30)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(path, 256<<20)
	runtime.ReadMemStats(&after)
	require.ErrorContains(t, err, path+": more than 256 MiB")
	require.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20))
}
