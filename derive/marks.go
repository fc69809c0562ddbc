package derive

import (
	"fmt"
	"math"
	"strings"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
)

// budget is the report's budget block: what every arm may spend over the
// train windows sizes, and how the idea arms' budgets differ from the
// baseline's.
func budget(p protocol.Protocol, sizes []protocol.TrainSize) (*report.Budget, error) {
	arms := []string{"baseline", "idea"}
	for k := range p.Ideas {
		arms = append(arms, protocol.IdeasArm(k))
	}
	b := &report.Budget{Differences: p.BudgetDiffs(), Arms: []protocol.ArmBudget{}}
	b.Equal = len(b.Differences) == 0
	for _, arm := range arms {
		a, err := p.BudgetOf(arm, len(p.Seeds), sizes)
		if err != nil {
			return nil, err
		}
		b.Arms = append(b.Arms, a)
	}
	return b, nil
}

// mark sets the marks of the comparison c of idea arm (trial arm name
// "idea" or "ideas[k]", sweep x) with the baseline (sweep b): "unequal
// budget" when the arm's budget differs from the baseline's
// (Protocol.BudgetDiffsOf), "idea inert" when the idea changed no paired
// trial (inert); each with a warning that says what it means.
func mark(p protocol.Protocol, arm string, c *report.Comparison, b, x stats.Arm) {
	name := p.ArmName(arm)
	if d := p.BudgetDiffsOf(arm); len(d) > 0 {
		c.Marks = append(c.Marks, "unequal budget: "+strings.Join(d, "; "))
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"unequal budget (setup.protocol.unequal_budget): the %s arm does not train on the baseline's budget (%s), so a difference may be the budget's, not the idea's; see budget",
			name, strings.Join(d, "; ")))
	}
	pairs, worst, ok := inert(p.Baseline, p.Grid(arm), b, x)
	if !ok {
		return
	}
	c.IdeaInert = true
	c.Marks = append(c.Marks, fmt.Sprintf("idea inert: within %.2g%% of the baseline at every paired cfg and seed", 100*report.InertRelTol))
	c.Warnings = append(c.Warnings, fmt.Sprintf(
		"idea inert: at each of the %d cfgs the %s arm's grid pairs with the baseline's and on every seed, its test metric is within %.2g%% of the baseline's (largest difference %.3g%%): the idea did not change what the model learned on this track, so the verdict says nothing about it; judge it on a track where it acts",
		pairs, name, 100*report.InertRelTol, 100*worst))
}

// inert reports whether the idea arm x (grid xGrid) acted on no trial:
// at every cfg j that pairs with the baseline's (bGrid[j] and xGrid[j]
// the same cfg apart from the idea, at least one such j) and every seed,
// both trials finished and the test metrics differ by at most
// report.InertRelTol of the baseline's. It returns the number of paired
// cfgs and the largest relative difference.
func inert(bGrid, xGrid []protocol.Cfg, b, x stats.Arm) (pairs int, worst float64, ok bool) {
	for j := range min(len(bGrid), len(xGrid)) {
		if withoutIdea(bGrid[j]) != withoutIdea(xGrid[j]) {
			continue
		}
		pairs++
		for s, bt := range b.Test[j] {
			if b.Diverged[j][s] || x.Diverged[j][s] {
				if b.Diverged[j][s] != x.Diverged[j][s] {
					return 0, 0, false
				}
				continue
			}
			d := math.Abs(x.Test[j][s]-bt) / math.Abs(bt)
			if !(d <= report.InertRelTol) { // NaN for a zero baseline metric: it acted or cannot tell
				return 0, 0, false
			}
			worst = max(worst, d)
		}
	}
	return pairs, worst, pairs > 0
}

// withoutIdea is c with its idea fields cleared: the training it shares
// with a baseline cfg.
func withoutIdea(c protocol.Cfg) protocol.Cfg {
	c.Idea, c.Params, c.Rho, c.Beta = "", idea.Params{}, 0, 0
	return c
}
