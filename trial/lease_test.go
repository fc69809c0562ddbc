package trial

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ideabench/ideabench/internal/lease"
	"github.com/stretchr/testify/require"
)

// TestLease: a lease is exclusive while its owner lives and renews it; it
// is taken over when its owner on this host is gone or when nobody renewed
// it for LeaseTTL; Release removes only the lease its Store wrote.
func TestLease(t *testing.T) {
	host, _ := os.Hostname()
	write := func(t *testing.T, s *Store, id string, l lease.Lease, age time.Duration) {
		t.Helper()
		raw, err := json.Marshal(l)
		require.NoError(t, err)
		path := s.leasePath(id)
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		old := time.Now().Add(-age)
		require.NoError(t, os.Chtimes(path, old, old))
	}
	for _, tc := range []struct {
		name  string
		held  *lease.Lease // a lease already there, nil for none
		age   time.Duration
		claim bool
	}{
		{"free", nil, 0, true},
		{"live owner here", &lease.Lease{PID: os.Getpid(), Host: host}, 0, false},
		{"live owner elsewhere", &lease.Lease{PID: 1, Host: "another-host"}, LeaseTTL / 2, false},
		{"dead owner here", &lease.Lease{PID: 1<<31 - 1, Host: host}, 0, true},
		{"not renewed", &lease.Lease{PID: 1, Host: "another-host"}, 2 * LeaseTTL, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := OpenStore(t.TempDir())
			require.NoError(t, err)
			if tc.held != nil {
				write(t, s, "x", *tc.held, tc.age)
			}
			ok, err := s.Claim("x")
			require.NoError(t, err)
			require.Equal(t, tc.claim, ok)
			if !ok {
				return
			}
			other := &Store{Dir: s.Dir}
			ok, err = other.Claim("x")
			require.NoError(t, err)
			require.False(t, ok, "a held lease is exclusive")
			other.Release("x") // not its lease: nothing happens
			require.FileExists(t, s.leasePath("x"))
			s.Release("x")
			require.NoFileExists(t, s.leasePath("x"))
			tmp, _ := filepath.Glob(filepath.Join(s.Dir, "trials", ".*"))
			require.Empty(t, tmp, "claims leave no temporary files")
		})
	}
	t.Run("an unreadable lease waits out LeaseTTL", func(t *testing.T) {
		s, err := OpenStore(t.TempDir())
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(s.leasePath("x"), nil, 0o644))
		ok, err := s.Claim("x")
		require.NoError(t, err)
		require.False(t, ok)
	})
}

// TestRemoveStale: opening a store removes temporary files and set-aside
// leases older than LeaseTTL, and keeps fresh ones and records.
func TestRemoveStale(t *testing.T) {
	dir := t.TempDir()
	trials := filepath.Join(dir, "trials")
	require.NoError(t, os.MkdirAll(trials, 0o755))
	files := map[string]bool{ // name -> kept
		".abc.json.tmp-123":      false,
		"abc.lease.stale-1-2":    false,
		".fresh.json.tmp-9":      true,
		"abc.json":               true,
		"def.lease":              true,
		".probe-not-a-temp-file": true,
	}
	old := time.Now().Add(-2 * LeaseTTL)
	for n, kept := range files {
		p := filepath.Join(trials, n)
		require.NoError(t, os.WriteFile(p, []byte("{}"), 0o644))
		if !kept || n == "abc.json" || n == "def.lease" {
			require.NoError(t, os.Chtimes(p, old, old))
		}
	}
	_, err := OpenStore(dir)
	require.NoError(t, err)
	for n, kept := range files {
		_, err := os.Stat(filepath.Join(trials, n))
		require.Equal(t, kept, err == nil, n)
	}
}
