// Package lease holds the lease files by which several processes share
// one folder without a server: a lease names its owner (pid and host)
// and what it is for, is created exclusively and whole, and is renewed
// by its owner touching it; it is stale, and may be taken over, when its
// owner is a process of this host that no longer exists or when it was
// not renewed for a time to live. The trial store claims each trial
// with one (package trial); a command claims the report it writes with
// ClaimOutput.
package lease

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ideabench/ideabench/internal/jsonstrict"
)

// Lease is the content of a lease file.
type Lease struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
	// Of names the work the owner does under the lease (ClaimOutput:
	// the identity of the report it writes); empty for a trial's lease.
	Of string `json:"of,omitempty"`
}

// Mine is a lease of this process, since now, for the work of.
func Mine(of string) Lease {
	host, _ := os.Hostname()
	return Lease{PID: os.Getpid(), Host: host, Since: time.Now().UTC(), Of: of}
}

// Create writes lease l to path only if path does not exist, and whole:
// the lease is written to a temporary file that is then linked to path
// (link fails when path exists, as O_EXCL would), so a process killed
// while claiming leaves no half-written lease for the others to wait on
// (only its temporary file, ".<base>.tmp-*", which RemoveStale removes).
// The error wraps fs.ErrExist when another lease is there.
func Create(path string, l Lease) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	err = json.NewEncoder(f).Encode(l)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("lease: writing %s: %w", path, err)
	}
	return os.Link(tmp, path)
}

// Read reads the lease file path strictly (jsonstrict).
func Read(path string) (Lease, error) {
	var l Lease
	return l, jsonstrict.ReadFile(path, "lease", &l)
}

// Stale reports whether the lease file at path may be taken over: not
// renewed for ttl, or held by a process of this host that is gone. A
// lease that vanished meanwhile counts as stale (claim again); one that
// is no lease of this harness waits out ttl.
func Stale(path string, ttl time.Duration) (bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("lease: %s: %w", path, err)
	}
	if time.Since(st.ModTime()) > ttl {
		return true, nil
	}
	l, err := Read(path)
	if err != nil {
		return errors.Is(err, fs.ErrNotExist), nil
	}
	if host, _ := os.Hostname(); l.Host == host && l.PID > 0 && !processAlive(l.PID) {
		return true, nil
	}
	return false, nil
}

// Holder says who holds the lease at path, as "pid 4242 on host h,
// renewed 3s ago"; "" when there is none or it cannot be read.
func Holder(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	raw, err := os.ReadFile(path)
	var l Lease
	if err != nil || json.Unmarshal(raw, &l) != nil {
		return ""
	}
	return fmt.Sprintf("pid %d on host %s, renewed %s ago", l.PID, l.Host, time.Since(st.ModTime()).Round(time.Second))
}

// Renew touches the leases that held names every ttl/4, renewing them,
// until stop is closed.
func Renew(stop <-chan struct{}, ttl time.Duration, held func() []string) {
	t := time.NewTicker(ttl / 4)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			now := time.Now()
			for _, path := range held() {
				os.Chtimes(path, now, now)
			}
		}
	}
}

// IsTemp reports whether the file name is a temporary file of Create.
func IsTemp(name string) bool { return strings.HasPrefix(name, ".") && strings.Contains(name, ".tmp-") }
