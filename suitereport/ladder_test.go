package suitereport

import (
	"testing"

	"github.com/ideabench/ideabench/stats"
	"github.com/stretchr/testify/require"
)

// TestLadderTrend on hand-made effects (per seed, positive better).
func TestLadderTrend(t *testing.T) {
	up := []float64{0.01, 0.02, 0.01, 0.02}
	big := []float64{0.05, 0.06, 0.05, 0.06}
	down := []float64{-0.01, -0.02, -0.01, -0.02}
	none := []string{stats.VerdictNoWin, stats.VerdictNoWin}
	for _, tc := range []struct {
		name        string
		first, last []float64
		p           float64
		verdicts    []string
		want        string
	}{
		{"win then loss", up, down, 0.01, []string{stats.VerdictWin, stats.VerdictLoss}, TrendFlips},
		// The change is what decides, not each rung's own verdict.
		{"within noise", up, big, 0.2, []string{stats.VerdictWin, stats.VerdictWin}, TrendHolds},
		{"grows", up, big, 0.01, none, TrendGrows},
		{"grows worse", down, []float64{-0.05, -0.06, -0.05, -0.06}, 0.01, none, TrendGrows},
		{"shrinks", big, up, 0.01, none, TrendShrinks},
		// Across zero without two significant verdicts: it shrinks.
		{"crosses", up, down, 0.01, []string{stats.VerdictWin, stats.VerdictNoWin}, TrendShrinks},
		{"from zero", []float64{0, 0, 0, 0}, down, 0.01, none, TrendGrows},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, LadderTrend(tc.first, tc.last, tc.p, 0.05, tc.verdicts))
		})
	}
}

// TestLadderValidate: a ladder has two rungs or more, all development or
// all held out, and a file-safe name.
func TestLadderValidate(t *testing.T) {
	tr := func(name, ladder string, confirm bool) TrackSpec {
		return TrackSpec{Name: name, Track: "panel", Ladder: ladder, Confirm: confirm}
	}
	for _, tc := range []struct {
		name   string
		tracks []TrackSpec
		want   string // "" for valid
	}{
		{"two rungs", []TrackSpec{tr("a", "x", false), tr("b", "x", false)}, ""},
		{"held out", []TrackSpec{tr("a", "x", true), tr("b", "x", true)}, ""},
		{"one rung", []TrackSpec{tr("a", "x", false), tr("b", "", false)}, `tracks[0].ladder = "x": a ladder of one rung`},
		{"mixed", []TrackSpec{tr("a", "x", false), tr("b", "x", true)}, `tracks[1].ladder = "x": the ladder's rung a is a development track and this one is not`},
		{"bad name", []TrackSpec{tr("a", "x y", false), tr("b", "x y", false)}, `tracks[0].ladder = "x y": use letters`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Spec{Name: "s", Tracks: tc.tracks}.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}
