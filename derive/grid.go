package derive

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
)

// gridEdges warns, for each numeric field that varies over the arm's grid
// cs, when the chosen cfg cs[best] takes that field's smallest or largest
// value: the best value may lie beyond the grid. A parameter the tune
// block t draws for the arm (t.Spaces[arm]) is no grid: its warning says
// the values drawn, the range they came from, and the two ways past
// them, more cfgs (--tune) or a range beyond the choice (--idea
// NAME:KEY=LO..HI, one the parameter accepts).
func gridEdges(arm string, cs []protocol.Cfg, best int, t *protocol.Tune) []string {
	var out []string
	for _, f := range protocol.FieldsOf(cs) {
		if !f.Varies(cs) {
			continue
		}
		v := f.Value(cs[best])
		lo, hi := v, v
		vals := make([]string, len(cs))
		for i, c := range cs {
			x := f.Value(c)
			lo, hi = min(lo, x), max(hi, x)
			vals[i] = fmt.Sprint(x)
		}
		if v != lo && v != hi {
			continue
		}
		side := "smallest"
		if v == hi {
			side = "largest"
		}
		// An idea's parameter is params.KEY, the gate's the cfg's own rho
		// and beta.
		if param := strings.TrimPrefix(f.Key, "params."); t != nil {
			if r, drawn := t.Spaces[arm][param]; drawn {
				out = append(out, searchEdge(arm, cs[best].IdeaConfig().Name, f.Key, param, v, side, vals, r, t.Cfgs))
				continue
			}
		}
		out = append(out, fmt.Sprintf("grid edge: the %s arm's chosen cfg has %s = %v, the %s of its grid {%s}; the best value may lie beyond it: extend the grid past it",
			arm, f.Key, v, side, strings.Join(vals, ", ")))
	}
	return out
}

// searchEdge is gridEdges' warning for the parameter param of idea name
// (the cfg's field key), drawn from range r, cfgs cfgs to an arm, whose
// chosen value v is the side ("smallest" or "largest") of the values
// drawn.
func searchEdge(arm, name, key, param string, v float64, side string, vals []string, r idea.Range, cfgs int) string {
	w := fmt.Sprintf("search edge: the %s arm's chosen cfg has %s = %v, the %s of the values drawn {%s} from its range %s; the best value may lie past the draws: draw more cfgs (--tune %d)",
		arm, key, v, side, strings.Join(vals, ", "), r, 2*cfgs)
	if past, ok := rangePast(name, param, v, side == "largest", r); ok {
		w += fmt.Sprintf(" or search from the choice on (--idea %s:%s=%s)", name, param, past)
	}
	return w
}

// rangePast is a range of parameter param of idea name that starts at v
// and runs past it away from the rest of the draws (up when up), as wide
// as r on r's scale, or narrower until idea.New takes its far end; ok
// false when no such end is found (v is at the parameter's own bound).
// A range of listed values has no way past it.
func rangePast(name, param string, v float64, up bool, r idea.Range) (string, bool) {
	if len(r.Values) > 0 {
		return "", false
	}
	ok := func(x float64) bool {
		_, err := idea.New(idea.Config{Name: name, Params: idea.NewParams(map[string]float64{param: x})})
		return err == nil && !math.IsNaN(x) && !math.IsInf(x, 0)
	}
	for width := 1.0; width > 1.0/64; width /= 2 {
		var far float64
		switch r.Scale {
		case idea.ScaleLog:
			if !(v > 0) {
				return "", false
			}
			f := math.Pow(r.Hi/r.Lo, width)
			far = v * f
			if !up {
				far = v / f
			}
		default:
			d := (r.Hi - r.Lo) * width
			if r.Scale == idea.ScaleInt {
				d = math.Max(1, math.Round(d))
			}
			far = v + d
			if !up {
				far = v - d
			}
		}
		far, _ = strconv.ParseFloat(strconv.FormatFloat(far, 'g', 3, 64), 64)
		if far == v || !ok(far) {
			continue
		}
		lo, hi := min(v, far), max(v, far)
		return idea.Range{Lo: lo, Hi: hi, Scale: r.Scale}.String(), true
	}
	return "", false
}
