package derive

import (
	"github.com/ideabench/ideabench/track"

	"crypto/sha256"
	"encoding/hex"
	"github.com/ideabench/ideabench/protocol"
	"math"
	"testing"

	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/golden"
	"github.com/ideabench/ideabench/stats"
	"github.com/stretchr/testify/require"
)

// derivedByHand is the report of tinyProtocol (with the skip path) on 8
// seeds derived from hand-made results and a data note: the baseline's
// best cfg on val lost one seed, so the baseline runs cfg 1.
func derivedByHand(t *testing.T) *report.Report {
	t.Helper()
	return derivedByHandWith(t, false)
}

// derivedByHandWith is derivedByHand, on a real panel when mase is
// true: the references and every trial then carry a test MASE, each
// trial's 2 + its test MSE.
func derivedByHandWith(t *testing.T, mase bool) *report.Report {
	t.Helper()
	p := testkit.TinyProtocol()
	p.Seeds = []uint64{0, 1, 2, 3, 4, 5, 6, 7}
	p.Arch.Skip = true
	lc := 0.62
	f := &track.Forecasters{Persistence: 1.4, LinearAR: 0.6, LinearCentred: &lc, Val: &track.ReferenceVal{Persistence: 1.3, LinearAR: 0.55, LinearCentred: 0.57}}
	trials := p.Trials()
	res := make([]trial.Result, len(trials))
	for i, tr := range trials {
		s := float64(tr.Seed)
		r := trial.Result{EpochLoss: []float64{1, 0.9}, ValCurve: []float64{1, 0.9}, StartVal: 9, StartTest: 9, LinearTest: 0.7 + 0.01*s}
		switch {
		case tr.Arm == "baseline" && tr.Cfg == 0:
			r.Val, r.Test = 0.1, 0.1+0.001*s
			if tr.Seed == 5 {
				r.Diverged, r.Val, r.Test, r.LinearTest = true, math.Inf(1), math.Inf(1), 0
			}
		case tr.Arm == "baseline":
			r.Val, r.Test = 0.5, 0.5+0.001*s
		case tr.Cfg == 0:
			r.Val, r.Test = 0.4, 0.4+0.002*s
		default:
			r.Val, r.Test = 0.45, 0.45+0.0015*s
		}
		r.ValCurve[1] = r.Val
		if mase && !r.Diverged {
			r.TestMASE = 2 + r.Test
		}
		res[i] = r
	}
	if mase {
		f.MASE = map[string]float64{"persistence": 1.1, "linear_ar": 0.9}
	}
	sizes := []protocol.TrainSize{{Context: 16, H: 4, Channels: 1, Windows: 64}}
	r, err := Derive(Inputs{Facts: report.Facts{Protocol: p, TrainingVersion: "pinned", DataNotes: []string{"f.csv:3 repeats the timestamp of the row before"}, TrainSizes: sizes, References: f}, Trials: trials, Results: res})
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

// TestDeriveMASE: on a real panel the report gives every sweep row's
// test MASE per seed and the mase block (the chosen cfgs' MASE and the
// idea's paired difference, lower better); a diverged trial's MASE is
// the worst finished one's, as its MSE is; and verify rebuilds it all.
func TestDeriveMASE(t *testing.T) {
	r := derivedByHandWith(t, true)
	require.Nil(t, r.Accuracy)
	m := r.MASE
	require.NotNil(t, m)
	// The baseline runs cfg 1: MSE 0.5 + 0.001·s, so MASE 2.5 + 0.001·s.
	for s, v := range m.Baseline.PerSeed {
		require.InDelta(t, 2.5+0.001*float64(s), v, 1e-12)
	}
	// Its cfg 0 lost seed 5, whose MASE is the worst finished trial's.
	for _, row := range r.Baseline.Sweep {
		require.NotNil(t, row.MASE)
		for s, v := range row.MASE.PerSeed {
			require.InDelta(t, 2+row.PerSeed[s], v, 1e-12, "MASE follows the MSE, the substitute too")
		}
	}
	require.InDelta(t, 2+r.Diverged.TestSubstitute, r.Baseline.Sweep[0].MASE.PerSeed[5], 1e-12)
	require.Len(t, m.Arms, 1)
	a := m.Arms[0]
	var d float64
	for s := range a.Result.PerSeed {
		d += a.Result.PerSeed[s] - m.Baseline.PerSeed[s]
	}
	require.InDelta(t, d/8, a.DeltaMean, 1e-12)
	require.Less(t, a.DeltaMean, 0.0, "the idea's lower MSE, so lower MASE")
	require.Less(t, a.Intervals.THi, 0.0, "lower is better: the interval lies below 0")
	require.Empty(t, Verify(r, VerifyOptions{}).Mismatches())

	// A report whose MASE was edited no longer verifies.
	r.Baseline.Sweep[1].MASE.PerSeed[0] += 0.1
	require.NotEmpty(t, Verify(r, VerifyOptions{}).Mismatches())
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
	"derive-2026-12-05":  "214a00166eb1accae9a02d0af89b36c2b2a89c3a63952f9a1d601f509135d24b",
	"derive-2026-12-05b": "bd67dbf133de4d45786f3e802ae71e9aadaad8859204c68cbc88358ee6db0d7b",
	"derive-2026-12-06":  "3d959d52867120731bfc7a924eef15d293be8043d7b0922a504ac6bbbda0eec8",
	"derive-2026-12-06b": "fbf93917058a5aac4d695be9f0aafbaa5242ae2dfb60c80fcbf0ff5d1c261545", // the rationale of tracks other than the sequence track, per idea
	"derive-2026-12-07":  "a89caa0968b011558bf704f4e294bc8dbdda79a8470e31756cc576971b006223", // tuned arms: the sensitivity block, the fixed-settings mark, a drawn parameter's search edge
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

// TestInformativeness: a seed that diverged counts as the worst against
// the reference and is left out of the gaps to its start and its linear
// part (it has no trained model); with too few seeds the report says it
// cannot tell, not that the track fails.
func TestInformativeness(t *testing.T) {
	p := testkit.TinyProtocol()
	p.Arch.Skip = true
	lc := 0.62
	refs := &track.Forecasters{Persistence: 1.4, LinearAR: 0.6, LinearCentred: &lc, Val: &track.ReferenceVal{Persistence: 1.3, LinearAR: 0.55, LinearCentred: 0.57}}
	derive := func(seeds int) *report.Report {
		q := p
		q.Seeds = nil
		for s := range seeds {
			q.Seeds = append(q.Seeds, uint64(s))
		}
		q.Baseline, q.Idea = q.Baseline[:1], q.Idea[:1]
		trials := q.Trials()
		res := make([]trial.Result, len(trials))
		for i, tr := range trials {
			s := float64(tr.Seed)
			res[i] = trial.Result{Val: 0.4, Test: 0.4 + 0.001*s, StartVal: 0.6, StartTest: 0.6, LinearTest: 0.5 + 0.001*s, ValCurve: []float64{0.5, 0.4}}
			if tr.Arm == "baseline" && tr.Seed == 1 {
				res[i] = trial.Result{Diverged: true, Val: math.Inf(1), Test: math.Inf(1), StartVal: 0.6, StartTest: 0.6}
			}
		}
		r, err := Derive(Inputs{Facts: report.Facts{Protocol: q, TrainingVersion: "pinned", References: refs}, Trials: trials, Results: res})
		require.NoError(t, err)
		require.Empty(t, Verify(r, VerifyOptions{}).Mismatches())
		return r
	}
	inf := derive(8).Informativeness
	require.Equal(t, 8, inf.BestReference.N, "the diverged seed counts, as the worst")
	require.Equal(t, 7, inf.Start.N)
	require.Equal(t, 7, inf.LinearPart.N)
	require.True(t, inf.LinearPart.Significant, "0.1 better than its linear part on every trained seed")
	require.InDelta(t, 0.1, inf.LinearPart.Mean, 1e-12)

	few := derive(4).Informativeness
	require.False(t, few.CanJudge)
	require.Len(t, few.Reasons, 1)
	require.Contains(t, few.Reasons[0], "too few seeds to tell: with 3 the smallest sign-flip p is 0.25")
}
