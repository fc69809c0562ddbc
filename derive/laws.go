package derive

import (
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
)

// gateOrNone reports whether a cfg trains the gate or no idea at all (rho
// and beta 0, the baseline): the cfgs with a row in the seed report's
// math check.
func gateOrNone(c protocol.Cfg) bool { return c.Idea == "" || c.Idea == "gate" }

// mathCheck runs the gate's math check (idea.GateMath) for every cfg of
// the idea arm that trains the gate (or nothing: rho and beta 0), and the
// laws (idea.LawsOf) of every distinct idea setting of the arms, first to
// last, that has a theory.
func mathCheck(arms ...[]protocol.Cfg) (report.MathCheck, error) {
	mc := report.MathCheck{Confirmed: true}
	for _, c := range arms[0] {
		if !gateOrNone(c) {
			continue
		}
		r, err := idea.GateMath(c.Rho, c.Beta)
		if err != nil {
			return report.MathCheck{}, err
		}
		mc.Confirmed = mc.Confirmed && r.Holds()
		mc.Rows = append(mc.Rows, r)
	}
	laws, err := ideaLaws(arms...)
	if err != nil {
		return report.MathCheck{}, err
	}
	for _, l := range laws {
		mc.Confirmed = mc.Confirmed && l.Holds
	}
	mc.Laws = laws
	return mc, nil
}

// ideaLaws returns the laws of every distinct idea setting of the arms
// with a theory, in order of first appearance.
func ideaLaws(arms ...[]protocol.Cfg) ([]report.IdeaLaws, error) {
	var out []report.IdeaLaws
	seen := map[idea.Config]bool{}
	for _, arm := range arms {
		for _, c := range arm {
			ic := c.IdeaConfig()
			if ic.IsZero() || seen[ic] {
				continue
			}
			seen[ic] = true
			laws, err := idea.LawsOf(ic)
			if err != nil {
				return nil, err
			}
			if laws != nil {
				out = append(out, report.IdeaLaws{Idea: ic.Name, Params: ic.Params, Laws: laws, Holds: idea.AllHold(laws)})
			}
		}
	}
	return out, nil
}
