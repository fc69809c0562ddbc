package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestDirection(t *testing.T) {
	for _, tc := range []struct {
		d    Direction
		text string
	}{
		{LowerIsBetter, "lower is better"},
		{HigherIsBetter, "higher is better"},
	} {
		t.Run(tc.text, func(t *testing.T) {
			if got := tc.d.String(); got != tc.text {
				t.Errorf("String() = %q, want %q", got, tc.text)
			}
			d, err := ParseDirection(tc.text)
			if err != nil || d != tc.d {
				t.Errorf("ParseDirection(%q) = %v, %v; want %v, nil", tc.text, d, err, tc.d)
			}
		})
	}
	t.Run("unknown text", func(t *testing.T) {
		if _, err := ParseDirection("lower"); err == nil || !strings.Contains(err.Error(), `"lower is better"`) {
			t.Errorf("ParseDirection(lower) error = %v; want one naming the accepted texts", err)
		}
	})
	t.Run("unknown value", func(t *testing.T) {
		if got := Direction(7).String(); got != "Direction(7)" {
			t.Errorf("String() = %q", got)
		}
	})
}

// TestSignFlipExact checks p-values worked out by hand. S(s) = |Σ s_i d_i|
// over all 2^n sign vectors, counting those with S(s) >= S(+…+).
func TestSignFlipExact(t *testing.T) {
	for _, tc := range []struct {
		name string
		d    []float64
		want float64
	}{
		// n=1: + gives 2, - gives -2; both |·| = 2 >= 2: p = 2/2.
		{name: "n=1", d: []float64{2}, want: 1},
		// n=2: ++ 4, -+ 2, +- -2, -- -4; |·| >= 4: {++, --}: p = 2/4.
		{name: "n=2", d: []float64{1, 3}, want: 0.5},
		// n=2, observed 0: every vector has |·| >= 0: p = 4/4.
		{name: "n=2 cancelling", d: []float64{1, -1}, want: 1},
		// n=3: +++ 6, -++ 4, +-+ 2, ++- 0, --+ 0, -+- -2, +-- -4, --- -6;
		// |·| >= 6: {+++, ---}: p = 2/8.
		{name: "n=3", d: []float64{1, 2, 3}, want: 0.25},
		// n=3 with ties against non-mirror vectors: +++ 2, -++ 4, +-+ 0,
		// ++- -2, --+ 2, -+- -4, +-- 0, --- -2; |·| >= 2: all but +-+ and
		// +--: p = 6/8.
		{name: "n=3 ties", d: []float64{1, -1, 2}, want: 0.75},
		// All zero: every |·| = 0 >= 0: p = 1, never "significant".
		{name: "all zero", d: []float64{0, 0, 0, 0}, want: 1},
		// In exact arithmetic 0.1 + 0.2 - 0.3 = 0, so every |s1·0.1 +
		// s2·0.2 - s3·0.3 + 0.05| is one of 0.05, 0.15, ..., 0.65, all
		// >= 0.05: p = 1. In float64 the observed sum is 0.05 + 5.6e-17
		// and a plain >= counts only 14 of 16 (p = 0.875); the tie
		// tolerance restores the exact-arithmetic answer.
		{name: "float tie", d: []float64{0.1, 0.2, -0.3, 0.05}, want: 1},
		// All positive: only +…+ and its mirror reach Σd: p = 2/2^7.
		{name: "n=7 one-sided", d: []float64{1, 2, 3, 4, 5, 6, 7}, want: 2.0 / 128},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := signFlipExact(tc.d); got != tc.want {
				t.Errorf("p = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestCompareVerdict(t *testing.T) {
	base := []float64{1, 2, 3, 4, 5, 6, 7}
	up := []float64{1.5, 2.1, 3.7, 4.2, 5.9, 6.3, 7.8}    // idea_i > baseline_i on every seed
	mixed := []float64{1.5, 1.9, 3.1, 3.8, 5.2, 6.1, 6.9} // small, mixed-sign diffs
	for _, tc := range []struct {
		name    string
		idea    []float64
		dir     Direction
		wins    int
		verdict string
	}{
		// p = 2/128 < 0.05 with a higher metric: a loss when lower is better ...
		{name: "higher metric, lower is better", idea: up, dir: LowerIsBetter, wins: 0, verdict: VerdictLoss},
		// ... and a win when higher is better: the direction flips both.
		{name: "higher metric, higher is better", idea: up, dir: HigherIsBetter, wins: 7, verdict: VerdictWin},
		// Diffs +.5 -.1 +.1 -.2 +.2 +.1 -.1: p far above alpha.
		{name: "mixed, lower is better", idea: mixed, dir: LowerIsBetter, wins: 3, verdict: VerdictNoWin},
		{name: "mixed, higher is better", idea: mixed, dir: HigherIsBetter, wins: 4, verdict: VerdictNoWin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compare(base, tc.idea, tc.dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.IdeaWins != tc.wins || c.Verdict != tc.verdict {
				t.Errorf("IdeaWins, Verdict = %d, %q; want %d, %q", c.IdeaWins, c.Verdict, tc.wins, tc.verdict)
			}
			if c.PValueMethod != MethodExact || c.PValueDraws != 0 {
				t.Errorf("method = %q with %d draws; want exact with 0", c.PValueMethod, c.PValueDraws)
			}
		})
	}
}

func TestCompareTiesAreNotWins(t *testing.T) {
	// Diffs 0, -1, 0, +1: one seed better each way, two ties.
	c, err := Compare([]float64{1, 2, 3, 4}, []float64{1, 1, 3, 5}, LowerIsBetter, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.IdeaWins != 1 {
		t.Errorf("IdeaWins = %d, want 1 (ties do not count)", c.IdeaWins)
	}
	// Observed sum 0: every sign vector ties, p = 1.
	if c.PValue != 1 || c.Verdict != VerdictNoWin {
		t.Errorf("p, verdict = %v, %q; want 1, %q", c.PValue, c.Verdict, VerdictNoWin)
	}
}

func TestCompareFields(t *testing.T) {
	base := []float64{1, 2, 3}
	idea := []float64{2, 4, 6}
	c, err := Compare(base, idea, LowerIsBetter, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Diffs 1, 2, 3 (the hand-derived n=3 row): p = 0.25, mean 2.
	if c.NPairs != 3 || c.DeltaMean != 2 || c.PValue != 0.25 {
		t.Errorf("NPairs, DeltaMean, PValue = %d, %v, %v; want 3, 2, 0.25", c.NPairs, c.DeltaMean, c.PValue)
	}
	for i, want := range []float64{1, 2, 3} {
		if c.PerSeedDiffs[i] != want {
			t.Errorf("PerSeedDiffs[%d] = %v, want %v", i, c.PerSeedDiffs[i], want)
		}
	}
	checkRel(t, "MDE", c.MDE, MDE([]float64{1, 2, 3}, 0.05), 1e-15)
	checkRel(t, "MDERelPct", c.MDERelPct, 100*c.MDE/2, 1e-15) // baseline mean 2
	if base[0] != 1 || idea[0] != 2 {
		t.Error("Compare modified its inputs")
	}
}

func TestCompareSinglePair(t *testing.T) {
	c, err := Compare([]float64{1}, []float64{0.5}, LowerIsBetter, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.PValue != 1 || c.MDE != 0 || c.MDERelPct != 0 || c.Verdict != VerdictNoWin || c.IdeaWins != 1 {
		t.Errorf("got p %v, MDE %v, rel %v, verdict %q, wins %d; want 1, 0, 0, %q, 1",
			c.PValue, c.MDE, c.MDERelPct, c.Verdict, c.IdeaWins, VerdictNoWin)
	}
	checkWarnings(t, c.Warnings, ErrTooFewPairs, ErrMDEUndefined)
}

func TestCompareWarnings(t *testing.T) {
	for _, tc := range []struct {
		name       string
		base, idea []float64
		want       []error
	}{
		// n=3: smallest exact p is 2/8 >= 0.05; |delta| = 0.5/3 < MDE.
		{name: "n=3", base: []float64{1, 2, 3}, idea: []float64{1.1, 1.8, 3.2},
			want: []error{ErrUnreachableAlpha, ErrBelowMDE}},
		// n=6: 2/64 < 0.05 is reachable, and a large consistent effect
		// (diffs 1.0 .. 1.5) clears the MDE: no warnings.
		{name: "n=6 clean", base: []float64{1, 2, 3, 4, 5, 6}, idea: []float64{2, 3.1, 4.2, 5.3, 6.4, 7.5},
			want: nil},
		// Baseline mean 0: relative MDE undefined.
		{name: "zero baseline mean", base: []float64{-1, 1, -2, 2, -3, 3}, idea: []float64{0, 2, -1, 3, -2, 4},
			want: []error{ErrRelativeMDEUndefined}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Compare(tc.base, tc.idea, LowerIsBetter, nil)
			if err != nil {
				t.Fatal(err)
			}
			checkWarnings(t, c.Warnings, tc.want...)
		})
	}
}

// checkWarnings fails t unless got wraps exactly the sentinels want, in order.
func checkWarnings(t *testing.T, got []error, want ...error) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("warnings = %v, want %d wrapping %v", got, len(want), want)
	}
	for i := range want {
		if !errors.Is(got[i], want[i]) {
			t.Errorf("warning %d = %v, want one wrapping %v", i, got[i], want[i])
		}
	}
}

func TestCompareErrors(t *testing.T) {
	ok := []float64{1, 2, 3}
	for _, tc := range []struct {
		name       string
		base, idea []float64
		dir        Direction
		opt        *Options
		mention    string // the error must name the culprit
	}{
		{name: "unequal lengths", base: ok, idea: []float64{1, 2}, mention: "idea has 2"},
		{name: "no pairs", base: nil, idea: nil, mention: "no paired seeds"},
		{name: "NaN baseline", base: []float64{1, 2, math.NaN()}, idea: ok, mention: "baseline[2]"},
		{name: "Inf idea", base: ok, idea: []float64{1, math.Inf(1), 3}, mention: "idea[1]"},
		{name: "unknown direction", base: ok, idea: ok, dir: 5, mention: "Direction(5)"},
		{name: "alpha", base: ok, idea: ok, opt: &Options{Alpha: 0, ExactMaxN: 20, MonteCarloDraws: 10}, mention: "Options.Alpha"},
		{name: "exact max n", base: ok, idea: ok, opt: &Options{Alpha: 0.05, ExactMaxN: 31, MonteCarloDraws: 10}, mention: "Options.ExactMaxN"},
		{name: "draws", base: ok, idea: ok, opt: &Options{Alpha: 0.05, ExactMaxN: 20}, mention: "Options.MonteCarloDraws"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compare(tc.base, tc.idea, tc.dir, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.mention) {
				t.Errorf("error = %v, want one mentioning %q", err, tc.mention)
			}
		})
	}
}

// twelveDiffs is a fixed n=12 study with a modest positive shift, so that
// the exact p-value sits mid-range where Monte Carlo error is largest.
func twelveDiffs() (base, idea []float64) {
	r := rand.New(rand.NewPCG(12, 0))
	base, idea = make([]float64, 12), make([]float64, 12)
	for i := range base {
		base[i] = 1 + 0.1*r.NormFloat64()
		idea[i] = base[i] + 0.02 + 0.1*r.NormFloat64()
	}
	return base, idea
}

func TestCompareMonteCarlo(t *testing.T) {
	base, idea := twelveDiffs()
	exact, err := Compare(base, idea, LowerIsBetter, nil)
	if err != nil {
		t.Fatal(err)
	}
	mc := func(seed uint64) Comparison {
		t.Helper()
		opt := DefaultOptions()
		opt.ExactMaxN = 4 // force Monte Carlo at n=12
		opt.Seed = seed
		c, err := Compare(base, idea, LowerIsBetter, &opt)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b, other := mc(1), mc(1), mc(2)
	if a.PValueMethod != MethodMonteCarlo || a.PValueDraws != DefaultOptions().MonteCarloDraws {
		t.Errorf("method = %q, draws = %d; want %q, %d", a.PValueMethod, a.PValueDraws, MethodMonteCarlo, DefaultOptions().MonteCarloDraws)
	}
	if a.PValue != b.PValue {
		t.Errorf("same seed gave p %v and %v", a.PValue, b.PValue)
	}
	if a.PValue == other.PValue {
		t.Errorf("seeds 1 and 2 both gave p %v; Options.Seed is not used", a.PValue)
	}
	// 100000 draws: standard error <= 0.0016, so 0.01 is over 6 of them.
	if math.Abs(a.PValue-exact.PValue) > 0.01 {
		t.Errorf("Monte Carlo p %v, exact p %v: differ by more than 0.01", a.PValue, exact.PValue)
	}
	if exact.PValue < 0.05 || exact.PValue > 0.95 {
		t.Errorf("exact p = %v; the fixture should be mid-range to test Monte Carlo error", exact.PValue)
	}
}

func TestMonteCarloNeverZero(t *testing.T) {
	// n=70 spans two 64-bit sign words. All diffs positive: no random
	// vector reaches Σd, so hits = 0 and p = (1+0)/(1+draws), not 0.
	d := make([]float64, 70)
	for i := range d {
		d[i] = 1 + float64(i)/70
	}
	const draws = 1000
	if got, want := signFlipMonteCarlo(d, draws, rand.New(rand.NewPCG(1, 0))), 1.0/(1+draws); got != want {
		t.Errorf("p = %v, want %v", got, want)
	}
}

func TestMonteCarloAllZero(t *testing.T) {
	// Every vector ties the observed 0: p = (1+draws)/(1+draws) = 1.
	if got := signFlipMonteCarlo(make([]float64, 70), 100, rand.New(rand.NewPCG(1, 0))); got != 1 {
		t.Errorf("p = %v, want 1", got)
	}
}

func TestCompareExactMaxNBoundary(t *testing.T) {
	// n = 20 is the default ExactMaxN: exact (2^19 vectors); n = 21 is
	// the first size that switches to Monte Carlo.
	for _, tc := range []struct {
		n      int
		method string
		draws  int
	}{
		{n: 20, method: MethodExact, draws: 0},
		{n: 21, method: MethodMonteCarlo, draws: DefaultOptions().MonteCarloDraws},
	} {
		t.Run(fmt.Sprintf("n=%d", tc.n), func(t *testing.T) {
			base, idea := make([]float64, tc.n), make([]float64, tc.n)
			for i := range idea {
				idea[i] = float64(i%3) - 1 // diffs -1, 0, 1, ...
			}
			c, err := Compare(base, idea, LowerIsBetter, nil)
			if err != nil {
				t.Fatal(err)
			}
			if c.PValueMethod != tc.method || c.PValueDraws != tc.draws {
				t.Errorf("method %q with %d draws, want %q with %d", c.PValueMethod, c.PValueDraws, tc.method, tc.draws)
			}
		})
	}
}
