package harness

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"slices"

	"github.com/ideabench/ideabench/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Sequential, in a protocol, runs the seeds in looks and stops as soon as
// the comparison is decided: look k trains the first n_k = k·n_1 seeds
// (n_1 = len(seeds), the protocol's own; later seeds continue from the
// largest one), up to MaxSeeds. The type I error over all looks is at most
// alpha by alpha spending (Lan & DeMets 1983, "Discrete sequential
// boundaries for clinical trials", Biometrika 70(3)): with t_k = n_k /
// MaxSeeds the information fraction and A(t) the spending function, look
// k rejects when its p-value is below
//
//	α_k = A(t_k) - A(t_{k-1}),   A(0) = 0, A(1) = alpha
//
// and P(any look rejects | null) <= Σ_k P(p_k < α_k) <= Σ_k α_k = alpha by
// the union bound: each look's permutation p-value is valid on its own, so
// the design needs no assumption on how looks correlate (it is
// conservative where they do). Spending functions:
//
//	obrien-fleming  A(t) = 2 - 2Φ(z_{1-alpha/2} / √t)    (Lan & DeMets 1983): little alpha early, most at the end
//	pocock          A(t) = alpha · ln(1 + (e-1)·t)       (Lan & DeMets 1983): more evenly spread, stops earlier under large effects
type Sequential struct {
	MaxSeeds int    `json:"max_seeds"`
	Spending string `json:"spending,omitempty"` // "obrien-fleming" (the default) or "pocock"
}

// The spending functions.
const (
	SpendOBrienFleming = "obrien-fleming"
	SpendPocock        = "pocock"
)

// SequentialDesign names the design in the report.
const SequentialDesign = "group-sequential looks with alpha spending (Lan & DeMets 1983); look k rejects when its p-value is below A(t_k) - A(t_{k-1}), so the type I error over all looks is at most alpha (union bound)"

// maxSequentialSeeds bounds max_seeds: every look trains every cfg of
// every arm on each seed.
const maxSequentialSeeds = 1024

// Spend returns the alpha spent by information fraction t in [0, 1]
// under the spending function kind ("" is obrien-fleming).
func Spend(kind string, alpha, t float64) float64 {
	if t <= 0 {
		return 0
	}
	t = min(t, 1)
	switch kind {
	case SpendPocock:
		return alpha * math.Log(1+(math.E-1)*t)
	default:
		// 2·(1 - Φ(z)) as erfc(z/√2), accurate far in the tail.
		z := distuv.UnitNormal.Quantile(1 - alpha/2)
		return math.Erfc(z / math.Sqrt(t) / math.Sqrt2)
	}
}

// errors of a sequential block, shaped "<field> = <value>: ...; fix".
func (s *Sequential) errors(p Protocol) []error {
	var errs []error
	n1 := len(p.Seeds)
	if s.MaxSeeds <= n1 || s.MaxSeeds > maxSequentialSeeds {
		errs = append(errs, fmt.Errorf("sequential.max_seeds = %d: must exceed the %d seeds of the first look and be at most %d; use e.g. %d", s.MaxSeeds, n1, maxSequentialSeeds, 4*n1))
	}
	if s.Spending != "" && s.Spending != SpendOBrienFleming && s.Spending != SpendPocock {
		errs = append(errs, fmt.Errorf("sequential.spending = %q: unknown; use %q or %q", s.Spending, SpendOBrienFleming, SpendPocock))
	}
	return errs
}

// LookSizes returns the seeds of each look: n_1, 2·n_1, ... and MaxSeeds
// last.
func (s *Sequential) LookSizes(n1 int) []int {
	var out []int
	for n := n1; ; n += n1 {
		out = append(out, min(n, s.MaxSeeds))
		if n >= s.MaxSeeds {
			return out
		}
	}
}

// AllSeeds returns the protocol's seeds followed by the seeds later looks
// add: the integers after the largest of them, up to MaxSeeds in all.
func (s *Sequential) AllSeeds(seeds []uint64) []uint64 {
	out := slices.Clone(seeds)
	next := slices.Max(seeds) + 1
	for len(out) < s.MaxSeeds {
		out = append(out, next)
		next++
	}
	return out
}

// Look is one look of a sequential run.
type Look struct {
	NSeeds    int     `json:"n_seeds"`
	PValue    float64 `json:"p_value"`
	Boundary  float64 `json:"boundary"` // α_k, the p-value below which this look decides
	DeltaMean float64 `json:"delta_mean"`
	Decided   bool    `json:"decided"`
}

// SequentialReport is the report's record of a sequential run: every
// look, where it stopped, and the verdict with the error control of the
// design (the comparison block above describes the last look's seeds as a
// fixed-size study would).
type SequentialReport struct {
	Design     string `json:"design"`
	Spending   string `json:"spending"`
	MaxSeeds   int    `json:"max_seeds"`
	Test       string `json:"test"` // the p-value of each look: "selection-aware" or "sign-flip"
	Looks      []Look `json:"looks"`
	StoppedAt  int    `json:"stopped_at"` // seeds of the last look
	SeedsSaved int    `json:"seeds_saved"`
	Verdict    string `json:"verdict"`
}

// lookOf computes the look at the first n seeds of the arms' sweeps b
// and x: each arm's cfg chosen on those seeds (stats.Arm.Select), the
// comparison's headline p-value and mean difference (Protocol.comparison,
// without its estimates), and the decision at boundary; it returns the
// test that gave the p-value too.
func (p Protocol) lookOf(b, x stats.Arm, n int, boundary float64) (Look, string, error) {
	cut := func(a stats.Arm) stats.Arm {
		var c stats.Arm
		for j := range a.Val {
			c.Val, c.Test = append(c.Val, a.Val[j][:n]), append(c.Test, a.Test[j][:n])
			c.Diverged = append(c.Diverged, a.Diverged[j][:n])
		}
		return c
	}
	b, x = cut(b), cut(x)
	dir := stats.LowerIsBetter
	c, err := p.comparison("idea", b, b.Select(dir), x, x.Select(dir), p.Idea, dir, 0, false)
	if err != nil {
		return Look{}, "", fmt.Errorf("harness: look at %d seeds: %w", n, err)
	}
	l := Look{NSeeds: n, PValue: c.PValue, Boundary: boundary, DeltaMean: c.DeltaMean}
	l.Decided = l.PValue < boundary && l.DeltaMean != 0
	return l, c.Test, nil
}

// boundary is the alpha that rec's spending function spends between its
// last look and a look at n seeds.
func (rec *SequentialReport) boundary(n int, alpha float64) float64 {
	prev := 0.0
	if k := len(rec.Looks); k > 0 {
		prev = Spend(rec.Spending, alpha, float64(rec.Looks[k-1].NSeeds)/float64(rec.MaxSeeds))
	}
	return Spend(rec.Spending, alpha, float64(n)/float64(rec.MaxSeeds)) - prev
}

// add records the look whose report is r (derived from the look's seeds
// alone): its headline p-value and mean difference, decided at the
// boundary of rec's spending function; it reports whether the look
// decided.
func (rec *SequentialReport) add(r *Report, alpha float64) bool {
	c := r.Comparison
	l := Look{NSeeds: r.NSeeds, PValue: c.PValue, Boundary: rec.boundary(r.NSeeds, alpha), DeltaMean: c.DeltaMean}
	l.Decided = l.PValue < l.Boundary && l.DeltaMean != 0
	rec.Test = c.Test
	rec.Looks = append(rec.Looks, l)
	return l.Decided
}

// finish sets where the looks stopped, the seeds saved and the verdict
// (sequentialVerdict of the last look).
func (rec *SequentialReport) finish(alpha float64) {
	last := rec.Looks[len(rec.Looks)-1]
	rec.StoppedAt, rec.SeedsSaved = last.NSeeds, rec.MaxSeeds-last.NSeeds
	rec.Verdict = sequentialVerdict(last, alpha)
}

// sequentialVerdict is the verdict of a design that stopped at look l:
// a significant win or loss by the sign of its mean difference when l
// decided, else no significant win.
func sequentialVerdict(l Look, alpha float64) string {
	if !l.Decided {
		return stats.VerdictNoWin
	}
	return stats.VerdictOf(0, l.DeltaMean, alpha, stats.LowerIsBetter, l.NSeeds)
}

// runSequential runs p's looks (see Sequential): look k runs the
// protocol on its first n_k seeds (Run, reusing the earlier looks'
// trials) and decides on that look's report; the report of the last
// look's trials is then derived with the design (Derive).
func runSequential(ctx context.Context, p Protocol, opt Options) (*Outcome, error) {
	s := p.Sequential
	if opt.Store == nil {
		// Looks share their trials through a store.
		dir, err := os.MkdirTemp("", "ideabench-looks-")
		if err != nil {
			return nil, fmt.Errorf("harness: a sequential run without a results directory: %w", err)
		}
		defer os.RemoveAll(dir)
		if opt.Store, err = OpenStore(dir); err != nil {
			return nil, err
		}
	}
	d, err := p.DataWithin(opt.Limits)
	if err != nil {
		return nil, err
	}
	if err := p.Estimate(d.Dataset, len(p.Trials())).Check(opt.Limits, opt.workers()); err != nil {
		return nil, err
	}
	if _, err := references(d.Dataset, p.contexts()); err != nil {
		return nil, err
	}
	seeds := s.AllSeeds(p.Seeds)
	sizes := s.LookSizes(len(p.Seeds))
	rec := &SequentialReport{Spending: cmp.Or(s.Spending, SpendOBrienFleming), MaxSeeds: s.MaxSeeds}
	var last *Outcome
	computed := 0
	for _, n := range sizes {
		q := p
		q.Seeds, q.Sequential = seeds[:n], nil
		o, err := Run(ctx, q, opt)
		earlier := computed // trained by earlier looks, reused by this one
		if o != nil {
			computed += o.Computed
		}
		if err != nil {
			if o != nil {
				o.Reused, o.Computed = max(0, o.Reused-earlier), computed
			}
			return o, err
		}
		last = o
		if rec.add(o.Report, p.Alpha) {
			break
		}
	}
	lr := last.Report
	r, err := Derive(Inputs{Protocol: p, TrainingVersion: lr.Setup.TrainingVersion, DataSHA256: lr.Setup.DataSHA256, DataNotes: lr.Setup.DataNotes,
		References: lr.ReferenceForecasters, Trials: last.Trials, Results: last.Results})
	if err != nil {
		return nil, err
	}
	last.Report = r
	last.Reused, last.Computed = len(last.Trials)-computed, computed
	if last.Reused < 0 {
		last.Reused = 0
	}
	return last, nil
}

// earlyStop is the retrospective answer to "could this run have stopped
// early": the run's n seeds of the baseline's and the idea's sweeps b and
// x replayed as a sequential design with looks at ⌊n/2⌋ and n seeds and
// O'Brien-Fleming spending (max_seeds n), each look with p's headline
// test (lookOf). nil below 4 seeds, where half of them cannot decide
// anything.
func (p Protocol) earlyStop(b, x stats.Arm) (*SequentialReport, error) {
	n := len(p.Seeds)
	if n < 4 {
		return nil, fmt.Errorf("harness: early stop needs 4 seeds or more")
	}
	s := &Sequential{MaxSeeds: n}
	rec := &SequentialReport{Design: SequentialDesign, Spending: SpendOBrienFleming, MaxSeeds: n}
	for _, m := range s.LookSizes(n / 2) {
		l, test, err := p.lookOf(b, x, m, rec.boundary(m, p.Alpha))
		if err != nil {
			return nil, err
		}
		rec.Test = test
		rec.Looks = append(rec.Looks, l)
		if l.Decided {
			break
		}
	}
	rec.finish(p.Alpha)
	return rec, nil
}
