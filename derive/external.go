package derive

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"

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

// RerunTrial is the external trial whose trainer runs a second time to
// measure its determinism: a draw, seeded by the protocol's id (less its
// seeds and sequential design), among the
// external trials that did not diverge; false when there is none.
func RerunTrial(p protocol.Protocol, trials []protocol.Trial, results []trial.Result) (int, bool) {
	var eligible []int
	for i, t := range trials {
		if p.TrainerOf(t.Arm) != nil && !results[i].Diverged {
			eligible = append(eligible, i)
		}
	}
	if len(eligible) == 0 {
		return 0, false
	}
	// Seeded by the protocol without its seeds and sequential design, so a
	// sequential run's last look draws as its final report does.
	q := p
	q.Seeds, q.Sequential = nil, nil
	sum := sha256.Sum256([]byte(q.ID()))
	r := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])))
	return eligible[r.IntN(len(eligible))], true
}

// external is the report's external block: the arms with a trainer, in
// the protocol's order, and the rerun check. Its trial is the draw of
// RerunTrial; of the measurement only identical, max_abs_diff and
// rel_diff are taken (identical only with no difference), and tolerance
// and reproduced are derived. drawn says whether there was a trial to
// draw.
func external(p protocol.Protocol, trials []protocol.Trial, results []trial.Result, rerun *protocol.Reproduction) (*report.External, bool) {
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
	i, drawn := RerunTrial(p, trials, results)
	if rerun != nil && drawn && (rerun.Arm != trials[i].Arm || rerun.Cfg != trials[i].Cfg || rerun.Seed != trials[i].Seed) {
		rerun = nil // a check of another trial than the draw's: missing
	}
	if rerun != nil && drawn {
		t := trials[i]
		m := protocol.Reproduction{Arm: t.Arm, Cfg: t.Cfg, Seed: t.Seed, MaxAbsDiff: rerun.MaxAbsDiff, RelDiff: rerun.RelDiff,
			Tolerance: p.TrainerOf(t.Arm).RerunTolerance()}
		m.Identical = rerun.Identical && m.MaxAbsDiff == 0 && m.RelDiff == 0
		m.Reproduced = m.RelDiff <= m.Tolerance
		e.Rerun = &m
	}
	return e, drawn
}

// externalWarnings says when the external trainers' determinism was not
// checked or not reproduced.
func externalWarnings(p protocol.Protocol, e *report.External, drawn bool) []string {
	m := e.Rerun
	switch {
	case m == nil && !drawn:
		return []string{"rerun check not made: every external trial diverged, so no trial could be trained a second time to check that its trainer is deterministic"}
	case m == nil:
		return []string{"rerun check missing: no external trial was trained a second time, so nothing says its trainer is deterministic; run the protocol again to make the check"}
	case m.Reproduced:
		return nil
	}
	return []string{fmt.Sprintf("not reproduced: external trial %s cfg %d seed %d, trained a second time, gave forecasts that differ from the first run's by up to %.3g (%.3g of their root mean square; tolerance %.3g): its trainer is not deterministic for a given seed, so the seed-paired comparison carries noise the seeds do not control; seed every source of randomness from the trial's seed (and use deterministic kernels and a fixed thread count), or raise trainers.%s.rerun_tolerance",
		m.Arm, m.Cfg, m.Seed, m.MaxAbsDiff, m.RelDiff, m.Tolerance, p.ArmName(m.Arm))}
}
