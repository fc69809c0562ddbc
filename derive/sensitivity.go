package derive

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
)

// sensitivity is the effect of idea arm (trial arm "idea" or "ideas[k]",
// sweep x of grid, chosen cfg xBest) at every setting the tune block
// drew, against the baseline's cfg of the same index (sweep b): nil
// when t does not tune the arm's parameters (no tune block, or an empty
// space: the idea at fixed settings). verdict is the arm's headline.
// Cfgs beyond the draws (a grid extension's) count as settings too:
// each copies a drawn one at another rate.
func sensitivity(t *protocol.Tune, arm string, grid []protocol.Cfg, b, x stats.Arm, xBest int, dir stats.Direction, alpha float64, verdict string) *report.Sensitivity {
	if t == nil || len(t.Spaces[arm]) == 0 || len(b.Test) < len(grid) {
		return nil
	}
	names := slices.Sorted(maps.Keys(t.Spaces[arm]))
	// sign turns a difference (idea minus baseline) into the idea's
	// improvement.
	sign := -1.0
	if dir == stats.HigherIsBetter {
		sign = 1
	}
	s := &report.Sensitivity{}
	var better, worse []string
	for j, c := range grid {
		d := make([]float64, len(x.Test[j]))
		e := report.SettingEffect{Cfg: c, Chosen: j == xBest}
		for i := range d {
			d[i] = x.Test[j][i] - b.Test[j][i]
			if sign*d[i] > 0 {
				e.Wins++
			}
		}
		m := stats.Summarize(d).Mean
		half := stats.MDE(d, alpha)
		e.DeltaMean, e.Lo, e.Hi = m, m-half, m+half
		e.Side = report.SideNoise
		lo, hi := min(sign*e.Lo, sign*e.Hi), max(sign*e.Lo, sign*e.Hi) // the improvement's interval
		switch at := settingText(c, names); {
		case lo > 0:
			e.Side = report.SideBetter
			better = append(better, at)
		case hi < 0:
			e.Side = report.SideWorse
			worse = append(worse, at)
		}
		s.Settings = append(s.Settings, e)
	}
	s.Reading = sensitivityReading(verdict, len(grid), better, worse)
	return s
}

// settingText names a setting by the parameters drawn and its rate:
// "bias 3.4 at lr 0.0229".
func settingText(c protocol.Cfg, names []string) string {
	ps := c.IdeaConfig().Params
	var parts []string
	for _, n := range names {
		v, _ := ps.Get(n)
		parts = append(parts, n+" "+strconv.FormatFloat(v, 'g', 3, 64))
	}
	return fmt.Sprintf("%s at lr %g", strings.Join(parts, ", "), c.LR)
}

// sensitivityReading is Sensitivity.Reading: of n settings, those
// better and worse than the baseline beyond seed noise, against the
// arm's verdict.
func sensitivityReading(verdict string, n int, better, worse []string) string {
	where := func(side string, at []string) string {
		return fmt.Sprintf("%s at %d of %d (%s)", side, len(at), n, strings.Join(at, "; "))
	}
	decided := verdict == stats.VerdictWin || verdict == stats.VerdictLoss
	switch {
	case len(better) > 0 && len(worse) > 0:
		return fmt.Sprintf("the sign depends on the setting: %s, %s; the verdict (%s) is the chosen setting's, not the idea's at every start", where("better", better), where("worse", worse), verdict)
	case len(better) > 0 && verdict == stats.VerdictLoss, len(worse) > 0 && verdict == stats.VerdictWin:
		side := where("better", better)
		if len(worse) > 0 {
			side = where("worse", worse)
		}
		return fmt.Sprintf("the verdict (%s) flips with the setting: %s", verdict, side)
	case !decided && (len(better) > 0 || len(worse) > 0):
		side := where("better", better)
		if len(worse) > 0 {
			side = where("worse", worse)
		}
		return fmt.Sprintf("%s, within seed noise elsewhere; the verdict (%s) counts the search over them, which these intervals, one setting at a time, do not", side, verdict)
	case len(better) > 0:
		return fmt.Sprintf("%s, within seed noise elsewhere, worse at none: the verdict (%s) holds across the settings drawn", where("better", better), verdict)
	case len(worse) > 0:
		return fmt.Sprintf("%s, within seed noise elsewhere, better at none: the verdict (%s) holds across the settings drawn", where("worse", worse), verdict)
	}
	return fmt.Sprintf("within seed noise of the baseline at each of the %d settings drawn: the verdict (%s) holds across them", n, verdict)
}
