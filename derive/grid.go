package derive

import (
	"fmt"
	"strings"

	"github.com/ideabench/ideabench/protocol"
)

// gridEdges warns, for each numeric field that varies over the arm's grid
// cs, when the chosen cfg cs[best] takes that field's smallest or largest
// value: the best value may lie beyond the grid.
func gridEdges(arm string, cs []protocol.Cfg, best int) []string {
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
		out = append(out, fmt.Sprintf("grid edge: the %s arm's chosen cfg has %s = %v, the %s of its grid {%s}; the best value may lie beyond it: extend the grid past it",
			arm, f.Key, v, side, strings.Join(vals, ", ")))
	}
	return out
}
