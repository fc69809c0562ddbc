package suite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/suitereport"
	"github.com/ideabench/ideabench/track"
)

// ControlResult is a control experiment at the suite level: on each of
// Blocks disjoint seed blocks, every track's baseline grid against the
// same grid with one idea (protocol.Cfg.WithIdea), and the suite's development
// aggregate as the suite report forms it (the development tracks whose
// report says they can judge an idea, every one with include_all). Under the A/A control ("aa": the baseline
// on disjoint streams) every "better" or "worse" is a false positive; for
// an idea known to help, the share of "better" is the suite's power.
type ControlResult struct {
	Idea     idea.Config `json:"idea"`
	Blocks   int         `json:"blocks"`
	SeedBase uint64      `json:"seed_base"`
	Tracks   []string    `json:"tracks"`
	// Skipped are the tracks whose data is absent.
	Skipped []suitereport.Skipped `json:"skipped,omitempty"`
	// Counts of the aggregate verdicts over the blocks; NoAggregate the
	// blocks where no development track could judge (no verdict).
	NoAggregate int `json:"no_aggregate"`
	Better      int `json:"better"`
	Worse       int `json:"worse"`
	Equivalent  int `json:"equivalent"`
	Undecided   int `json:"undecided"`
	// BetterRate is Better over the blocks with an aggregate (Blocks -
	// NoAggregate), with its Clopper-Pearson 95% interval, EquivalentRate
	// Equivalent alike; RejectRate is the share of those blocks whose
	// permutation test rejects at alpha, whatever the verdict (a
	// rejection inside the region of practical equivalence is
	// "practically equivalent"): the two-sided test's rejection rate.
	BetterRate     Rate           `json:"better_rate"`
	EquivalentRate Rate           `json:"equivalent_rate"`
	RejectRate     Rate           `json:"reject_rate"`
	Alpha          float64        `json:"alpha"`
	PerBlock       []ControlBlock `json:"per_block"`
}

// Rate is a share of blocks with its Clopper-Pearson 95% interval.
type Rate struct {
	K    int     `json:"k"`
	Rate float64 `json:"rate"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
}

func rateOf(k, n int) Rate {
	lo, hi := stats.ClopperPearson(k, n, 0.95)
	return Rate{K: k, Rate: float64(k) / float64(n), Lo: lo, Hi: hi}
}

// ControlBlock is one block's aggregate.
type ControlBlock struct {
	// Seeds are track 0's seeds (each track shifts its own protocol's
	// seeds the same way, harness.ControlSeeds).
	Seeds []uint64 `json:"seeds"`
	// Tracks are the tracks in the block's aggregate.
	Tracks  []string `json:"tracks"`
	MeanPct float64  `json:"mean_pct"`
	PValue  float64  `json:"p_value"`
	EqLoPct float64  `json:"equivalence_lo_pct"`
	EqHiPct float64  `json:"equivalence_hi_pct"`
	Verdict string   `json:"verdict"`
}

// Control runs the control experiment of idea ic on blocks seed blocks of
// suite s: block k runs every development track with
// harness.ControlSeeds(p, base, k) and the idea grid protocol.Cfg.WithIdea of each
// baseline cfg, its trials stored under dir/NAME.trials, and aggregates
// the tracks the suite report would (informativeness is the baseline's,
// so it is decided per block). progress, when not nil, is called after
// each block.
func Control(ctx context.Context, s suitereport.Spec, ic idea.Config, blocks int, base uint64, dir, dataDir string, opt harness.Options, progress func(done int)) (*ControlResult, error) {
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("suite: %w", err)
	}
	if blocks < 1 || blocks > harness.MaxBlocks {
		return nil, fmt.Errorf("suite: control: blocks = %d; run 1 to %d (e.g. 100)", blocks, harness.MaxBlocks)
	}
	if _, err := idea.New(ic); err != nil {
		return nil, fmt.Errorf("suite: control: %w", err)
	}
	res := &ControlResult{Idea: ic, Blocks: blocks, SeedBase: base}
	type planned struct {
		spec  suitereport.TrackSpec
		p     protocol.Protocol
		store *trial.Store
	}
	var plan []planned
	for _, t := range s.Ordered() {
		if t.Confirm {
			continue
		}
		p, err := TrackProtocol(s, t, dataDir)
		if errors.Is(err, track.ErrNotFound) {
			res.Skipped = append(res.Skipped, suitereport.Skipped{Name: t.Name, Reason: err.Error()})
			continue
		}
		if err != nil {
			return nil, err
		}
		if last := harness.ControlSeeds(p, base, blocks-1); slices.Max(last) > harness.MaxControlSeed || slices.Max(last) < base {
			return nil, fmt.Errorf("suite: control: track %s: seed base %d and %d blocks reach seeds beyond %d; use a smaller base or fewer blocks", t.Name, base, blocks, uint64(harness.MaxControlSeed))
		}
		p.Ideas = nil
		if p.Tune != nil {
			t := *p.Tune
			t.Spaces = nil
			p.Tune = &t
		}
		// Block 0 at base 0 keeps the protocol's seeds; each block sets
		// its own below.
		p = harness.ControlProtocol(p, ic, 0, 0)
		store, err := trial.OpenStore(filepath.Join(dir, t.Name+".trials"))
		if err != nil {
			return nil, err
		}
		plan = append(plan, planned{t, p, store})
		res.Tracks = append(res.Tracks, t.Name)
	}
	if len(plan) == 0 {
		return nil, errors.New("suite: control: no development track to run (every data set is absent)")
	}
	o := stats.DefaultSuiteOptions(s.WithDefaults().MinEffectPct)
	o.Hier.Samples = 0 // not part of the verdict, and not reported per block
	res.Alpha = o.Alpha
	rejects := 0
	var dir0 stats.Direction
	for k := range blocks {
		var ts []stats.SuiteTrack
		var names []string
		var seeds0 []uint64
		for i, pl := range plan {
			q := pl.p
			q.Seeds = harness.ControlSeeds(pl.p, base, k)
			if i == 0 {
				seeds0 = q.Seeds
			}
			opt.Store = pl.store
			out, err := harness.Run(ctx, q, opt)
			if err != nil {
				return nil, fmt.Errorf("suite: control block %d, track %s: %w", k, pl.spec.Name, err)
			}
			t, err := trackArms(out.Report)
			if err != nil {
				return nil, fmt.Errorf("suite: control block %d, track %s: %w", k, pl.spec.Name, err)
			}
			d, err := direction(out.Report)
			if err != nil {
				return nil, err
			}
			if i == 0 && k == 0 {
				dir0 = d
			} else if d != dir0 {
				return nil, fmt.Errorf("suite: control: track %s: metric direction %s, but track %s's is %s; a suite compares one direction", pl.spec.Name, d, plan[0].spec.Name, dir0)
			}
			if inf := out.Report.Informativeness; s.IncludeAll || inf != nil && inf.CanJudge && !out.Report.Comparison.IdeaInert {
				ts, names = append(ts, t), append(names, pl.spec.Name)
			}
		}
		if len(ts) == 0 {
			res.NoAggregate++
			res.PerBlock = append(res.PerBlock, ControlBlock{Seeds: seeds0, Verdict: "no aggregate: no track can judge"})
			if progress != nil {
				progress(k + 1)
			}
			continue
		}
		agg, err := stats.Suite(ts, dir0, o)
		if err != nil {
			return nil, fmt.Errorf("suite: control block %d: %w", k, err)
		}
		res.PerBlock = append(res.PerBlock, ControlBlock{Seeds: seeds0, Tracks: names, MeanPct: agg.MeanPct, PValue: agg.PValue,
			EqLoPct: stats.Pct(agg.EqLo), EqHiPct: stats.Pct(agg.EqHi), Verdict: agg.Verdict})
		if agg.PValue < o.Alpha {
			rejects++
		}
		switch agg.Verdict {
		case stats.SuiteBetter:
			res.Better++
		case stats.SuiteWorse:
			res.Worse++
		case stats.SuiteEquivalent:
			res.Equivalent++
		default:
			res.Undecided++
		}
		if progress != nil {
			progress(k + 1)
		}
	}
	if n := blocks - res.NoAggregate; n > 0 {
		res.BetterRate = rateOf(res.Better, n)
		res.EquivalentRate = rateOf(res.Equivalent, n)
		res.RejectRate = rateOf(rejects, n)
	}
	return res, nil
}
