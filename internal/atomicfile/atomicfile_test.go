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

// TestCheck: a path naming something other than a regular file is
// refused before anything is written, and left as it was.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(target, link))
	put := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	for _, tc := range []struct {
		name, path, want string
	}{
		{"empty", "", "the path is empty"},
		{"dir", dir, "is a directory"},
		{"symlink", link, "is a symbolic link"},
		{"device", os.DevNull, "is not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorContains(t, Check(tc.path), tc.want)
			require.ErrorContains(t, Write(tc.path, put), tc.want)
		})
	}
	st, err := os.Lstat(link)
	require.NoError(t, err)
	require.NotZero(t, st.Mode()&os.ModeSymlink, "the link is still a link")
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "keep", string(got))
	require.NoError(t, Check(target), "a regular file")
	require.NoError(t, Check(filepath.Join(dir, "new.json")), "a new path")
}
