package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// bruteSelection is SelectionPValue computed the plain way: for each of
// the 2^N relabellings, fresh swapped copies, both selections and S.
func bruteSelection(b, x Arm, dir Direction) float64 {
	n := len(b.Val[0])
	stat := func(s int) float64 {
		sb, sx := clone(b), clone(x)
		for i := range n {
			if s>>i&1 == 1 {
				for j := range b.Val {
					sb.Val[j][i], sx.Val[j][i] = sx.Val[j][i], sb.Val[j][i]
					sb.Test[j][i], sx.Test[j][i] = sx.Test[j][i], sb.Test[j][i]
					sb.Diverged[j][i], sx.Diverged[j][i] = sx.Diverged[j][i], sb.Diverged[j][i]
				}
			}
		}
		jb, jx := sb.Select(dir), sx.Select(dir)
		var sum float64
		for i := range n {
			sum += sx.Test[jx][i] - sb.Test[jb][i]
		}
		return math.Abs(sum)
	}
	obs := stat(0)
	var scale float64
	jb, jx := b.Select(dir), x.Select(dir)
	for i := range n {
		scale += math.Abs(x.Test[jx][i] - b.Test[jb][i])
	}
	hits := 0
	for s := range 1 << n {
		if stat(s) >= obs-tieRelTol*scale {
			hits++
		}
	}
	return float64(hits) / float64(int(1)<<n)
}

func randArm(r *rand.Rand, g, n int, means []float64, noise float64) Arm {
	a := Arm{Val: make([][]float64, g), Test: make([][]float64, g)}
	for j := range g {
		for range n {
			a.Val[j] = append(a.Val[j], means[j]+noise*r.NormFloat64())
			a.Test[j] = append(a.Test[j], means[j]+noise*r.NormFloat64())
		}
	}
	return a
}

// TestSelect: the fewest diverged seeds first, then the best val mean,
// the first on ties.
func TestSelect(t *testing.T) {
	a := Arm{Val: [][]float64{{3, 3}, {1, 1}, {2, 2}, {1, 1}}}
	require.Equal(t, 1, a.Select(LowerIsBetter))
	require.Equal(t, 0, a.Select(HigherIsBetter))
	a.Diverged = [][]bool{{false, false}, {true, false}, {false, false}, {false, true}}
	require.Equal(t, 2, a.Select(LowerIsBetter), "cfgs 1 and 3 lost a seed each")
	a.Diverged[0][0], a.Diverged[2][0] = true, true
	require.Equal(t, 1, a.Select(LowerIsBetter), "every cfg lost one: by val mean, first on ties")
}

func TestSelectionPValue(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 11))
	t.Run("one_cfg_is_sign_flip", func(t *testing.T) {
		b, x := randArm(r, 1, 8, []float64{1}, 0.1), randArm(r, 1, 8, []float64{1.05}, 0.1)
		p, err := SelectionPValue(b, x, LowerIsBetter, nil)
		require.NoError(t, err)
		c, err := Compare(b.Test[0], x.Test[0], LowerIsBetter, nil)
		require.NoError(t, err)
		require.Equal(t, c.PValue, p)
	})
	t.Run("brute_force", func(t *testing.T) {
		for k := range 5 {
			b := randArm(r, 3, 7, []float64{1, 0.95, 1.02}, 0.05)
			x := randArm(r, 3, 7, []float64{1, 0.96, 1.01}, 0.05)
			p, err := SelectionPValue(b, x, LowerIsBetter, nil)
			require.NoError(t, err)
			require.Equal(t, bruteSelection(b, x, LowerIsBetter), p, "case %d", k)
		}
	})
	// A diverged trial swaps with its values: selection avoids cfgs with
	// diverged seeds before it compares val means, under every relabelling.
	t.Run("diverged", func(t *testing.T) {
		for k := range 5 {
			b := randArm(r, 3, 7, []float64{1, 0.95, 1.02}, 0.05)
			x := randArm(r, 3, 7, []float64{1, 0.96, 1.01}, 0.05)
			b.Diverged = [][]bool{make([]bool, 7), make([]bool, 7), make([]bool, 7)}
			b.Diverged[1][k] = true // the best cfg on val, one seed lost
			p, err := SelectionPValue(b, x, LowerIsBetter, nil)
			require.NoError(t, err)
			require.Equal(t, bruteSelection(b, x, LowerIsBetter), p, "case %d", k)
		}
	})
	t.Run("unpaired_grids", func(t *testing.T) {
		_, err := SelectionPValue(randArm(r, 2, 4, []float64{1, 1}, 1), randArm(r, 3, 4, []float64{1, 1, 1}, 1), LowerIsBetter, nil)
		require.ErrorContains(t, err, "paired grids")
	})
}

// TestSelectionNullCalibration: on A/A data (each seed's sweep drawn alike
// for both arms) from three cfgs tied on val but apart on test, as lrs near
// the optimum can be, the sign-flip test on the chosen cfgs rejects far
// more often than alpha (the arms often choose different cfgs, whose test
// difference is systematic), while the selection-aware test stays at or
// below it. 1500 simulated comparisons of 8 seeds: the binomial standard
// error at 5% is 0.56%, so 0.05 + 3 s.e. ≈ 0.067 bounds the selection test.
func TestSelectionNullCalibration(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 12))
	valMeans, testMeans := []float64{1, 1, 1}, []float64{1, 0.98, 1.02}
	const sims, n = 1500, 8
	var fixed, aware int
	for range sims {
		// A seed's noise is shared by its cfgs (one init), as in training.
		arm := func() Arm {
			a := Arm{Val: make([][]float64, 3), Test: make([][]float64, 3)}
			for range n {
				seedV, seedT := 0.01*r.NormFloat64(), 0.01*r.NormFloat64()
				for j := range 3 {
					a.Val[j] = append(a.Val[j], valMeans[j]+seedV+0.005*r.NormFloat64())
					a.Test[j] = append(a.Test[j], testMeans[j]+seedT+0.005*r.NormFloat64())
				}
			}
			return a
		}
		b, x := arm(), arm()
		c, err := Compare(b.Test[b.Select(LowerIsBetter)], x.Test[x.Select(LowerIsBetter)], LowerIsBetter, nil)
		require.NoError(t, err)
		if c.PValue < 0.05 {
			fixed++
		}
		p, err := SelectionPValue(b, x, LowerIsBetter, nil)
		require.NoError(t, err)
		if p < 0.05 {
			aware++
		}
	}
	t.Logf("false-positive rate: sign-flip on chosen cfgs %.3f, selection-aware %.3f", float64(fixed)/sims, float64(aware)/sims)
	require.LessOrEqual(t, float64(aware)/sims, 0.067)
	require.Greater(t, float64(fixed)/sims, 0.08)
}

// TestSuiteOneTrackIsSelectionPValue: on one track, Suite's stratified
// test is SelectionPValue's on the arms' log test metrics (Suite takes
// the log ratio; |E| is |1/N · Σ_i d_i| on the logs, and the sign of
// the effect goes under the absolute value). In the exact range both
// visit the same relabellings, so the p-values are equal to the bit. Above
// it each draws from its own PCG stream (1 for SelectionPValue, 11 for
// Suite, kept so that every report stays as it was), so the two Monte
// Carlo estimates of one p-value differ by sampling error only.
func TestSuiteOneTrackIsSelectionPValue(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 13))
	logArm := func(a Arm) Arm {
		l := clone(a)
		for j := range l.Test {
			for i, v := range l.Test[j] {
				l.Test[j][i] = math.Log(v)
			}
		}
		return l
	}
	for k := range 12 {
		n := 5 + k%4
		dir := []Direction{LowerIsBetter, HigherIsBetter}[k%2]
		b := randArm(r, 3, n, []float64{1, 0.95, 1.02}, 0.05)
		x := randArm(r, 3, n, []float64{1, 0.96, 1.01}, 0.05)
		if k%3 == 0 {
			b.Diverged = [][]bool{make([]bool, n), make([]bool, n), make([]bool, n)}
			b.Diverged[1][k%n] = true
		}
		so := DefaultSuiteOptions(1)
		so.Boot, so.Bayes, so.Hier.Samples = 1, 1, 0
		res, err := Suite([]SuiteTrack{{b, x}}, dir, so)
		require.NoError(t, err)
		p, err := SelectionPValue(logArm(b), logArm(x), dir, nil)
		require.NoError(t, err)
		require.Equal(t, MethodExact, res.Method)
		require.Equal(t, p, res.PValue, "case %d", k)

		so.ExactMaxN, so.Draws = 0, 4000
		res, err = Suite([]SuiteTrack{{b, x}}, dir, so)
		require.NoError(t, err)
		opt := DefaultOptions()
		opt.ExactMaxN, opt.MonteCarloDraws = 0, 4000
		mc, err := SelectionPValue(logArm(b), logArm(x), dir, &opt)
		require.NoError(t, err)
		require.Equal(t, MethodMonteCarlo, res.Method)
		// Two independent estimates of p: their difference has a standard
		// deviation of at most sqrt(2·¼/4000) ≈ 0.011.
		require.InDelta(t, p, res.PValue, 0.045, "case %d", k)
		require.InDelta(t, p, mc, 0.045, "case %d", k)
	}
}

// TestSelectionTestRestores: selectionTest swaps its strata in place and
// leaves them as they came, exact and Monte Carlo alike.
func TestSelectionTestRestores(t *testing.T) {
	r := rand.New(rand.NewPCG(14, 14))
	var strata, before []SuiteTrack
	for _, n := range []int{3, 4} {
		b, x := randArm(r, 2, n, []float64{1, 0.9}, 0.1), randArm(r, 2, n, []float64{1, 0.9}, 0.1)
		strata = append(strata, SuiteTrack{clone(b), clone(x)})
		before = append(before, SuiteTrack{clone(b), clone(x)})
	}
	for _, exactMaxN := range []int{20, 0} {
		selectionTest(strata, LowerIsBetter, exactMaxN, 50, 1, 1)
		require.Equal(t, before, strata, "exactMaxN %d", exactMaxN)
	}
}
