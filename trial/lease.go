package trial

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ideabench/ideabench/internal/jsonstrict"
)

// Several processes may run one protocol into one results directory at
// once (without --shard): before training a trial, a process claims it
// with a lease file, trials/ID.lease, created exclusively and whole
// (createLease), which names the owner (pid and host) and whose
// modification time the owner renews every LeaseTTL/4 while it trains. The other processes skip a
// claimed trial, train the rest, and then wait for the claimed ones'
// records. A lease is stale, and taken over, when its owner is a process
// of this host that no longer exists or when it was not renewed for
// LeaseTTL (an owner on another host that died or stopped). Records are
// deterministic, so the rare race in which two processes take over one
// stale lease at once trains the trial twice and writes the same bytes.

// LeaseTTL is how long a lease lives without renewal.
var LeaseTTL = 2 * time.Minute

// LeasePoll is how often a process waiting for trials claimed by others
// looks for their records.
var LeasePoll = 250 * time.Millisecond

// lease is the content of a lease file.
type lease struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host"`
	Since time.Time `json:"since"`
}

// leases is the set of leases a Store holds, renewed by renewLeases.
type leases struct {
	mu   sync.Mutex
	held map[string]lease // trial id -> the lease written
}

func (s *Store) leasePath(id string) string { return filepath.Join(s.Dir, "trials", id+".lease") }

func thisLease() lease {
	host, _ := os.Hostname()
	return lease{PID: os.Getpid(), Host: host, Since: time.Now().UTC()}
}

// Claim tries to take the lease of trial id: false when another live
// process holds it. The caller trains the trial, saves it, then calls
// Release.
func (s *Store) Claim(id string) (bool, error) {
	path := s.leasePath(id)
	for range 3 {
		me := thisLease()
		err := createLease(path, me)
		if err == nil {
			s.leases.mu.Lock()
			if s.leases.held == nil {
				s.leases.held = map[string]lease{}
			}
			s.leases.held[id] = me
			s.leases.mu.Unlock()
			return true, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return false, fmt.Errorf("trial: claiming trial %s: %w", id, err)
		}
		stale, err := leaseStale(path)
		if err != nil {
			return false, err
		}
		if !stale {
			return false, nil
		}
		// Move the stale lease aside, then claim again: of several
		// processes that found it stale, one renames it.
		aside := fmt.Sprintf("%s.stale-%d-%d", path, me.PID, time.Now().UnixNano())
		if err := os.Rename(path, aside); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("trial: taking over stale lease %s: %w", path, err)
		}
		os.Remove(aside)
	}
	return false, nil
}

// createLease writes lease l to path only if path does not exist, and
// whole: the lease is written to a temporary file that is then linked to
// path (link fails when path exists, as O_EXCL would), so a process killed
// while claiming leaves no half-written lease for the others to wait on
// (its temporary file is removed later by removeStale). The error wraps
// fs.ErrExist when another lease is there.
func createLease(path string, l lease) error {
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
		return fmt.Errorf("trial: writing lease %s: %w", path, err)
	}
	return os.Link(tmp, path)
}

// leaseStale reports whether the lease file at path may be taken over: not
// renewed for LeaseTTL, or held by a process of this host that is gone. A
// lease that vanished meanwhile counts as stale (claim again).
func leaseStale(path string) (bool, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("trial: lease %s: %w", path, err)
	}
	if time.Since(st.ModTime()) > LeaseTTL {
		return true, nil
	}
	l, err := readLease(path)
	if err != nil {
		// Gone: free. Not a lease of this harness: wait out LeaseTTL.
		return errors.Is(err, fs.ErrNotExist), nil
	}
	if host, _ := os.Hostname(); l.Host == host && l.PID > 0 && !processAlive(l.PID) {
		return true, nil
	}
	return false, nil
}

// Holder says who holds the lease of trial id, as "pid 4242 on host
// h, renewed 3s ago"; "" when there is no lease or it cannot be read.
func (s *Store) Holder(id string) string {
	path := s.leasePath(id)
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	raw, err := os.ReadFile(path)
	var l lease
	if err != nil || json.Unmarshal(raw, &l) != nil {
		return ""
	}
	return fmt.Sprintf("pid %d on host %s, renewed %s ago", l.PID, l.Host, time.Since(st.ModTime()).Round(time.Second))
}

// Release gives up the lease of trial id, if it is still the one Claim
// wrote.
func (s *Store) Release(id string) {
	s.leases.mu.Lock()
	me, ok := s.leases.held[id]
	delete(s.leases.held, id)
	s.leases.mu.Unlock()
	if !ok {
		return
	}
	path := s.leasePath(id)
	if l, err := readLease(path); err == nil && l.PID == me.PID && l.Host == me.Host && l.Since.Equal(me.Since) {
		os.Remove(path)
	}
}

// readLease reads the lease file path strictly (jsonstrict).
func readLease(path string) (lease, error) {
	var l lease
	return l, jsonstrict.ReadFile(path, "lease", &l)
}

// RenewLeases touches every lease s holds each LeaseTTL/4 until stop is
// closed.
func (s *Store) RenewLeases(stop <-chan struct{}) {
	t := time.NewTicker(LeaseTTL / 4)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.leases.mu.Lock()
			now := time.Now()
			for id := range s.leases.held {
				os.Chtimes(s.leasePath(id), now, now)
			}
			s.leases.mu.Unlock()
		}
	}
}

// removeStale removes what killed processes left in trials/: temporary
// files of interrupted atomic writes and leases moved aside, once older
// than LeaseTTL (a live writer renames its temporary file within
// moments).
func (s *Store) removeStale() {
	dir := filepath.Join(s.Dir, "trials")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if !(strings.HasPrefix(n, ".") && strings.Contains(n, ".tmp-")) && !strings.Contains(n, ".lease.stale-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > LeaseTTL {
			os.Remove(filepath.Join(dir, n))
		}
	}
}
