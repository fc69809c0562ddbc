package protocol

import (
	"fmt"
	"math"
	"slices"
	"strconv"
)

// GridExtension, in a protocol, extends the learning rates of every
// arm's grid while an arm's chosen cfg takes the smallest or the largest
// lr of its grid, so that a tuned arm is tuned: the best rate may lie
// beyond the grid the protocol started with.
//
// The rule (Extend), applied after every round of trials: each arm
// chooses its cfg on val (stats.Arm.Select); when some arm's choice has
// the smallest lr of its grid, and no cfg at another rate ties with it,
// every arm gets, for each cfg at its own smallest rate lr_1, a copy one
// grid step below, at lr_1²/lr_2 (lr_2 its next rate); likewise above.
// Every arm is extended the same way, so the grids keep pairing cfg j
// with cfg j and the budgets stay equal. The new cfgs are appended to
// the grids (the earlier cfgs keep their indices and their trials),
// their rates rounded to three significant digits. It stops when every
// choice is interior, when the next rate would leave [MinLR, MaxLR],
// or after MaxRounds rounds.
//
// The selection-aware test then treats the grown grids as given: it
// repeats each arm's choice over them under every relabelling, not the
// rounds that grew them. Both arms grow alike, whichever arm's choice
// took the edge, so under an idea that does nothing the growth favours
// neither arm (the A/A control measures the level with it).
type GridExtension struct {
	// MaxRounds bounds the rounds that add cfgs; each adds at most one
	// rate below the grid and one above.
	MaxRounds int `json:"max_rounds"`
	// MinLR and MaxLR bound the rates a round may add.
	MinLR float64 `json:"min_lr"`
	MaxLR float64 `json:"max_lr"`
}

// DefaultGridExtension extends a grid by up to three steps each way,
// within [1e-6, 1].
func DefaultGridExtension() *GridExtension {
	return &GridExtension{MaxRounds: 3, MinLR: 1e-6, MaxLR: 1}
}

// maxExtensionRounds bounds max_rounds: each round may double-ended
// grow every arm's grid.
const maxExtensionRounds = 32

// errors validates the extension, each error shaped as Validate's.
func (g *GridExtension) errors(p Protocol) []error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if g.MaxRounds < 1 || g.MaxRounds > maxExtensionRounds {
		bad("extend_grid.max_rounds = %d: must be in [1, %d]; use e.g. 3", g.MaxRounds, maxExtensionRounds)
	}
	if !(g.MinLR > 0) || math.IsInf(g.MinLR, 0) {
		bad("extend_grid.min_lr = %v: must be a finite rate > 0; use e.g. 1e-6", g.MinLR)
	}
	if !(g.MaxLR >= g.MinLR) || math.IsInf(g.MaxLR, 0) {
		bad("extend_grid.max_lr = %v: must be finite and at least extend_grid.min_lr = %v; use e.g. 1", g.MaxLR, g.MinLR)
	}
	if p.Sequential != nil {
		bad("extend_grid: a sequential design adds seeds to a fixed grid; leave out extend_grid or sequential")
	}
	return errs
}

// Extension is one round of a grid extension: the rates each arm chose
// and what the round did about them.
type Extension struct {
	// Chosen is each arm's chosen lr (baseline, idea, then the idea
	// arms, by name) and where it sits in its grid.
	Chosen []ArmChoice `json:"chosen"`
	// Below and Above are the rates the round added under and over the
	// grids, per arm in Chosen's order; absent when it added none there.
	Below []float64 `json:"below,omitempty"`
	Above []float64 `json:"above,omitempty"`
	// Stop, on the last round, says why the grids grow no further:
	// StopInterior, StopBound or StopRounds.
	Stop string `json:"stop,omitempty"`
}

// ArmChoice is an arm's choice in a round of a grid extension.
type ArmChoice struct {
	Arm string  `json:"arm"`
	LR  float64 `json:"lr"`
	// Edge is "smallest" or "largest" when the choice takes the grid's
	// edge rate and no cfg at another rate ties with it.
	Edge string `json:"edge,omitempty"`
}

// Why a grid extension stops (Extension.Stop).
const (
	StopInterior = "interior: every arm's choice lies inside its grid"
	StopBound    = "bound: the next rate would leave [extend_grid.min_lr, extend_grid.max_lr]; the grid edge warnings stand"
	StopRounds   = "max_rounds: the grids grew extend_grid.max_rounds times; the grid edge warnings stand"
	StopNoStep   = "no step: a grid on the edge has one rate, so no step extends it; the grid edge warnings stand"
)

// Arms lists the protocol's arms as trials name them: "baseline",
// "idea", then "ideas[k]".
func (p Protocol) Arms() []string {
	arms := []string{"baseline", "idea"}
	for k := range p.Ideas {
		arms = append(arms, IdeasArm(k))
	}
	return arms
}

// Pick is an arm's choice in a round of a grid extension: the index
// of its chosen cfg, and whether a cfg at another rate ties with it (the
// same diverged seeds and val mean), so the choice does not point past
// the grid's edge.
type Pick struct {
	Cfg  int
	Tied bool
}

// Extend applies round (0-based) of the extension g to q, whose arms
// made the choices chosen (in the order of q.Arms()): it returns the
// round's record and, when the grids grow, the protocol with the grown
// grids (more true).
func (q Protocol) Extend(g *GridExtension, round int, chosen []Pick) (next Protocol, rec Extension, more bool) {
	arms := q.Arms()
	below, above := false, false
	for i, arm := range arms {
		grid := q.Grid(arm)
		lrs := rates(grid)
		lr := grid[chosen[i].Cfg].LR
		c := ArmChoice{Arm: q.ArmName(arm), LR: lr}
		switch {
		case len(lrs) < 2 || chosen[i].Tied:
		case lr == lrs[len(lrs)-1]:
			c.Edge = "largest"
			above = true
		case lr == lrs[0]:
			c.Edge = "smallest"
			below = true
		}
		rec.Chosen = append(rec.Chosen, c)
	}
	if !below && !above {
		rec.Stop = StopInterior
		return q, rec, false
	}
	if round >= g.MaxRounds {
		rec.Stop = StopRounds
		return q, rec, false
	}
	// The steps of every arm, in each direction needed; a direction is
	// taken only when every arm has a step there within the bounds.
	stop := ""
	grow := func(down bool) ([]float64, bool) {
		var out []float64
		for _, arm := range arms {
			lrs := rates(q.Grid(arm))
			if len(lrs) < 2 {
				stop = StopNoStep
				return nil, false
			}
			edge, inner := lrs[len(lrs)-1], lrs[len(lrs)-2]
			if down {
				edge, inner = lrs[0], lrs[1]
			}
			x := round3(edge * edge / inner)
			if x < g.MinLR || x > g.MaxLR || x == edge {
				stop = StopBound
				return nil, false
			}
			out = append(out, x)
		}
		return out, true
	}
	next = q
	// The tuner drew the grids the extension starts from; its rounds add
	// cfgs beyond the draws (the report keeps the protocol as given).
	next.Tune = nil
	next.Baseline, next.Idea = slices.Clone(q.Baseline), slices.Clone(q.Idea)
	next.Ideas = slices.Clone(q.Ideas)
	for k := range next.Ideas {
		next.Ideas[k].Grid = slices.Clone(q.Ideas[k].Grid)
	}
	add := func(down bool, xs []float64) {
		for i, arm := range arms {
			grid := q.Grid(arm)
			lrs := rates(grid)
			edge := lrs[len(lrs)-1]
			if down {
				edge = lrs[0]
			}
			var added []Cfg
			for _, c := range grid {
				if c.LR == edge {
					c.LR = xs[i]
					added = append(added, c)
				}
			}
			next.setGrid(arm, append(next.Grid(arm), added...))
		}
	}
	if below {
		if xs, ok := grow(true); ok {
			rec.Below = xs
			add(true, xs)
		}
	}
	if above {
		if xs, ok := grow(false); ok {
			rec.Above = xs
			add(false, xs)
		}
	}
	if rec.Below == nil && rec.Above == nil {
		rec.Stop = stop
		return q, rec, false
	}
	return next, rec, true
}

// setGrid replaces arm's grid.
func (p *Protocol) setGrid(arm string, grid []Cfg) {
	switch arm {
	case "baseline":
		p.Baseline = grid
		return
	case "idea":
		p.Idea = grid
		return
	}
	for k := range p.Ideas {
		if arm == IdeasArm(k) {
			p.Ideas[k].Grid = grid
		}
	}
}

// rates are the distinct learning rates of grid, ascending.
func rates(grid []Cfg) []float64 {
	var out []float64
	for _, c := range grid {
		out = append(out, c.LR)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// round3 is x rounded to three significant digits.
func round3(x float64) float64 {
	y, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 3, 64), 64)
	return y
}
