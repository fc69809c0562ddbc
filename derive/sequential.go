package derive

import (
	"fmt"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"

	"github.com/ideabench/ideabench/stats"
)

// lookOf computes the look at the first n seeds of the arms' sweeps b
// and x: each arm's cfg chosen on those seeds (stats.Arm.Select), the
// comparison's headline p-value and mean difference (Protocol.comparison,
// without its estimates), and the decision at boundary; it returns the
// test that gave the p-value too.
func lookOf(p protocol.Protocol, b, x stats.Arm, n int, boundary float64) (report.Look, string, error) {
	cut := func(a stats.Arm) stats.Arm {
		var c stats.Arm
		for j := range a.Val {
			c.Val, c.Test = append(c.Val, a.Val[j][:n]), append(c.Test, a.Test[j][:n])
			c.Diverged = append(c.Diverged, a.Diverged[j][:n])
		}
		return c
	}
	b, x = cut(b), cut(x)
	dir := p.Direction()
	c, err := comparison(p, "idea", b, b.Select(dir), x, x.Select(dir), p.Idea, dir, 0, false)
	if err != nil {
		return report.Look{}, "", fmt.Errorf("derive: look at %d seeds: %w", n, err)
	}
	l := report.Look{NSeeds: n, PValue: c.PValue, Boundary: boundary, DeltaMean: c.DeltaMean}
	l.Decided = l.PValue < boundary && l.DeltaMean != 0
	return l, c.Test, nil
}

// boundary is the alpha that rec's spending function spends between its
// last look and a look at n seeds.
func boundary(rec *report.SequentialReport, n int, alpha float64) float64 {
	prev := 0.0
	if k := len(rec.Looks); k > 0 {
		prev = protocol.Spend(rec.Spending, alpha, float64(rec.Looks[k-1].NSeeds)/float64(rec.MaxSeeds))
	}
	return protocol.Spend(rec.Spending, alpha, float64(n)/float64(rec.MaxSeeds)) - prev
}

// AddLook records the look whose report is r (derived from the look's seeds
// alone): its headline p-value and mean difference, decided at the
// boundary of rec's spending function; it reports whether the look
// decided.
func AddLook(rec *report.SequentialReport, r *report.Report, alpha float64) bool {
	c := r.Comparison
	l := report.Look{NSeeds: r.NSeeds, PValue: c.PValue, Boundary: boundary(rec, r.NSeeds, alpha), DeltaMean: c.DeltaMean}
	l.Decided = l.PValue < l.Boundary && l.DeltaMean != 0
	rec.Test = c.Test
	rec.Looks = append(rec.Looks, l)
	return l.Decided
}

// finish sets where the looks stopped, the seeds saved and the verdict
// (sequentialVerdict of the last look).
func finish(rec *report.SequentialReport, alpha float64, dir stats.Direction) {
	last := rec.Looks[len(rec.Looks)-1]
	rec.StoppedAt, rec.SeedsSaved = last.NSeeds, rec.MaxSeeds-last.NSeeds
	rec.Verdict = sequentialVerdict(last, alpha, dir)
}

// sequentialVerdict is the verdict of a design that stopped at look l:
// a significant win or loss by the sign of its mean difference when l
// decided, else no significant win.
func sequentialVerdict(l report.Look, alpha float64, dir stats.Direction) string {
	if !l.Decided {
		return stats.VerdictNoWin
	}
	return stats.VerdictOf(0, l.DeltaMean, alpha, dir, l.NSeeds)
}

// earlyStop is the retrospective answer to "could this run have stopped
// early": the run's n seeds of the baseline's and the idea's sweeps b and
// x replayed as a sequential design with looks at ⌊n/2⌋ and n seeds and
// O'Brien-Fleming spending (max_seeds n), each look with p's headline
// test (lookOf). nil below 4 seeds, where half of them cannot decide
// anything.
func earlyStop(p protocol.Protocol, b, x stats.Arm) (*report.SequentialReport, error) {
	n := len(p.Seeds)
	if n < 4 {
		return nil, fmt.Errorf("derive: early stop needs 4 seeds or more")
	}
	s := &protocol.Sequential{MaxSeeds: n}
	rec := &report.SequentialReport{Design: protocol.SequentialDesign, Spending: protocol.SpendOBrienFleming, MaxSeeds: n}
	for _, m := range s.LookSizes(n / 2) {
		l, test, err := lookOf(p, b, x, m, boundary(rec, m, p.Alpha))
		if err != nil {
			return nil, err
		}
		rec.Test = test
		rec.Looks = append(rec.Looks, l)
		if l.Decided {
			break
		}
	}
	finish(rec, p.Alpha, p.Direction())
	return rec, nil
}
