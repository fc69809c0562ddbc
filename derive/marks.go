package derive

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/trial"
)

// budget is the report's budget block: what every arm may spend over the
// train windows sizes, and how the idea arms' budgets differ from the
// baseline's.
func budget(p protocol.Protocol, sizes []protocol.TrainSize) (*report.Budget, error) {
	arms := []string{"baseline", "idea"}
	for k := range p.Ideas {
		arms = append(arms, protocol.IdeasArm(k))
	}
	b := &report.Budget{Differences: p.BudgetDiffs(), RecipeDifferences: p.RecipeDiffs(), Arms: []protocol.ArmBudget{}}
	b.Equal = len(b.Differences) == 0
	for _, arm := range arms {
		a, err := p.BudgetOf(arm, len(p.Seeds), sizes, trial.Costs(p))
		if err != nil {
			return nil, err
		}
		b.Arms = append(b.Arms, a)
	}
	return b, nil
}

// mark sets the marks of the comparison c of idea arm (trial arm name
// "idea" or "ideas[k]", sweep x, chosen cfg xBest) with the baseline
// (sweep b): "unequal budget" when the arm's budget differs from the
// baseline's (Protocol.BudgetDiffsOf), "different recipe" when its
// optimizer settings do (Protocol.RecipeDiffsOf), "idea inert" when the
// idea changed
// no trial of its chosen cfg (inert); each with a warning that says what
// it means.
func mark(p protocol.Protocol, tune *protocol.Tune, arm string, c *report.Comparison, b, x stats.Arm, xBest int) {
	name := p.ArmName(arm)
	if at, space := fixedSettings(tune, arm, p.Grid(arm)); at != "" {
		c.Marks = append(c.Marks, fmt.Sprintf("idea at fixed settings: %s (its search space %s is not searched)", at, space))
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"idea at fixed settings: the %s arm trains its idea at %s on every cfg, where its papers leave %s open, so the verdict is about these settings, not the idea tuned as the baseline is; tune the arms (--tune N) to judge it over its space",
			name, at, space))
	}
	if d := p.BudgetDiffsOf(arm); len(d) > 0 {
		c.Marks = append(c.Marks, "unequal budget: "+strings.Join(d, "; "))
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"unequal budget (setup.protocol.unequal_budget): the %s arm does not train on the baseline's budget (%s), so a difference may be the budget's, not the idea's; see budget",
			name, strings.Join(d, "; ")))
	}
	if d := p.RecipeDiffsOf(arm); len(d) > 0 {
		c.Marks = append(c.Marks, "different recipe: "+strings.Join(d, "; "))
		c.Warnings = append(c.Warnings, fmt.Sprintf(
			"different recipe (setup.protocol.different_recipe): the %s arm trains with other optimizer settings than the baseline (%s), so a difference may be the recipe's, not the idea's; give it the baseline's recipe to judge the idea",
			name, strings.Join(d, "; ")))
	}
	worst, ok := inert(p.Baseline, p.Grid(arm), b, x, xBest)
	if !ok {
		return
	}
	c.IdeaInert = true
	c.Marks = append(c.Marks, fmt.Sprintf("idea inert: its chosen cfg scores within %.2g%% of the baseline's same cfg on every seed", 100*report.InertRelTol))
	c.Warnings = append(c.Warnings, fmt.Sprintf(
		"idea inert: on every seed the %s arm's chosen cfg (cfg %d, lr %g) scores within %.2g%% of the baseline's cfg %d, the same training without the idea (largest difference %.3g%%): the idea did not change what the model learned here, so the verdict says nothing about it; judge it on a track where it acts",
		name, xBest, p.Grid(arm)[xBest].LR, 100*report.InertRelTol, xBest, 100*worst))
}

// fixedSettings says, for an idea arm whose idea declares a search
// space (idea.SpaceOf) that the protocol does not search (no tune block,
// or the arm's space empty: pinned), the one setting every cfg of grid
// trains ("rho=0.8, beta=0.5") and the space ("rho 0.5..0.99, beta
// 0.1..4/log"); "" for an arm that searches, varies its settings by
// hand (the seed profile's sweep), or whose idea has no space or is the
// baseline itself at its settings (the A/A control).
func fixedSettings(tune *protocol.Tune, arm string, grid []protocol.Cfg) (at, space string) {
	if len(grid) == 0 || tune != nil && len(tune.Spaces[arm]) > 0 {
		return "", ""
	}
	ic := grid[0].IdeaConfig()
	declared := idea.SpaceOf(ic.Name)
	if in, err := idea.New(ic); len(declared) == 0 || err == nil && in.Identity() {
		return "", "" // no space, or the baseline itself (the A/A control)
	}
	for _, c := range grid[1:] {
		if c.IdeaConfig() != ic {
			return "", ""
		}
	}
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(declared)) {
		parts = append(parts, n+" "+declared[n].String())
	}
	return strings.ReplaceAll(ic.WithDefaults().Params.String(), ";", ", "), strings.Join(parts, ", ")
}

// inert reports whether the idea arm x (grid xGrid) left its chosen cfg
// xBest's trials as they were without it: the baseline's cfg of the same
// index is the same training apart from the idea, and on every seed both
// trials finished and their test metrics differ by at most
// report.InertRelTol of the baseline's. It returns the largest relative
// difference.
//
// Only the chosen cfg counts, the one the verdict is about: at a high
// rate, training amplifies even a negligible change (a gain of 0.9995)
// into test metrics a percent apart, while at the chosen rate the same
// idea leaves them within 1e-5.
func inert(bGrid, xGrid []protocol.Cfg, b, x stats.Arm, xBest int) (worst float64, ok bool) {
	j := xBest
	if j >= len(bGrid) || withoutIdea(bGrid[j]) != withoutIdea(xGrid[j]) {
		return 0, false
	}
	for s, bt := range b.Test[j] {
		if b.Diverged[j][s] || x.Diverged[j][s] {
			return 0, false
		}
		d := math.Abs(x.Test[j][s]-bt) / math.Abs(bt)
		if !(d <= report.InertRelTol) { // NaN for a zero baseline metric: it cannot tell
			return 0, false
		}
		worst = max(worst, d)
	}
	return worst, true
}

// withoutIdea is c with its idea fields cleared: the training it shares
// with a baseline cfg.
func withoutIdea(c protocol.Cfg) protocol.Cfg {
	c.Idea, c.Params, c.Rho, c.Beta = "", idea.Params{}, 0, 0
	return c
}
