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
package atomicfile

import (
	"io"
	"os"
	"path/filepath"
)

// Write creates or replaces path with what write writes. Errors are
// returned unwrapped; callers add their own context.
func Write(path string, write func(w io.Writer) error) (err error) {
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
