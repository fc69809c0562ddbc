package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestIntervalsHand: the paired-t interval and the probability of
// improvement of a case worked by hand, and the bootstraps' fixed points.
func TestIntervalsHand(t *testing.T) {
	// d = (-1, 0, 2): mean 1/3, sd = sqrt(7/3), t(0.975, 2) = 4.302653.
	b, x := []float64{1, 2, 3}, []float64{0, 2, 5}
	iv, err := IntervalsOf(b, x, LowerIsBetter, 0.05, 1)
	require.NoError(t, err)
	half := 4.302652729749464 * math.Sqrt(7.0/3) / math.Sqrt(3)
	require.InDelta(t, 1.0/3-half, iv.TLo, 1e-12)
	require.InDelta(t, 1.0/3+half, iv.THi, 1e-12)
	require.Equal(t, 0.95, iv.Level)
	// x=0 beats 1, 2, 3 (3); x=2 ties 2 and beats 3 (1.5); x=5 beats none:
	// 4.5 of 9.
	require.Equal(t, 0.5, iv.PoI)
	// Bootstrap means of (-1, 0, 2) lie in [-1, 2].
	require.GreaterOrEqual(t, iv.BootLo, -1.0)
	require.LessOrEqual(t, iv.BootHi, 2.0)
	require.Less(t, iv.BootLo, iv.BootHi)

	hi, err := IntervalsOf(b, x, HigherIsBetter, 0.05, 1)
	require.NoError(t, err)
	require.Equal(t, 0.5, hi.PoI, "4.5 of 9 the other way too")

	// Every seed improves by exactly 1: every interval is the point.
	same, err := IntervalsOf([]float64{3, 4, 5, 6}, []float64{2, 3, 4, 5}, LowerIsBetter, 0.05, 7)
	require.NoError(t, err)
	for _, v := range []float64{same.TLo, same.THi, same.BootLo, same.BootHi} {
		require.Equal(t, -1.0, v)
	}
	// 2 beats 3..6, 3 beats 4..6, 4 beats 5, 6, 5 beats 6, ties on the
	// diagonal below: (4 + 3.5 + 2.5 + 1.5)/16 = 11.5/16.
	require.Equal(t, 11.5/16, same.PoI)

	_, err = IntervalsOf([]float64{1}, []float64{2}, LowerIsBetter, 0.05, 1)
	require.ErrorContains(t, err, "at least 2")
}

// TestIntervalsCoverage: over many simulated normal studies the paired-t
// interval covers the true mean difference at about its level, and the
// bootstrap interval close to it; the same seed gives the same bits.
func TestIntervalsCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const studies, n, delta = 250, 12, -0.3
	tCover, bootCover := 0, 0
	for range studies {
		b, x := make([]float64, n), make([]float64, n)
		for i := range n {
			b[i] = r.NormFloat64()
			x[i] = b[i] + delta + r.NormFloat64()
		}
		iv, err := IntervalsOf(b, x, LowerIsBetter, 0.05, 1)
		require.NoError(t, err)
		if iv.TLo <= delta && delta <= iv.THi {
			tCover++
		}
		if iv.BootLo <= delta && delta <= iv.BootHi {
			bootCover++
		}
		again, err := IntervalsOf(b, x, LowerIsBetter, 0.05, 1)
		require.NoError(t, err)
		require.Equal(t, iv, again)
	}
	// Binomial sd at 0.95 over 250 studies is 0.014; the percentile
	// bootstrap undercovers a little at n = 12 (its known bias).
	require.InDelta(t, 0.95, float64(tCover)/studies, 0.035)
	require.InDelta(t, 0.93, float64(bootCover)/studies, 0.04)
}
