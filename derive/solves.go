package derive

import (
	"fmt"
	"math"

	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/track"
)

// solves reads a token track's per-seed test accuracies (the accuracy
// block a) as solved or not (report.Solves): the target is the best
// token reference's accuracy plus report.SolveFraction of its distance
// to the oracle's ceiling. Each idea arm gets its count beside the
// baseline's, seed by seed, with the exact McNemar test on the seeds
// only one of the two solves; where either arm's outcomes are bimodal
// the arm's comparison c (the idea arm's first, then each of ideas')
// gets a mark and a warning, so that its mean difference is read as the
// difference of solve rates it is. Nil when the references name no
// ceiling above the floor.
func solves(a *report.Secondary, refs []track.TokenReference, cs []*report.Comparison) *report.Solves {
	floor, ceiling, target, ok := solveTarget(refs, refs)
	if !ok {
		return nil
	}
	minGap := report.SplitFraction * (ceiling - floor)
	s := &report.Solves{
		Rule: fmt.Sprintf("a seed solves when its test accuracy reaches the best reference's plus %g of the way to the ceiling; an arm is bimodal when its solved seeds stand at least %g of that way above its unsolved ones",
			report.SolveFraction, report.SplitFraction),
		Floor: floor, Ceiling: ceiling, Target: target,
		Baseline: armSolves(a.Baseline.PerSeed, target, minGap),
	}
	for k := range a.Arms {
		arm := &a.Arms[k]
		x := arm.Result.PerSeed
		ps := &report.PairedSolves{ArmSolves: armSolves(x, target, minGap)}
		for i, v := range x {
			if i >= len(a.Baseline.PerSeed) {
				break
			}
			switch bs, is := a.Baseline.PerSeed[i] >= target, v >= target; {
			case is && !bs:
				ps.OnlyIdea++
			case bs && !is:
				ps.OnlyBaseline++
			}
		}
		ps.PValue = stats.McNemarExact(ps.OnlyIdea, ps.OnlyBaseline)
		arm.Solves = ps
		if k >= len(cs) || !(ps.Bimodal || s.Baseline.Bimodal) {
			continue
		}
		c := cs[k]
		c.Marks = append(c.Marks, fmt.Sprintf("bimodal outcomes: solves %d of %d seeds, the baseline %d of %d (accuracy >= %.3g)",
			ps.Solved, ps.N, s.Baseline.Solved, s.Baseline.N, target))
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"bimodal outcomes (accuracy.solves): %s; the %s arm solves %d of %d seeds and the baseline %d of %d (test accuracy >= %.3g, the best reference's %.3g plus %g of the way to the ceiling %.3g), so the mean difference is largely one of solve rates at this budget, not of quality; paired, the %s alone solves %s and the baseline alone %d (exact McNemar p = %.3g)",
			bimodalWho(arm.Name, ps.Bimodal, s.Baseline.Bimodal), arm.Name, ps.Solved, ps.N, s.Baseline.Solved, s.Baseline.N,
			target, floor, report.SolveFraction, ceiling, arm.Name, seedsWord(ps.OnlyIdea), ps.OnlyBaseline, ps.PValue))
	}
	return s
}

// solveTarget is the solve rule's target (report.SolveFraction of the
// way from the floor to the ceiling): the floor is the best accuracy of
// the references of floorRefs (the oracle left out), the ceiling the
// oracle's among ceilRefs (the test references hold it; the task's
// definition is the same on val). ok false when there is no ceiling
// above the floor.
func solveTarget(floorRefs, ceilRefs []track.TokenReference) (floor, ceiling, target float64, ok bool) {
	floor, ceiling = math.Inf(-1), math.Inf(-1)
	for _, t := range floorRefs {
		if t.Name != "oracle" {
			floor = max(floor, t.Accuracy)
		}
	}
	for _, t := range ceilRefs {
		if t.Name == "oracle" {
			ceiling = t.Accuracy
		}
	}
	if !(ceiling > floor) || math.IsInf(floor, 0) {
		return 0, 0, 0, false
	}
	return floor, ceiling, floor + report.SolveFraction*(ceiling-floor), true
}

// armSolves reads one arm's per-seed accuracies x against target: the
// seeds solved, and whether the solved ones stand at least minGap above
// the rest.
func armSolves(x []float64, target, minGap float64) report.ArmSolves {
	out := report.ArmSolves{N: len(x)}
	lowSolved, highUnsolved := math.Inf(1), math.Inf(-1)
	for _, v := range x {
		if v >= target {
			out.Solved++
			lowSolved = min(lowSolved, v)
		} else {
			highUnsolved = max(highUnsolved, v)
		}
	}
	if out.Solved > 0 && out.Solved < out.N {
		out.Gap = lowSolved - highUnsolved
		out.Bimodal = out.Gap >= minGap
	}
	return out
}

// bimodalWho says which arms' outcomes split.
func bimodalWho(name string, idea, baseline bool) string {
	switch {
	case idea && baseline:
		return fmt.Sprintf("the seeds of both the %s arm and the baseline end in two clusters, solved and not", name)
	case idea:
		return fmt.Sprintf("the %s arm's seeds end in two clusters, solved and not", name)
	}
	return "the baseline's seeds end in two clusters, solved and not"
}

// seedsWord is "1 seed" or "n seeds".
func seedsWord(n int) string {
	if n == 1 {
		return "1 seed"
	}
	return fmt.Sprintf("%d seeds", n)
}
