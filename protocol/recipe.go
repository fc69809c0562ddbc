package protocol

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Recipe is how one cfg spends its budget beside the learning rate: the
// optimizer's settings that a comparison of architectures keeps equal
// (Narang et al. 2021, "Do Transformer Modifications Transfer Across
// Implementations and Applications?", and AlgoPerf's rule that every
// submission tunes the same workload: a change of recipe is a change of
// the training, not of the model).
type Recipe struct {
	WeightDecay float64 // AdamW's decoupled decay; 0 is Adam
	Schedule    string  // constant, cosine or linear ("" read as constant)
	Warmup      float64 // fraction of the steps
	Clip        float64 // gradient norm; 0 never clips
}

// Recipe is the cfg's Recipe.
func (c Cfg) Recipe() Recipe {
	s := c.Schedule
	if s == "" {
		s = ScheduleConstant
	}
	return Recipe{WeightDecay: c.WeightDecay, Schedule: s, Warmup: c.Warmup, Clip: c.Clip}
}

// recipeFields name a Recipe's fields by their cfg keys, each value as
// a config writes it.
var recipeFields = []struct {
	key string
	get func(Recipe) string
}{
	{"weight_decay", func(r Recipe) string { return strconv.FormatFloat(r.WeightDecay, 'g', -1, 64) }},
	{"schedule", func(r Recipe) string { return strconv.Quote(r.Schedule) }},
	{"warmup", func(r Recipe) string { return strconv.FormatFloat(r.Warmup, 'g', -1, 64) }},
	{"clip", func(r Recipe) string { return strconv.FormatFloat(r.Clip, 'g', -1, 64) }},
}

// RecipeDiffs lists how each idea arm's recipe differs from the
// baseline's (RecipeDiffsOf), arm by arm; empty when every arm trains
// as the baseline does.
func (p Protocol) RecipeDiffs() []string {
	out := p.RecipeDiffsOf("idea")
	for k := range p.Ideas {
		out = append(out, p.RecipeDiffsOf(IdeasArm(k))...)
	}
	return out
}

// RecipeDiffsOf lists how the recipes of arm's cfgs ("idea" or
// "ideas[k]") differ from the baseline's, each as "<arm
// path>[j].<field> = <value>: the baseline's cfg j has <value>"; the
// grids pair cfg j with cfg j, as the grid extension and the inert check
// pair them. A grid of another length is BudgetDiffsOf's to name.
func (p Protocol) RecipeDiffsOf(arm string) []string {
	grid := p.Grid(arm)
	at := arm
	if strings.HasPrefix(arm, "ideas[") {
		at += ".grid"
	}
	var out []string
	for j, c := range grid[:min(len(grid), len(p.Baseline))] {
		x, b := c.Recipe(), p.Baseline[j].Recipe()
		for _, f := range recipeFields {
			if f.get(x) != f.get(b) {
				out = append(out, fmt.Sprintf("%s[%d].%s = %s: the baseline's cfg %d has %s", at, j, f.key, f.get(x), j, f.get(b)))
			}
		}
	}
	return slices.Clip(out)
}

// recipeError is Validate's error for a protocol whose arms' recipes
// differ without DifferentRecipe.
func recipeError(diffs []string) error {
	return fmt.Errorf("%s; an arm trained with other optimizer settings than the baseline (weight decay, schedule, warmup, clipping) may win by its recipe, not its idea: give every arm the baseline's recipe, or set \"different_recipe\": true to run it anyway with every verdict marked \"different recipe\"",
		strings.Join(diffs, "; "))
}
