package harness

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// csvProtocol is tinyProtocol on the csv track of the tiny ETT-like file.
func csvProtocol(path string) protocol.Protocol {
	p := testkit.TinyProtocol()
	p.Track = "csv"
	p.CSV = &track.CSVConfig{Path: path, Target: "OT", T: 16, H: 4}
	return p
}

// TestCSVTrackRun: the protocol on a csv track runs, verifies (reference
// forecasters rebuilt from the file), keys its trials by the file's
// content, and retrains when the file changes.
func TestCSVTrackRun(t *testing.T) {
	dir := t.TempDir()
	src, err := os.ReadFile("../track/testdata/tiny.csv")
	require.NoError(t, err)
	path := filepath.Join(dir, "tiny.csv")
	require.NoError(t, os.WriteFile(path, src, 0o644))
	p := csvProtocol(path)
	s, err := trial.OpenStore(filepath.Join(dir, "results"))
	require.NoError(t, err)
	o, err := Run(context.Background(), p, Options{Store: s})
	require.NoError(t, err)
	r := o.Report
	require.Equal(t, "csv", r.Track)
	require.Equal(t, 3, o.Data.Train.C)
	require.Contains(t, r.MechanismSignature.TrackRationale, "OT")
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches())
	require.Positive(t, r.ReferenceForecasters.Persistence)

	again, err := Run(context.Background(), p, Options{Store: s})
	require.NoError(t, err)
	require.Equal(t, len(p.Trials()), again.Reused)

	// Another file content: new ids, nothing reused; same path.
	src[len(src)-3] ^= 1
	require.NoError(t, os.WriteFile(path, src, 0o644))
	changed, err := Run(context.Background(), p, Options{Store: s})
	require.NoError(t, err)
	require.Zero(t, changed.Reused)

	// The key leaves out the path: a moved file keeps its trials.
	moved := filepath.Join(dir, "moved.csv")
	require.NoError(t, os.Rename(path, moved))
	m, err := Run(context.Background(), csvProtocol(moved), Options{Store: s})
	require.NoError(t, err)
	require.Equal(t, len(p.Trials()), m.Reused)

	_, err = csvProtocol(filepath.Join(dir, "none.csv")).Data()
	require.ErrorContains(t, err, "none.csv")
}
