package harness

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

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
	// SeedBase shifts every block's seeds (ControlSeeds).
	SeedBase uint64  `json:"seed_base"`
	Alpha    float64 `json:"alpha"`
	// Test is the test of the headline verdict (Comparison.Test); Wins
	// and Losses count its significant verdicts.
	Test   string `json:"test"`
	Wins   int    `json:"significant_wins"`
	Losses int    `json:"significant_losses"`
	// SignFlipWins and SignFlipLosses count the sign-flip test's on the
	// chosen cfgs, conditional on the choice (the headline when Test is
	// sign-flip, else Comparison.VerdictConditional).
	SignFlipWins   int            `json:"sign_flip_wins"`
	SignFlipLosses int            `json:"sign_flip_losses"`
	PerBlock       []ControlBlock `json:"per_block"`
}

// ControlBlock is one block's comparison.
type ControlBlock struct {
	Seeds     []uint64 `json:"seeds"`
	DeltaMean float64  `json:"delta_mean"`
	// PValue and Verdict are the headline's (ControlResult.Test).
	PValue  float64 `json:"p_value"`
	Verdict string  `json:"verdict"`
	// PValueSignFlip and VerdictSignFlip are the sign-flip test's on the
	// chosen cfgs.
	PValueSignFlip  float64 `json:"p_value_sign_flip"`
	VerdictSignFlip string  `json:"verdict_sign_flip"`
	// BaselineCfg and IdeaCfg are the indices each arm selected in its
	// grid as it ran (the sweep: a grid extension appends its cfgs).
	BaselineCfg int `json:"baseline_cfg"`
	IdeaCfg     int `json:"idea_cfg"`
}

// Rate is the share of blocks with a significant verdict, by the
// headline test or, with signFlip, by the sign-flip test on the chosen
// cfgs: either way for the A/A control (its false-positive rate under a
// two-sided test), wins only otherwise (power), with the Clopper-Pearson
// 95% interval.
func (c *ControlResult) Rate(signFlip bool) (k int, rate, lo, hi float64) {
	wins, losses := c.Wins, c.Losses
	if signFlip {
		wins, losses = c.SignFlipWins, c.SignFlipLosses
	}
	k = wins
	if c.Idea.Name == "aa" {
		k += losses
	}
	lo, hi = stats.ClopperPearson(k, c.Blocks, 0.95)
	return k, float64(k) / float64(c.Blocks), lo, hi
}

// ControlSeeds returns block k's seeds: the protocol's seeds shifted by
// base + k·(max seed + 1), so block 0 at base 0 is the protocol's own and
// no two blocks share a seed.
func ControlSeeds(p protocol.Protocol, base uint64, k int) []uint64 {
	step := slices.Max(p.Seeds) + 1
	out := make([]uint64, len(p.Seeds))
	for i, s := range p.Seeds {
		out[i] = s + base + uint64(k)*step
	}
	return out
}

// MaxControlSeed bounds the seeds of a control experiment, so that
// ControlSeeds cannot wrap around.
const MaxControlSeed = 1 << 62

// MaxBlocks bounds a control experiment's blocks (what fits a machine is
// its estimate's to say).
const MaxBlocks = 1 << 24

// IdeaGrid returns the baseline's grid with idea ic in each cfg
// (protocol.IdeaGrid): an idea arm on the baseline's grid.
func IdeaGrid(baseline []protocol.Cfg, ic idea.Config) []protocol.Cfg {
	return protocol.IdeaGrid(baseline, ic)
}

// ControlProtocol is block k of the control experiment of idea ic on
// p: p on the seeds ControlSeeds(p, base, k), its idea grid the
// baseline's with ic (IdeaGrid).
func ControlProtocol(p protocol.Protocol, ic idea.Config, base uint64, k int) protocol.Protocol {
	p.Idea = IdeaGrid(p.Baseline, ic)
	if t := p.Tune; t != nil {
		// The control's idea is searched over its own space (the A/A
		// idea's stream: as large a space as a real idea's, of nothing).
		c := *t
		c.Spaces = maps.Clone(c.Spaces)
		if c.Spaces == nil {
			c.Spaces = map[string]idea.Space{}
		}
		c.Spaces["idea"] = idea.SpaceOf(ic.Name)
		p.Tune = &c
		p = p.Tuned()
	}
	p.Seeds = ControlSeeds(p, base, k)
	return p
}

// Control runs the control experiment of idea ic on blocks seed blocks:
// block k runs p with ControlSeeds(p, base, k) and the idea grid
// (protocol.Cfg.WithIdea of each baseline cfg), through Run (so opt.Store keeps and reuses every
// trial). progress, when not nil, is called after each block.
func Control(ctx context.Context, p protocol.Protocol, ic idea.Config, blocks int, base uint64, opt Options, progress func(done int)) (*ControlResult, error) {
	if blocks < 1 || blocks > MaxBlocks {
		return nil, fmt.Errorf("harness: control: blocks = %d; run 1 to %d (e.g. 200)", blocks, MaxBlocks)
	}
	if last := ControlSeeds(p, base, blocks-1); slices.Max(last) > MaxControlSeed || slices.Max(last) < base {
		return nil, fmt.Errorf("harness: control: seed base %d and %d blocks reach seeds beyond %d; use a smaller base or fewer blocks", base, blocks, uint64(MaxControlSeed))
	}
	if _, err := idea.New(ic); err != nil {
		return nil, fmt.Errorf("harness: control: %w", err)
	}
	q := ControlProtocol(p, ic, base, 0)
	d, err := dataWithin(ctx, q, opt)
	if err != nil {
		return nil, err
	}
	if err := q.Estimate(d.Dataset, blocks*len(q.Trials()), trial.Costs(q)).Check(opt.Limits, opt.workers()); err != nil {
		return nil, fmt.Errorf("harness: control of %d blocks: %w", blocks, err)
	}
	res := &ControlResult{Idea: ic, Blocks: blocks, SeedsPerBlock: len(p.Seeds), SeedBase: base, Alpha: p.Alpha}
	count := func(verdict string, wins, losses *int) {
		switch verdict {
		case stats.VerdictWin:
			*wins++
		case stats.VerdictLoss:
			*losses++
		}
	}
	for k := range blocks {
		q := ControlProtocol(p, ic, base, k)
		o, err := Run(ctx, q, opt)
		if err != nil {
			return nil, fmt.Errorf("harness: control block %d: %w", k, err)
		}
		rp := o.Report
		c := rp.Comparison
		b := ControlBlock{Seeds: q.Seeds, DeltaMean: c.DeltaMean, PValue: c.PValue, Verdict: c.Verdict,
			PValueSignFlip: c.PValue, VerdictSignFlip: c.Verdict,
			BaselineCfg: slices.IndexFunc(rp.Baseline.Sweep, func(r report.SweepRow) bool { return r.Cfg == rp.Baseline.BestCfg }),
			IdeaCfg:     slices.IndexFunc(rp.MechanismSignature.IdeaSweep, func(r report.IdeaRow) bool { return r.Cfg == rp.MechanismSignature.ObservedBestCfg })}
		if c.PValueConditional != nil {
			b.PValueSignFlip, b.VerdictSignFlip = *c.PValueConditional, c.VerdictConditional
		}
		res.Test = c.Test
		res.PerBlock = append(res.PerBlock, b)
		count(b.Verdict, &res.Wins, &res.Losses)
		count(b.VerdictSignFlip, &res.SignFlipWins, &res.SignFlipLosses)
		if progress != nil {
			progress(k + 1)
		}
	}
	return res, nil
}
