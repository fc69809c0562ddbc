package lease

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ideabench/ideabench/internal/jsonstrict/stricttest"
	"github.com/stretchr/testify/require"
)

// TestReadStrict: a lease with trailing data or an unknown key is
// refused where the fault is.
func TestReadStrict(t *testing.T) {
	l, err := json.Marshal(Lease{PID: 1, Host: "h", Since: time.Unix(0, 0).UTC(), Of: "x"})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "x.lease")
	stricttest.Refuses(t, l, func(raw []byte) error {
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		_, err := Read(path)
		return err
	})
}

// TestClaimOutput: a report path claimed for one work refuses another
// work while its holder lives and renews it, is shared by the same
// work, and is free again once released, its holder gone or its lease
// not renewed for the time to live.
func TestClaimOutput(t *testing.T) {
	const ttl = time.Minute
	host, _ := os.Hostname()
	for _, c := range []struct {
		name  string
		other *Lease // another process's lease beside out, nil for none
		age   time.Duration
		of    string
		busy  bool
	}{
		{"free", nil, 0, "a", false},
		{"other work, live here", &Lease{PID: os.Getppid(), Host: host, Of: "b"}, 0, "a", true},
		{"other work, live elsewhere", &Lease{PID: 1, Host: "another-host", Of: "b"}, ttl / 2, "a", true},
		{"same work", &Lease{PID: os.Getppid(), Host: host, Of: "a"}, 0, "a", false},
		{"other work, gone here", &Lease{PID: 1<<31 - 1, Host: host, Of: "b"}, 0, "a", false},
		{"other work, not renewed", &Lease{PID: 1, Host: "another-host", Of: "b"}, 2 * ttl, "a", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "report.json")
			other := out + ".lease-another-1"
			if c.other != nil {
				raw, err := json.Marshal(c.other)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(other, raw, 0o644))
				old := time.Now().Add(-c.age)
				require.NoError(t, os.Chtimes(other, old, old))
			}
			release, err := ClaimOutput(out, c.of, ttl)
			if c.busy {
				require.ErrorIs(t, err, ErrBusy)
				require.ErrorContains(t, err, out+" is being written by another ideabench (pid ")
				require.ErrorContains(t, err, "give this one another --out")
				require.Equal(t, []string{other}, leases(t, dir), "the refused claim leaves no lease")
				return
			}
			require.NoError(t, err)
			require.Len(t, leases(t, dir), 1+btoi(c.other != nil && c.other.Of == c.of), "a stale lease is removed, the same work's kept")
			_, err = ClaimOutput(out, c.of+"x", ttl)
			require.ErrorIs(t, err, ErrBusy, "the claim holds against other work")
			release()
			release2, err := ClaimOutput(out, c.of+"x", ttl)
			if c.other != nil && c.other.Of == c.of {
				require.ErrorIs(t, err, ErrBusy, "the other process of the same work still writes")
				return
			}
			require.NoError(t, err, "released")
			release2()
			require.Empty(t, leases(t, dir))
		})
	}
}

func leases(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "report.json.lease-*"))
	require.NoError(t, err)
	return m
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
