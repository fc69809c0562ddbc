package derive

import (
	"fmt"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"
)

// theorised is the cfgs of arm whose idea has a theory the math check can
// read: all of them for the built-in model, which validated them; for an
// external trainer, whose cfgs name what it understands, those whose idea
// is registered here and builds with its parameters.
func theorised(p protocol.Protocol, arm string, cs []protocol.Cfg) []protocol.Cfg {
	if p.TrainerOf(arm) == nil {
		return cs
	}
	var out []protocol.Cfg
	for _, c := range cs {
		if ic := c.IdeaConfig(); ic.IsZero() {
			out = append(out, c)
		} else if _, err := idea.New(ic); err == nil {
			out = append(out, c)
		}
	}
	return out
}

// external is the report's external block: the arms with a trainer, in
// the protocol's order, and the rerun check with its tolerance (the
// trainer's) and verdict derived from what was measured.
func external(p protocol.Protocol, rerun *trial.Reproduction) *report.External {
	e := &report.External{Arms: []string{}}
	arms := []string{"baseline", "idea"}
	for k := range p.Ideas {
		arms = append(arms, protocol.IdeasArm(k))
	}
	for _, a := range arms {
		if p.TrainerOf(a) != nil {
			e.Arms = append(e.Arms, p.ArmName(a))
		}
	}
	if rerun != nil {
		m := *rerun
		m.Tolerance = 0
		if tr := p.TrainerOf(m.Arm); tr != nil {
			m.Tolerance = tr.RerunTolerance()
		}
		m.Reproduced = m.Identical || m.RelDiff <= m.Tolerance
		e.Rerun = &m
	}
	return e
}

// externalWarnings says when the external trainers' determinism was not
// checked or not reproduced.
func externalWarnings(p protocol.Protocol, e *report.External) []string {
	m := e.Rerun
	switch {
	case m == nil:
		return []string{"rerun check not made: every external trial diverged, so no trial could be trained a second time to check that its trainer is deterministic"}
	case m.Reproduced:
		return nil
	}
	return []string{fmt.Sprintf("not reproduced: external trial %s cfg %d seed %d, trained a second time, gave forecasts that differ from the first run's by up to %.3g (%.3g of their root mean square; tolerance %.3g): its trainer is not deterministic for a given seed, so the seed-paired comparison carries noise the seeds do not control; seed every source of randomness from the trial's seed (and use deterministic kernels and a fixed thread count), or raise trainers.%s.rerun_tolerance",
		m.Arm, m.Cfg, m.Seed, m.MaxAbsDiff, m.RelDiff, m.Tolerance, p.ArmName(m.Arm))}
}
