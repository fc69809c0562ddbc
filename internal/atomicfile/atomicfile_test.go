package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.json")
	put := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	require.NoError(t, Write(path, put("one")))
	require.NoError(t, Write(path, put("two")))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "two", string(got))
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), st.Mode().Perm())

	// A failing writer leaves the old file and no temporary file.
	boom := errors.New("boom")
	err = Write(path, func(w io.Writer) error { io.WriteString(w, "partial"); return boom })
	require.ErrorIs(t, err, boom)
	got, _ = os.ReadFile(path)
	require.Equal(t, "two", string(got))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)

	require.Error(t, Write(filepath.Join(dir, "missing", "f"), put("x")))
}
