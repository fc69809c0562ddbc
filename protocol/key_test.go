package protocol

import (
	"testing"

	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// TestTrialIDPinned: the content address of a trial key is part of the
// store's format; changing the key's encoding orphans every stored trial.
func TestTrialIDPinned(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Protocol
		id   string
	}{
		// The cfg fields added after beta are left out at zero, so the
		// seed profile's keys are those of the protocol it came from.
		{"seed", SeedProfile(), "5b6e203f7c43821df71076bd099ca87b"},
		// The full profile at 96 epochs, patience 12 (2026-12-06).
		{"full", DefaultProtocol(), "45953abcb02513900481dd75c9f2f3ea"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := tc.p.Key(tc.p.Trials()[0], "")
			k.TrainingVersion = "pinned"
			require.Equal(t, tc.id, k.ID())
		})
	}
}

// TestKeyChannels: the same file, target and look-back forecast alone or
// as one of every column's series are different trials.
func TestKeyChannels(t *testing.T) {
	p := CIProfileFor("csv")
	p.CSV = &track.CSVConfig{Path: "x.csv", Target: "OT", Features: []string{"OT"}, T: 24, H: 6}
	q := p
	c := *p.CSV
	c.Channels = track.ChannelsIndependent
	q.CSV = &c
	tr := Trial{Arm: "baseline", Cfg: 0, Seed: 1}
	require.NotEqual(t, p.Key(tr, "sha").ID(), q.Key(tr, "sha").ID())
}
