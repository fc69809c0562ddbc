package suite

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ideabench/ideabench/protocol"
)

// TestRunChecksEveryTrackFirst: a suite file whose last track is beyond
// the memory at hand, by its model or by its sequences alone, fails
// before its first track trains, naming the track and the field to
// lower; nothing is written, not even the suite's folder.
func TestRunChecksEveryTrackFirst(t *testing.T) {
	for _, tc := range []struct {
		name, huge string // the last track's protocol
		want       string
	}{
		// Attention over 2^16 positions: petabytes a trial.
		{"model", `{"mqar": {"t": 65536}}`, "the look-back (mqar.t)"},
		// 2^21 train sequences of 24 tokens: 384 MiB.
		{"sequences", `{"mqar": {"sizes": {"train": 2097152, "val": 16, "test": 16}}}`, "lower mqar.sizes (train, val, test) or mqar.t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "s.json")
			require.NoError(t, os.WriteFile(file, []byte(`{"name": "s", "profile": "ci", "tracks": [
				{"name": "small", "track": "mqar"},
				{"name": "huge", "track": "mqar", "protocol": `+tc.huge+`}]}`), 0o644))
			spec, _, err := Open(file)
			require.NoError(t, err)
			out := filepath.Join(dir, "out.json")
			_, err = Run(context.Background(), spec, Options{Out: out, Workers: 1, Limits: protocol.Limits{MaxBytes: 64 << 20}})
			require.ErrorIs(t, err, protocol.ErrBeyondLimits)
			require.ErrorContains(t, err, "suite: track huge: protocol: beyond the limits: ")
			require.ErrorContains(t, err, "64 MiB is available; ")
			require.ErrorContains(t, err, tc.want)
			require.NoDirExists(t, Dir(out), "no track trained or wrote a thing")
			require.NoFileExists(t, out)
		})
	}
}
