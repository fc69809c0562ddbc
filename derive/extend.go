package derive

import (
	"fmt"
	"slices"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/trial"
)

// Choices are the cfgs each arm of q chooses (in the order of q.Arms())
// from the trials of q and their results: the report's selection
// (stats.Arm.Select on val, diverged trials counted as the worst), each
// marked tied when a cfg at another rate has the same diverged seeds and
// val mean.
func Choices(q protocol.Protocol, trials []protocol.Trial, results []trial.Result) ([]protocol.Pick, error) {
	results, _, err := substitute(q, trials, results)
	if err != nil {
		return nil, err
	}
	var out []protocol.Pick
	for _, arm := range q.Arms() {
		grid := q.Grid(arm)
		a := armTable(trials, results, arm, len(grid))
		c := protocol.Pick{Cfg: a.Select(q.Direction())}
		key := func(j int) (int, float64) {
			return len(slices.DeleteFunc(slices.Clone(a.Diverged[j]), func(d bool) bool { return !d })), stats.Summarize(a.Val[j]).Mean
		}
		bd, bm := key(c.Cfg)
		for j := range grid {
			if d, m := key(j); grid[j].LR != grid[c.Cfg].LR && d == bd && m == bm {
				c.Tied = true
			}
		}
		out = append(out, c)
	}
	return out, nil
}

// ExtendRounds replays the grid extension of p (p.ExtendGrid) on the
// results of the trials that ran: from p's grids, each round's choices
// (Choices) decide the next grids (Protocol.Extend) until one does not
// grow. It returns the protocol of the last grids, without the
// extension, and the rounds' records; an error when a round needs a
// trial that did not run.
func ExtendRounds(p protocol.Protocol, trials []protocol.Trial, results []trial.Result) (protocol.Protocol, []protocol.Extension, error) {
	q := p
	q.ExtendGrid = nil
	at := make(map[protocol.Trial]int, len(trials))
	for i, t := range trials {
		at[t] = i
	}
	var recs []protocol.Extension
	for round := 0; ; round++ {
		ts := q.Trials()
		rs := make([]trial.Result, len(ts))
		for i, t := range ts {
			j, ok := at[t]
			if !ok {
				return q, recs, fmt.Errorf("derive: derive: round %d of the grid extension needs trial %s cfg %d seed %d, which did not run", round, t.Arm, t.Cfg, t.Seed)
			}
			rs[i] = results[j]
		}
		chosen, err := Choices(q, ts, rs)
		if err != nil {
			return q, recs, err
		}
		next, rec, more := q.Extend(p.ExtendGrid, round, chosen)
		recs = append(recs, rec)
		if !more {
			return q, recs, nil
		}
		q = next
	}
}

// deriveExtended derives the report of a protocol with a grid
// extension: the report of its last grids (ExtendRounds), whose trials
// must be those that ran, with the rounds' record and the protocol as
// given.
func deriveExtended(in Inputs) (*report.Report, error) {
	p := in.Protocol
	q, recs, err := ExtendRounds(p, in.Trials, in.Results)
	if err != nil {
		return nil, err
	}
	if err := checkTrials(q, in.Trials, in.Results); err != nil {
		return nil, fmt.Errorf("%w; the grid extension's replay grew the grids to %d, %d cfgs (baseline, idea)", err, len(q.Baseline), len(q.Idea))
	}
	sub := in
	sub.Protocol = q
	r, err := derive(sub)
	if err != nil {
		return nil, err
	}
	r.Setup.Protocol = p
	r.GridExtension = recs
	r.Seal()
	return r, nil
}
