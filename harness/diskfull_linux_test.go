package harness

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/trial"

	"github.com/stretchr/testify/require"
)

// TestDiskFull runs a protocol into a results directory on a 48 KiB
// tmpfs, which fills up part way: the run stops with an error naming the
// trial and the cause, every record on disk is complete and valid, no
// temporary file is left, and a rerun with room reuses them. Needs root
// (to mount); skipped otherwise.
func TestDiskFull(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=48k"); err != nil {
		t.Skipf("cannot mount a small tmpfs (needs root): %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, 0) })
	p := testkit.TinyProtocol()
	s, err := trial.OpenStore(dir)
	require.NoError(t, err)
	_, err = Run(context.Background(), p, Options{Store: s, Workers: 1})
	require.Error(t, err)
	require.Contains(t, err.Error(), "no space left on device")
	require.Contains(t, err.Error(), "saving trial")

	names, err := filepath.Glob(filepath.Join(dir, "trials", "*"))
	require.NoError(t, err)
	var saved int
	for _, name := range names {
		require.False(t, strings.HasPrefix(filepath.Base(name), "."), "temporary file %s left behind", name)
		raw, err := os.ReadFile(name)
		require.NoError(t, err)
		_, _, err = trial.DecodeRecord(raw, name)
		require.NoError(t, err, "record %s is complete", name)
		saved++
	}
	require.Positive(t, saved)
	require.Less(t, saved, len(p.Trials()))

	// The report is never half-written either.
	ref, err := Run(context.Background(), p, Options{})
	require.NoError(t, err)
	out := filepath.Join(dir, "report.json")
	require.Error(t, ref.Report.WriteFile(out))
	_, err = os.Stat(out)
	require.True(t, os.IsNotExist(err), "no partial report")

	// With room again, the saved trials are reused.
	big := t.TempDir()
	require.NoError(t, os.CopyFS(big, os.DirFS(dir)))
	s2, err := trial.OpenStore(big)
	require.NoError(t, err)
	o, err := Run(context.Background(), p, Options{Store: s2})
	require.NoError(t, err)
	require.Equal(t, saved, o.Reused)
	require.Equal(t, marshal(t, ref), marshal(t, o))
}
