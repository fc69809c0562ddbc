package inputfile

import (
	"os"
	"path/filepath"
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
