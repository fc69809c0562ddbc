// Package testkit holds what the tests of several packages share: a
// protocol at a size that runs in a second, its data, the path of the
// seed report's copy, and the matching of verify's field names.
package testkit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// SeedReport is the copy of ../shared/seed/seed-report.json, as a path
// from a package folder one level below the repository root, so the
// tests that read it run wherever CI does.
const SeedReport = "../report/testdata/seed-report.json"

// TinyCSV is a small generated csv track (OT and two other columns), as a
// path from a package folder one level below the repository root.
const TinyCSV = "../track/testdata/tiny.csv"

// TinyProtocol has the protocol's structure at a size that runs in a
// second: 3 seeds, 2 cfgs per arm, a narrow model, few windows, and
// fixed grids (no grid extension).
func TinyProtocol() protocol.Protocol {
	p := protocol.CIProfileFor("sequence")
	p.Profile = "tiny"
	p.ExtendGrid = nil
	p.Seeds = []uint64{0, 1, 2}
	// cfg 0 trains as the seed report did; cfg 1 with AdamW, warmup,
	// cosine decay, clipping and early stopping.
	tuned := protocol.Cfg{LR: 0.01, Epochs: 3, WeightDecay: 0.1, Schedule: protocol.ScheduleCosine, Warmup: 0.2, Clip: 1, Patience: 1}
	gated := tuned
	gated.Rho, gated.Beta = 0.9, 1
	p.Baseline = []protocol.Cfg{{LR: 0.003, Epochs: 2}, tuned}
	p.Idea = []protocol.Cfg{{LR: 0.003, Epochs: 2, Rho: 0.85, Beta: 0.5}, gated}
	p.Arch = protocol.Arch{D: 16, Heads: 2, Layers: 2, Batch: 16}
	p.Sequence.TrainWindows, p.Sequence.ValWindows, p.Sequence.TestWindows = 64, 32, 32
	p.Sequence.T, p.Sequence.H = 16, 4
	return p
}

// KnownFiles makes every known data set (track.Known) findable under a
// temporary directory, which it returns: a copy of the file at TinyCSV
// (as a path from the caller's folder) at each csv one's path, of
// tiny-panel.tsf beside it at each real panel's, its checksum in place
// of the published one until the test ends. A protocol is then
// built on every data set without the data.
func KnownFiles(t testing.TB, tinyCSV string) string {
	t.Helper()
	return knownAs(t, func(k track.KnownData) []byte {
		fixture := tinyCSV
		if k.TrackKind() == "tsf" {
			// The real panels' fixture lies beside the csv one.
			fixture = filepath.Join(filepath.Dir(tinyCSV), "tiny-panel.tsf")
		}
		raw, err := os.ReadFile(fixture)
		require.NoError(t, err)
		return raw
	})
}

// knownAs writes each known data set (track.Known) at its path under a
// temporary directory, which it returns, with the bytes file gives it,
// and puts the bytes' checksum in place of the published one until the
// test ends.
func knownAs(t testing.TB, file func(k track.KnownData) []byte) string {
	t.Helper()
	dir := t.TempDir()
	saved := slices.Clone(track.Known)
	t.Cleanup(func() { track.Known = saved })
	for i, k := range track.Known {
		raw := file(k)
		sum := sha256.Sum256(raw)
		path := filepath.Join(dir, filepath.FromSlash(k.File))
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		track.Known[i].SHA256 = hex.EncodeToString(sum[:])
	}
	return dir
}

// MustSequence builds p's sequence track or fails the test.
func MustSequence(t testing.TB, p protocol.Protocol) *track.Dataset {
	t.Helper()
	ds, err := track.Sequence(p.Sequence)
	require.NoError(t, err)
	return ds
}

// MustData builds p's data or fails the test.
func MustData(t testing.TB, p protocol.Protocol) *track.Dataset {
	t.Helper()
	d, err := p.Data()
	require.NoError(t, err)
	return d.Dataset
}

// RequireNamed fails the test unless one of verify's findings (their
// fields) names field or a leaf under it.
func RequireNamed(t testing.TB, fields []string, field string) {
	t.Helper()
	for _, f := range fields {
		if Names(f, field) {
			return
		}
	}
	require.Fail(t, "no finding names "+field, "findings: %q", fields)
}

// Names reports whether the finding's field f and field are one leaf or
// one lies under the other ("a.b" under "a", "a[2]" under "a").
func Names(f, field string) bool {
	under := func(a, b string) bool {
		return strings.HasPrefix(a, b) && (len(a) == len(b) || a[len(b)] == '.' || a[len(b)] == '[')
	}
	return under(f, field) || under(field, f)
}

// SparseFile creates a file of size zero bytes in a temporary folder
// and returns its path: a file larger than a read's bound that takes no
// disk (the file system holds no blocks of it).
func SparseFile(t testing.TB, size int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "big.json")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(size))
	require.NoError(t, f.Close())
	return path
}

// KnownShapedFiles makes every known data set (track.Known) findable
// under a temporary directory, which it returns, as a file shaped like
// the published one, so that a protocol on it builds its track: a csv
// set as a date column, its target and one other column, over as many
// rows as its split takes (ett-hour 14400 hourly rows, ett-minute 57600
// quarter-hours, fractions 6000); a real panel as six weekly series of
// 160 values with its horizon. The values are a seasonal wave with a
// fixed jitter, no randomness. Each set's checksum stands in for the
// published one until the test ends.
func KnownShapedFiles(t testing.TB) string {
	t.Helper()
	value := func(i, series int) float64 {
		return 10 + float64(series) + 3*math.Sin(2*math.Pi*float64(i)/24) + 0.5*math.Sin(float64(i*i%97+series))
	}
	return knownAs(t, func(k track.KnownData) []byte {
		var b strings.Builder
		if k.TrackKind() == "tsf" {
			fmt.Fprintf(&b, "@relation Shaped\n@attribute series_name string\n@frequency weekly\n@horizon %d\n@missing false\n@equallength true\n@data\n", k.H)
			for s := range 6 {
				fmt.Fprintf(&b, "S%d:", s)
				for j := range 160 {
					if j > 0 {
						b.WriteByte(',')
					}
					fmt.Fprintf(&b, "%.3f", value(j, s))
				}
				b.WriteByte('\n')
			}
			return []byte(b.String())
		}
		rows, step := 6000, time.Hour
		switch k.Split {
		case "ett-hour":
			rows = 14400
		case "ett-minute":
			rows, step = 57600, 15*time.Minute
		}
		fmt.Fprintf(&b, "date,X,%s\n", k.Target)
		at := time.Date(2016, 7, 1, 0, 0, 0, 0, time.UTC)
		for j := range rows {
			fmt.Fprintf(&b, "%s,%.3f,%.3f\n", at.Add(time.Duration(j)*step).Format("2006-01-02 15:04:05"), value(j, 1), value(j, 0))
		}
		return []byte(b.String())
	})
}
