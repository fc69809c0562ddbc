package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"testing"

	"github.com/ideabench/ideabench/golden"
	"github.com/ideabench/ideabench/stats"
	"github.com/stretchr/testify/require"
)

// derivedByHand is the report of tinyProtocol on 8 seeds derived from
// hand-made results: the baseline's best cfg on val lost one seed, so
// the baseline runs cfg 1.
func derivedByHand(t *testing.T) *Report {
	t.Helper()
	p := tinyProtocol()
	p.Seeds = []uint64{0, 1, 2, 3, 4, 5, 6, 7}
	lc := 0.62
	f := &Forecasters{Persistence: 1.4, LinearAR: 0.6, LinearCentred: &lc, Val: &ReferenceVal{Persistence: 1.3, LinearAR: 0.55, LinearCentred: 0.57}}
	trials := p.Trials()
	res := make([]Result, len(trials))
	for i, tr := range trials {
		s := float64(tr.Seed)
		r := Result{EpochLoss: []float64{1, 0.9}, ValCurve: []float64{1, 0.9}, StartVal: 9, StartTest: 9}
		switch {
		case tr.Arm == "baseline" && tr.Cfg == 0:
			r.Val, r.Test = 0.1, 0.1+0.001*s
			if tr.Seed == 5 {
				r.Diverged, r.Val, r.Test = true, math.Inf(1), math.Inf(1)
			}
		case tr.Arm == "baseline":
			r.Val, r.Test = 0.5, 0.5+0.001*s
		case tr.Cfg == 0:
			r.Val, r.Test = 0.4, 0.4+0.002*s
		default:
			r.Val, r.Test = 0.45, 0.45+0.0015*s
		}
		r.ValCurve[1] = r.Val
		res[i] = r
	}
	r, err := Derive(Inputs{Protocol: p, TrainingVersion: "pinned", References: f, Trials: trials, Results: res})
	require.NoError(t, err)
	return r
}

// TestDeriveDiverged: the headline test selects cfgs by the protocol's
// rule (fewest diverged seeds, then val mean) under every relabelling, so
// its p-value describes the same pair of cfgs as delta_mean, and the
// early-stop look at all seeds agrees with it.
func TestDeriveDiverged(t *testing.T) {
	r := derivedByHand(t)
	p := r.Setup.Protocol
	c := r.Comparison
	require.Equal(t, p.Baseline[1], r.Baseline.BestCfg, "the cfg without a diverged seed")
	require.Less(t, c.DeltaMean, 0.0, "the idea's 0.4 against the baseline's 0.5")
	require.Equal(t, stats.VerdictOf(c.PValue, c.DeltaMean, p.Alpha, stats.LowerIsBetter, 8), c.Verdict)
	require.NotEqual(t, stats.VerdictLoss, c.Verdict)
	last := r.EarlyStop.Looks[len(r.EarlyStop.Looks)-1]
	require.Equal(t, 8, last.NSeeds)
	require.Equal(t, c.PValue, last.PValue, "the look at every seed is the headline")
	require.Equal(t, c.DeltaMean, last.DeltaMean)
	require.Empty(t, Verify(r, VerifyOptions{}).Mismatches())
}

// derivePins maps DeriveVersion to the SHA-256 of the report that Derive
// builds from fixed, hand-made inputs (those of TestDeriveDiverged), its
// numbers rounded as the golden files round them (golden.Normalize: the
// last bits of a float may move with the compiler's fused multiply-adds,
// GOAMD64=v3). A
// change to what Derive computes or how it words it fails here until
// DeriveVersion is changed and its pin added, so that a report always
// names the derivation that verifies it.
var derivePins = map[string]string{
	"derive-2026-12-05": "214a00166eb1accae9a02d0af89b36c2b2a89c3a63952f9a1d601f509135d24b",
}

func TestDeriveVersionPinned(t *testing.T) {
	r := derivedByHand(t)
	raw, err := r.Marshal()
	require.NoError(t, err)
	norm, err := golden.Normalize(raw)
	require.NoError(t, err)
	sum := sha256.Sum256(norm)
	want, ok := derivePins[DeriveVersion]
	require.True(t, ok, "no pin for DeriveVersion %q", DeriveVersion)
	require.Equal(t, want, hex.EncodeToString(sum[:]),
		"Derive's output moved: set DeriveVersion in derive.go to a new name and pin %s for it", hex.EncodeToString(sum[:]))
}
