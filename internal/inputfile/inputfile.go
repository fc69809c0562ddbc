// Package inputfile reads the small files a user names (a config, a
// suite file, a file of per-seed metrics) with a bound on their size, so
// a wrong path (a device such as /dev/zero, a data file of gigabytes)
// fails at once instead of filling the memory.
package inputfile

import (
	"fmt"
	"io"
	"os"
)

// Read returns the contents of the file at path, or an error naming it
// and the bound when it holds more than max bytes. A regular file that
// says it is larger is refused before any byte is read; another (a
// device, a pipe) is read up to the bound.
func Read(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > max {
		return nil, tooLarge(path, max)
	}
	raw, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if int64(len(raw)) > max {
		return nil, tooLarge(path, max)
	}
	return raw, nil
}

// tooLarge is Read's error for a file of more than max bytes.
func tooLarge(path string, max int64) error {
	return fmt.Errorf("%s: more than %s, larger than any file of this kind; check the path", path, size(max))
}

// size writes b bytes in the largest binary unit that divides them.
func size(b int64) string {
	for _, u := range []struct {
		name string
		n    int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b >= u.n && b%u.n == 0 {
			return fmt.Sprintf("%d %s", b/u.n, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", b)
}
