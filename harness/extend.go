package harness

import (
	"context"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/protocol"
)

// runExtended runs a protocol with a grid extension (GridExtension):
// round k trains the grids of round k (Run, reusing the trials of the
// earlier rounds), each arm chooses its cfg, and Extend says whether the
// grids grow; the report is derived from the last round's trials
// (Derive replays the rounds). A sharded run trains its share of the
// starting grids only, and Merge runs the later rounds, which need every
// shard's results to decide.
func runExtended(ctx context.Context, p protocol.Protocol, opt Options) (*Outcome, error) {
	// Rounds share their trials through a store.
	cleanup, err := ensureStore(&opt, "a grid extension")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	q := p
	q.ExtendGrid = nil
	computed := 0
	var o *Outcome
	for round := 0; ; round++ {
		ro := opt
		ro.round = true
		var err error
		if o, err = runPart(ctx, q, ro, &computed); err != nil {
			return o, err
		}
		if round == 0 {
			// The manifest names the protocol with its extension, so a
			// merge of the directory replays the rounds.
			if err := opt.Store.WriteManifest(p, o.data.SHA256, opt.Shard, max(opt.Shards, 1)); err != nil {
				return nil, err
			}
		}
		if opt.Shards > 1 {
			return o, nil
		}
		chosen, err := derive.Choices(q, o.Trials, o.Results)
		if err != nil {
			return nil, err
		}
		next, _, more := q.Extend(p.ExtendGrid, round, chosen)
		if !more {
			break
		}
		q = next
	}
	// The report, after the determinism check of the external trainers.
	var rerun *protocol.Reproduction
	if p.External() {
		ws, _, err := workspace(p, opt.Store)
		if err != nil {
			return nil, err
		}
		if rerun, err = rerunCheck(ctx, ws, nil, q, o.Data, o.data.SHA256, o.Trials, o.Results); err != nil {
			return o, err
		}
	}
	r, err := derive.Assemble(p, o.data, o.Trials, o.Results, rerun)
	if err != nil {
		return nil, err
	}
	o.Report = r
	o.Reused, o.Computed = max(0, len(o.Trials)-computed), computed
	return o, nil
}
