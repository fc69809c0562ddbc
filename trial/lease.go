package trial

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/ideabench/ideabench/internal/lease"
)

// Several processes may run one protocol into one results directory at
// once (without --shard): before training a trial, a process claims it
// with a lease file, trials/ID.lease, created exclusively and whole
// (lease.Create), which names the owner (pid and host) and whose
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

// leases is the set of leases a Store holds, renewed by renewLeases.
type leases struct {
	mu   sync.Mutex
	held map[string]lease.Lease // trial id -> the lease written
}

func (s *Store) leasePath(id string) string { return filepath.Join(s.Dir, "trials", id+".lease") }

// Claim tries to take the lease of trial id: false when another live
// process holds it. The caller trains the trial, saves it, then calls
// Release.
func (s *Store) Claim(id string) (bool, error) {
	path := s.leasePath(id)
	for range 3 {
		me := lease.Mine("")
		err := lease.Create(path, me)
		if err == nil {
			s.leases.mu.Lock()
			if s.leases.held == nil {
				s.leases.held = map[string]lease.Lease{}
			}
			s.leases.held[id] = me
			s.leases.mu.Unlock()
			return true, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return false, fmt.Errorf("trial: claiming trial %s: %w", id, err)
		}
		stale, err := lease.Stale(path, LeaseTTL)
		if err != nil {
			return false, fmt.Errorf("trial: %w", err)
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

// Holder says who holds the lease of trial id, as "pid 4242 on host
// h, renewed 3s ago"; "" when there is no lease or it cannot be read.
func (s *Store) Holder(id string) string { return lease.Holder(s.leasePath(id)) }

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
	if l, err := lease.Read(path); err == nil && l.PID == me.PID && l.Host == me.Host && l.Since.Equal(me.Since) {
		os.Remove(path)
	}
}

// RenewLeases touches every lease s holds each LeaseTTL/4 until stop is
// closed.
func (s *Store) RenewLeases(stop <-chan struct{}) {
	lease.Renew(stop, LeaseTTL, func() []string {
		s.leases.mu.Lock()
		defer s.leases.mu.Unlock()
		var out []string
		for id := range s.leases.held {
			out = append(out, s.leasePath(id))
		}
		return out
	})
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
		if !lease.IsTemp(n) && !strings.Contains(n, ".lease.stale-") {
			continue
		}
		if info, err := e.Info(); err == nil && time.Since(info.ModTime()) > LeaseTTL {
			os.Remove(filepath.Join(dir, n))
		}
	}
}
