package harness

import (
	"context"
	"fmt"
	"slices"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/stats"
)

// ControlResult is a control experiment: the protocol's comparison,
// baseline grid against the same grid with one idea, repeated on disjoint
// blocks of seeds. For the A/A control every significant verdict is a
// false positive, so the rate of significant verdicts estimates the
// test's type I error; for an idea known to help, the rate of significant
// wins estimates the protocol's power to detect it.
type ControlResult struct {
	Idea          idea.Config `json:"idea"`
	Blocks        int         `json:"blocks"`
	SeedsPerBlock int         `json:"seeds_per_block"`
	Alpha         float64     `json:"alpha"`
	Wins          int         `json:"significant_wins"`
	Losses        int         `json:"significant_losses"`
	// SelectionWins and SelectionLosses count the selection-aware
	// verdicts (Comparison.VerdictSelection), when the grids pair.
	SelectionWins   int            `json:"selection_aware_wins"`
	SelectionLosses int            `json:"selection_aware_losses"`
	PerBlock        []ControlBlock `json:"per_block"`
}

// ControlBlock is one block's comparison.
type ControlBlock struct {
	Seeds     []uint64 `json:"seeds"`
	DeltaMean float64  `json:"delta_mean"`
	PValue    float64  `json:"p_value"`
	Verdict   string   `json:"verdict"`
	// PValueSelection and VerdictSelection are the selection-aware test's.
	PValueSelection  float64 `json:"p_value_selection"`
	VerdictSelection string  `json:"verdict_selection"`
	// BaselineCfg and IdeaCfg are the grid indices each arm selected.
	BaselineCfg int `json:"baseline_cfg"`
	IdeaCfg     int `json:"idea_cfg"`
}

// Rate is the share of blocks with a significant verdict, by the
// sign-flip test on the chosen cfgs or, with selection, by the
// selection-aware test: either way for the A/A control (its
// false-positive rate under a two-sided test), wins only otherwise
// (power), with the Clopper-Pearson 95% interval.
func (c *ControlResult) Rate(selection bool) (k int, rate, lo, hi float64) {
	wins, losses := c.Wins, c.Losses
	if selection {
		wins, losses = c.SelectionWins, c.SelectionLosses
	}
	k = wins
	if c.Idea.Name == "aa" {
		k += losses
	}
	lo, hi = stats.ClopperPearson(k, c.Blocks, 0.95)
	return k, float64(k) / float64(c.Blocks), lo, hi
}

// ControlSeeds returns block k's seeds: the protocol's seeds shifted by
// k·(max seed + 1), so block 0 is the protocol's own and no two blocks
// share a seed.
func ControlSeeds(p Protocol, k int) []uint64 {
	step := slices.Max(p.Seeds) + 1
	out := make([]uint64, len(p.Seeds))
	for i, s := range p.Seeds {
		out[i] = s + uint64(k)*step
	}
	return out
}

// WithIdea returns cfg c training idea ic instead of its own (the gate as
// rho and beta, as a cfg writes it).
func WithIdea(c Cfg, ic idea.Config) Cfg {
	c.Idea, c.Params, c.Rho, c.Beta = ic.Name, ic.Params, 0, 0
	if ic.Name == "gate" {
		c.Idea, c.Params = "", idea.Params{}
		c.Rho, _ = ic.Params.Get("rho")
		c.Beta, _ = ic.Params.Get("beta")
	}
	return c
}

// Control runs the control experiment of idea ic on blocks seed blocks:
// block k runs p with ControlSeeds(p, k) and the idea grid WithIdea of
// each baseline cfg, through Run (so opt.Store keeps and reuses every
// trial). progress, when not nil, is called after each block.
func Control(ctx context.Context, p Protocol, ic idea.Config, blocks int, opt Options, progress func(done int)) (*ControlResult, error) {
	if blocks < 1 {
		return nil, fmt.Errorf("harness: control: blocks = %d; run at least 1 (e.g. 100)", blocks)
	}
	if _, err := idea.New(ic); err != nil {
		return nil, fmt.Errorf("harness: control: %w", err)
	}
	q := p
	q.Idea = nil
	for _, c := range p.Baseline {
		q.Idea = append(q.Idea, WithIdea(c, ic))
	}
	res := &ControlResult{Idea: ic, Blocks: blocks, SeedsPerBlock: len(p.Seeds), Alpha: p.Alpha}
	for k := range blocks {
		q.Seeds = ControlSeeds(p, k)
		o, err := Run(ctx, q, opt)
		if err != nil {
			return nil, fmt.Errorf("harness: control block %d: %w", k, err)
		}
		c := o.Report.Comparison
		rp := o.Report
		res.PerBlock = append(res.PerBlock, ControlBlock{Seeds: q.Seeds, DeltaMean: c.DeltaMean, PValue: c.PValue, Verdict: c.Verdict,
			PValueSelection: *c.PValueSelection, VerdictSelection: c.VerdictSelection,
			BaselineCfg: slices.Index(q.Baseline, rp.Baseline.BestCfg), IdeaCfg: slices.Index(q.Idea, rp.MechanismSignature.ObservedBestCfg)})
		switch c.Verdict {
		case stats.VerdictWin:
			res.Wins++
		case stats.VerdictLoss:
			res.Losses++
		}
		switch c.VerdictSelection {
		case stats.VerdictWin:
			res.SelectionWins++
		case stats.VerdictLoss:
			res.SelectionLosses++
		}
		if progress != nil {
			progress(k + 1)
		}
	}
	return res, nil
}
