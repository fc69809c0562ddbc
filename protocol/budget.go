package protocol

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/track"
)

// Budget is what one cfg's training may buy: the fields of a Cfg that
// buy compute or data. Everything else a cfg sets (lr, the schedule,
// weight decay, clipping, the idea) shapes how the budget is spent, not
// how large it is.
type Budget struct {
	Epochs       int // passes over the train windows
	EpochWindows int // windows an epoch trains on (0: every one)
	Patience     int // epochs early stopping waits for a new best
	Context      int // the look-back (0: the track's t): more inputs per window
}

// Budget is the cfg's Budget.
func (c Cfg) Budget() Budget {
	return Budget{Epochs: c.Epochs, EpochWindows: c.EpochWindows, Patience: c.Patience, Context: c.Context}
}

// budgetFields name a Budget's fields by their cfg keys.
var budgetFields = []struct {
	key string
	get func(Budget) int
}{
	{"epochs", func(b Budget) int { return b.Epochs }},
	{"epoch_windows", func(b Budget) int { return b.EpochWindows }},
	{"patience", func(b Budget) int { return b.Patience }},
	{"context", func(b Budget) int { return b.Context }},
}

func compareBudgets(a, b Budget) int {
	for _, f := range budgetFields {
		if c := cmp.Compare(f.get(a), f.get(b)); c != 0 {
			return c
		}
	}
	return 0
}

// BudgetDiffs lists how each idea arm's training budget differs from the
// baseline's (BudgetDiffsOf), arm by arm; empty when every arm spends
// what the baseline does.
func (p Protocol) BudgetDiffs() []string {
	out := p.BudgetDiffsOf("idea")
	for k := range p.Ideas {
		out = append(out, p.BudgetDiffsOf(IdeasArm(k))...)
	}
	return out
}

// BudgetDiffsOf lists how the training budget of arm ("idea" or
// "ideas[k]") differs from the baseline's, each as "<arm path>.<field> =
// <value>: <the baseline's>". An arm spends what the baseline does when
// its grid has as many cfgs and the two grids' budgets (Cfg.Budget) are
// the same multiset (with a grid extension, cfg by cfg), so the arms try
// as many cfgs and every cfg may take the same steps over the same
// windows. An arm that may train longer, on more windows, wait longer
// for a new best or look further back wins by its budget, not its idea.
func (p Protocol) BudgetDiffsOf(arm string) []string {
	grid := p.Grid(arm)
	at := arm
	if strings.HasPrefix(arm, "ideas[") {
		at += ".grid"
	}
	if len(grid) != len(p.Baseline) {
		return []string{fmt.Sprintf("%s: %d cfgs against the baseline's %d (an arm that tries more cfgs has more chances on val, and trains more)", at, len(grid), len(p.Baseline))}
	}
	// With a grid extension the grids pair cfg by cfg: each round grows
	// every arm by copies of its own edge cfgs, so grids whose budgets
	// agree only as a whole would grow apart.
	if p.ExtendGrid == nil && slices.EqualFunc(budgetsOf(grid), budgetsOf(p.Baseline), func(a, b Budget) bool { return a == b }) {
		return nil
	}
	// Name the differing fields cfg by cfg: the grids pair index j with
	// index j.
	var out []string
	for j, c := range grid {
		x, b := c.Budget(), p.Baseline[j].Budget()
		for _, f := range budgetFields {
			if f.get(x) != f.get(b) {
				out = append(out, fmt.Sprintf("%s[%d].%s = %d: the baseline's cfg %d has %d", at, j, f.key, f.get(x), j, f.get(b)))
			}
		}
	}
	return out
}

// budgetsOf returns the grid's budgets, sorted.
func budgetsOf(grid []Cfg) []Budget {
	out := make([]Budget, len(grid))
	for i, c := range grid {
		out[i] = c.Budget()
	}
	slices.SortFunc(out, compareBudgets)
	return out
}

// budgetError is Validate's error for a protocol whose arms' budgets
// differ without UnequalBudget.
func budgetError(diffs []string) error {
	return fmt.Errorf("%s; an arm that trains longer, on more windows, with more patience, at more look-backs or over more cfgs than the baseline wins by its budget, not its idea: give every arm the baseline's budget, or set \"unequal_budget\": true to run it anyway with every verdict marked \"unequal budget\"",
		strings.Join(diffs, "; "))
}

// TrainSize is a fact of the track's data a budget depends on: at one
// look-back, how many train windows there are and what each holds.
type TrainSize struct {
	Context  int `json:"context"`  // the look-back t
	H        int `json:"h"`        // the horizon
	Channels int `json:"channels"` // input channels per position
	Windows  int `json:"windows"`  // train windows
	// Vocab and Labelled are, on a token track, the vocabulary and the
	// labelled positions of the train sequences (Windows of them, of
	// Context tokens); H and Channels are then 0.
	Vocab    int `json:"vocab,omitempty"`
	Labelled int `json:"labelled,omitempty"`
}

// TrainSizes are the dataset's TrainSizes, one per look-back it was
// built at, ascending.
func TrainSizes(ds *track.Dataset) []TrainSize {
	if td := ds.Tokens; td != nil {
		return []TrainSize{{Context: td.Train.T, Windows: td.Train.N, Vocab: td.Vocab, Labelled: td.Train.Labelled()}}
	}
	var out []TrainSize
	for _, t := range ds.Contexts() {
		s := &ds.At(t).Train
		out = append(out, TrainSize{Context: s.T, H: s.H, Channels: s.C, Windows: s.N})
	}
	return out
}

// ArmBudget is what an arm's trials may spend under the protocol: every cfg
// of its grid trained for every epoch on every seed.
type ArmBudget struct {
	Arm    string `json:"arm"`    // the arm's name (Protocol.ArmName)
	Cfgs   int    `json:"cfgs"`   // cfgs in the grid
	Trials int    `json:"trials"` // cfgs × seeds
	// Steps are the optimizer steps of every epoch of every trial,
	// Σ epochs·⌈windows per epoch / batch⌉; early stopping may end a
	// trial sooner.
	Steps int64 `json:"steps"`
	// Examples are the train windows those steps see, Σ epochs·windows
	// per epoch.
	Examples int64 `json:"examples"`
	// FLOPs are the matrix-product FLOPs of those steps in the built-in
	// model (transformer.Config.StepFLOPs, a multiply-add two): the idea's
	// own elementwise work is not counted. 0 for an arm trained by an
	// external trainer, whose model is its own.
	FLOPs float64 `json:"flops"`
}

// BudgetOf is what arm ("baseline", "idea" or "ideas[k]") may spend on
// seeds seeds over the train windows sizes (TrainSizes), its FLOPs by
// the cost model cost; an error when sizes lack one of its look-backs.
func (p Protocol) BudgetOf(arm string, seeds int, sizes []TrainSize, cost Coster) (ArmBudget, error) {
	grid := p.Grid(arm)
	s := ArmBudget{Arm: p.ArmName(arm), Cfgs: len(grid), Trials: len(grid) * seeds}
	t, _ := p.window()
	for _, c := range grid {
		ctx := cmp.Or(c.Context, t)
		i := slices.IndexFunc(sizes, func(z TrainSize) bool { return z.Context == ctx })
		if i < 0 {
			return ArmBudget{}, fmt.Errorf("protocol: budget: no train windows at look-back %d (setup.train_sizes)", ctx)
		}
		z := sizes[i]
		win := z.Windows
		if c.EpochWindows > 0 {
			win = min(win, c.EpochWindows)
		}
		steps := int64(c.Epochs) * int64((win+p.Arch.Batch-1)/p.Arch.Batch) * int64(seeds)
		s.Steps += steps
		s.Examples += int64(c.Epochs) * int64(win) * int64(seeds)
		if p.TrainerOf(arm) == nil {
			s.FLOPs += float64(steps) * cost(c, z).Step
		}
	}
	return s, nil
}
