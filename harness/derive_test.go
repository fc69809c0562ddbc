package harness

import (
	"math"
	"testing"

	"github.com/ideabench/ideabench/stats"
	"github.com/stretchr/testify/require"
)

// TestDeriveDiverged: the headline test selects cfgs by the protocol's
// rule (fewest diverged seeds, then val mean) under every relabelling, so
// its p-value describes the same pair of cfgs as delta_mean, and the
// early-stop look at all seeds agrees with it. Hand-made results: the
// baseline's best cfg on val lost one seed, so the baseline runs cfg 1.
func TestDeriveDiverged(t *testing.T) {
	p := tinyProtocol()
	p.Seeds = []uint64{0, 1, 2, 3, 4, 5, 6, 7}
	d, err := p.Data()
	require.NoError(t, err)
	f, err := forecasters(d.Dataset)
	require.NoError(t, err)
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
	r, err := Derive(Inputs{Protocol: p, TrainingVersion: TrainingVersion, References: f, Trials: trials, Results: res})
	require.NoError(t, err)
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
