package harness

import (
	"cmp"
	"context"
	"fmt"
	"os"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"
)

// runSequential runs p's looks (see Sequential): look k runs the
// protocol on its first n_k seeds (Run, reusing the earlier looks'
// trials) and decides on that look's report; the report of the last
// look's trials is then derived with the design (Derive).
func runSequential(ctx context.Context, p protocol.Protocol, opt Options) (*Outcome, error) {
	s := p.Sequential
	// Looks share their trials through a store.
	cleanup, err := ensureStore(&opt, "a sequential run")
	if err != nil {
		return nil, err
	}
	defer cleanup()
	d, err := dataWithin(ctx, p, opt)
	if err != nil {
		return nil, err
	}
	if err := p.Estimate(d.Dataset, len(p.Trials()), trial.Costs(p)).Check(opt.Limits, opt.workers()); err != nil {
		return nil, err
	}
	if _, err := p.References(d.Dataset); err != nil {
		return nil, err
	}
	seeds := s.AllSeeds(p.Seeds)
	sizes := s.LookSizes(len(p.Seeds))
	rec := &report.SequentialReport{Spending: cmp.Or(s.Spending, protocol.SpendOBrienFleming), MaxSeeds: s.MaxSeeds}
	var last *Outcome
	computed := 0
	for _, n := range sizes {
		q := p
		q.Seeds, q.Sequential = seeds[:n], nil
		lookOpt := opt
		lookOpt.look = true
		o, err := runPart(ctx, q, lookOpt, &computed)
		if err != nil {
			return o, err
		}
		last = o
		if derive.AddLook(rec, o.Report, p.Alpha) {
			break
		}
	}
	// The last look's facts (a look runs no rerun check) under the
	// design's protocol.
	raw, _ := last.Report.ReadInputs()
	in := derive.Inputs{Facts: raw.Facts, Trials: last.Trials, Results: last.Results}
	in.Protocol = p
	if p.External() { // p is pinned (Run)
		ws, _, err := workspace(p, opt.Store)
		if err != nil {
			return nil, err
		}
		if in.Rerun, err = rerunCheck(ctx, ws, nil, p, d.Dataset, d.SHA256, last.Trials, last.Results); err != nil {
			return last, err
		}
	}
	r, err := derive.Derive(in)
	if err != nil {
		return nil, err
	}
	last.Report = r
	last.Reused, last.Computed = len(last.Trials)-computed, computed
	if last.Reused < 0 {
		last.Reused = 0
	}
	return last, nil
}

// ensureStore gives opt a store in a temporary directory when it has
// none, for a run (what, in messages) whose rounds share their trials;
// cleanup removes that directory.
func ensureStore(opt *Options, what string) (cleanup func(), err error) {
	if opt.Store != nil {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "ideabench-rounds-")
	if err != nil {
		return nil, fmt.Errorf("harness: %s without a results directory: %w", what, err)
	}
	if opt.Store, err = trial.OpenStore(dir); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return func() { os.RemoveAll(dir) }, nil
}

// runPart runs one part of a run whose parts share their trials (a
// sequential look, a round of a grid extension) and adds the trials it
// trained to computed; on an error the outcome's counts are the whole
// run's so far.
func runPart(ctx context.Context, q protocol.Protocol, opt Options, computed *int) (*Outcome, error) {
	o, err := Run(ctx, q, opt)
	earlier := *computed // trained by earlier parts, reused by this one
	if o != nil {
		*computed += o.Computed
	}
	if err != nil && o != nil {
		o.Reused, o.Computed = max(0, o.Reused-earlier), *computed
	}
	return o, err
}
