// Package atomicfile writes files so that readers see either the old
// contents or the complete new ones, never a partial file.
//
//  1. Write into a temporary file in the target's folder (same file system,
//     so the rename is atomic).
//  2. Set mode 0644, fsync, close.
//  3. Rename over the target, then fsync the folder so the rename survives
//     a crash.
//
// On any error the temporary file is removed and the target is untouched.
// The rename replaces whatever the path names, so a path that names
// something other than a regular file (a symbolic link, a device such as
// /dev/stdout, a directory) is refused before anything is written (Check).
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Check reports why path cannot be written by Write: empty, or naming
// something other than a regular file, which the rename would replace;
// nil for a regular file or a path that does not exist yet.
func Check(path string) error {
	if path == "" {
		return errors.New("the path is empty; name a file")
	}
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.IsDir():
		return fmt.Errorf("%s is a directory; name a file in it, e.g. %s", path, filepath.Join(path, "report.json"))
	case st.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%s is a symbolic link, which writing by rename would replace with a file; name the file it points to, or another path", path)
	case !st.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file (%v), which writing by rename would replace; name a regular file", path, st.Mode().Type())
	}
	return nil
}

// Write creates or replaces path with what write writes (refusing a path
// that Check refuses). Errors are returned unwrapped; callers add their
// own context.
func Write(path string, write func(w io.Writer) error) (err error) {
	if err := Check(path); err != nil {
		return err
	}
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err = write(f); err != nil {
		return err
	}
	if err = f.Chmod(0o644); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
