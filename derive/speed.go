package derive

import (
	"fmt"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/trial"
)

// chosen is one arm's chosen cfg: its trial arm name ("baseline",
// "idea", "ideas[k]"), its report name and the cfg's index in its grid.
type chosen struct {
	arm, name string
	cfg       int
}

// timeToTarget is the accuracy block's time to target
// (report.TimeToTarget) of the chosen cfgs picks (the baseline's first,
// then the idea arm's and each of ideas'), read from their trials' val
// accuracy curves against the target of the val references val (the
// ceiling the test references' oracle); each
// idea arm's comparison in cs (in picks' order after the baseline) gets
// a mark that says whether it learns faster and whether it ends better.
// Nil, with ok false, when some trial of a chosen cfg recorded no curve
// (a record of an earlier build); nil with ok true when the references
// give no target.
func timeToTarget(p protocol.Protocol, trials []protocol.Trial, results []trial.Result, val, test []track.TokenReference, picks []chosen, cs []*report.Comparison) (tt *report.TimeToTarget, ok bool, err error) {
	floor, ceiling, target, ok := solveTarget(val, test)
	if !ok {
		return nil, true, nil
	}
	times := make([]report.ArmTimes, len(picks))
	for i, c := range picks {
		var ok bool
		if times[i], ok = armTimes(trials, results, c.arm, c.cfg, target); !ok {
			return nil, false, nil
		}
	}
	tt = &report.TimeToTarget{
		Rule: fmt.Sprintf("the steps to the first val checkpoint at or above the target (the best val reference's accuracy plus %g of the way to the ceiling), censored at the cfg's budget of steps; arms compared on min(steps, budget) seed by seed",
			report.SolveFraction),
		Floor: floor, Ceiling: ceiling, Target: target, Baseline: times[0],
	}
	b := times[0]
	opt := stats.DefaultOptions()
	opt.Alpha = p.Alpha
	for i, x := range times[1:] {
		pt := report.PairedTimes{Name: picks[i+1].name, ArmTimes: x, PValue: 1}
		switch {
		case x.Budget != b.Budget || x.Every != b.Every || len(x.Steps) != len(b.Steps):
			pt.Reading = report.TimeBudgetsDif
		case !anyTrue(x.Reached) && !anyTrue(b.Reached):
			pt.Reading = report.TimeNeither
		default:
			bs, xs := floats(b.Steps), floats(x.Steps)
			c, err := stats.Compare(bs, xs, stats.LowerIsBetter, &opt)
			if err != nil {
				return nil, true, fmt.Errorf("derive: time to target of %s: %w", pt.Name, err)
			}
			pt.DeltaMean, pt.PValue = c.DeltaMean, c.PValue
			if len(bs) >= 2 {
				iv, err := stats.IntervalsOf(bs, xs, stats.LowerIsBetter, p.Alpha, p.Seeds[0])
				if err != nil {
					return nil, true, fmt.Errorf("derive: time to target of %s: %w", pt.Name, err)
				}
				pt.Intervals = &iv
			}
			switch c.Verdict {
			case stats.VerdictWin:
				pt.Reading = report.TimeFaster
			case stats.VerdictLoss:
				pt.Reading = report.TimeSlower
			default:
				pt.Reading = report.TimeNoFaster
			}
		}
		tt.Arms = append(tt.Arms, pt)
		if i < len(cs) {
			cs[i].Marks = append(cs[i].Marks, speedMark(pt, b, cs[i].Verdict, target))
		}
	}
	return tt, true, nil
}

// speedMark says whether an arm learns faster and whether it ends better
// (its verdict), the two readings of a token track: "head: numbers", as
// every mark, so that a verdict tag shows the head.
func speedMark(pt report.PairedTimes, b report.ArmTimes, verdict string, target float64) string {
	end := "ends no better"
	switch verdict {
	case stats.VerdictWin:
		end = "ends better"
	case stats.VerdictLoss:
		end = "ends worse"
	}
	switch pt.Reading {
	case report.TimeFaster, report.TimeSlower, report.TimeNoFaster:
		return fmt.Sprintf("%s and %s: steps to val accuracy %.3g, %.0f against the baseline's %.0f of %d, p = %.3g; %d of %d seeds get there, the baseline's %d",
			pt.Reading, end, target, pt.RestrictedMean, b.RestrictedMean, b.Budget, pt.PValue, count(pt.Reached), len(pt.Reached), count(b.Reached))
	case report.TimeNeither:
		return fmt.Sprintf("%s: neither arm reaches val accuracy %.3g within %d steps", end, target, pt.Budget)
	}
	return fmt.Sprintf("%s: time to target not compared, the budgets differ", end)
}

// armTimes reads the chosen cfg cfg of arm: each seed's val accuracy
// curve (in trial order, the protocol's seeds), its steps to target and
// whether it got there. ok false when a trial recorded no curve.
func armTimes(trials []protocol.Trial, results []trial.Result, arm string, cfg int, target float64) (report.ArmTimes, bool) {
	var a report.ArmTimes
	for i, t := range trials {
		if t.Arm != arm || t.Cfg != cfg {
			continue
		}
		r := results[i]
		if r.ValEvery < 1 || r.Steps < 1 {
			return report.ArmTimes{}, false
		}
		if len(a.Steps) > 0 && (r.ValEvery != a.Every || r.Steps != a.Budget) {
			return report.ArmTimes{}, false // one cfg trains one budget
		}
		a.Every, a.Budget = r.ValEvery, r.Steps
		steps, reached := r.Steps, false
		for k, v := range r.ValAccCurve {
			if v >= target {
				steps, reached = min((k+1)*r.ValEvery, r.Steps), true
				break
			}
		}
		a.Curves = append(a.Curves, append([]float64{}, r.ValAccCurve...))
		a.Steps = append(a.Steps, steps)
		a.Reached = append(a.Reached, reached)
	}
	if len(a.Steps) == 0 {
		return report.ArmTimes{}, false
	}
	a.RestrictedMean = stats.Summarize(floats(a.Steps)).Mean
	return a, true
}

func floats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	return out
}

func anyTrue(bs []bool) bool { return count(bs) > 0 }

func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
