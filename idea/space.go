package idea

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/ideabench/ideabench/internal/num"
)

// Range is the values a tuned setting may take: the interval [Lo, Hi],
// drawn uniformly on a linear, log or whole-number scale, or one of
// Values.
type Range struct {
	Lo float64 `json:"lo,omitempty"`
	Hi float64 `json:"hi,omitempty"`
	// Scale is "linear" (or ""), "log" (a rate, a scale: uniform in log)
	// or "int" (the whole numbers of [Lo, Hi], each as likely).
	Scale string `json:"scale,omitempty"`
	// Values, when set, are the values drawn from, each as likely; Lo,
	// Hi and Scale are then unset.
	Values []float64 `json:"values,omitempty"`
}

// The scales of a Range.
const (
	ScaleLinear = "linear"
	ScaleLog    = "log"
	ScaleInt    = "int"
)

// Validate reports what makes r no range: an unknown scale, bounds not
// finite or in reverse, a log range that is not positive, an int range
// without a whole number, Values beside bounds or not finite.
func (r Range) Validate() error {
	if len(r.Values) > 0 {
		if r.Lo != 0 || r.Hi != 0 || r.Scale != "" {
			return errors.New("give values or lo, hi and scale, not both")
		}
		for _, v := range r.Values {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("values: %v is not a finite number", v)
			}
		}
		return nil
	}
	switch {
	case math.IsNaN(r.Lo) || math.IsInf(r.Lo, 0) || math.IsNaN(r.Hi) || math.IsInf(r.Hi, 0):
		return fmt.Errorf("lo = %v, hi = %v: the bounds must be finite numbers", r.Lo, r.Hi)
	case r.Lo > r.Hi:
		return fmt.Errorf("lo = %v is above hi = %v; give the smaller bound first", r.Lo, r.Hi)
	}
	switch r.Scale {
	case "", ScaleLinear:
	case ScaleLog:
		if !(r.Lo > 0) {
			return fmt.Errorf("lo = %v: a log range needs bounds > 0; use a linear one, or lo > 0", r.Lo)
		}
	case ScaleInt:
		if math.Floor(r.Hi) < math.Ceil(r.Lo) {
			return fmt.Errorf("[%v, %v] holds no whole number", r.Lo, r.Hi)
		}
	default:
		return fmt.Errorf("scale = %q: use %s, %s or %s", r.Scale, ScaleLinear, ScaleLog, ScaleInt)
	}
	return nil
}

// Fixed reports whether r holds one value, and which.
func (r Range) Fixed() (float64, bool) {
	switch {
	case len(r.Values) == 1:
		return r.Values[0], true
	case len(r.Values) == 0 && r.Lo == r.Hi:
		return r.Lo, true
	}
	return 0, false
}

// At is the value of r at u in [0,1): the quantile of its uniform
// distribution (Lo + u·(Hi-Lo) on a linear scale, exp of that of the
// logs on a log scale, the ⌊u·n⌋-th of its n whole numbers or values).
func (r Range) At(u float64) float64 {
	u = min(max(u, 0), math.Nextafter(1, 0))
	if n := len(r.Values); n > 0 {
		return r.Values[int(u*float64(n))]
	}
	switch r.Scale {
	case ScaleLog:
		return math.Exp(math.Log(r.Lo) + u*(math.Log(r.Hi)-math.Log(r.Lo)))
	case ScaleInt:
		lo, hi := math.Ceil(r.Lo), math.Floor(r.Hi)
		return lo + math.Floor(u*(hi-lo+1))
	}
	return r.Lo + u*(r.Hi-r.Lo)
}

// Clamp is the value of r nearest x: x itself where r holds it, else
// the bound (or listed value) closest to it, a whole number on an int
// scale.
func (r Range) Clamp(x float64) float64 {
	if len(r.Values) > 0 {
		best := r.Values[0]
		for _, v := range r.Values[1:] {
			if math.Abs(v-x) < math.Abs(best-x) {
				best = v
			}
		}
		return best
	}
	x = min(max(x, r.Lo), r.Hi)
	if r.Scale == ScaleInt {
		x = min(max(math.Round(x), math.Ceil(r.Lo)), math.Floor(r.Hi))
	}
	return x
}

// String writes r as the command line takes it: lo..hi, with /log or
// /int after a scale other than linear, or the values as a|b|c.
func (r Range) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	if len(r.Values) > 0 {
		var vs []string
		for _, v := range r.Values {
			vs = append(vs, f(v))
		}
		return strings.Join(vs, "|")
	}
	s := f(r.Lo) + ".." + f(r.Hi)
	if r.Scale != "" && r.Scale != ScaleLinear {
		s += "/" + r.Scale
	}
	return s
}

// ParseRange reads a range as String writes it: lo..hi[/log|/int], or
// a|b|c. A plain number is no range (ok false), for the caller to read
// as a fixed value.
func ParseRange(s string) (r Range, ok bool, err error) {
	switch {
	case strings.Contains(s, "|"):
		for _, v := range strings.Split(s, "|") {
			x, err := num.ParseDecimal(v)
			if err != nil {
				return Range{}, true, fmt.Errorf("%s in %s: %v; write values as a|b|c", num.Quote(v), num.Quote(s), err)
			}
			r.Values = append(r.Values, x)
		}
	case strings.Contains(s, ".."):
		bounds, scale, _ := strings.Cut(s, "/")
		lo, hi, _ := strings.Cut(bounds, "..")
		var e1, e2 error
		r.Lo, e1 = num.ParseDecimal(lo)
		r.Hi, e2 = num.ParseDecimal(hi)
		if err := errors.Join(e1, e2); err != nil {
			return Range{}, true, fmt.Errorf("%s: %v; write a range as lo..hi, lo..hi/log or lo..hi/int", num.Quote(s), err)
		}
		r.Scale = scale
	default:
		return Range{}, false, nil
	}
	return r, true, r.Validate()
}

// Space is what an idea's parameters may take in a search: a range for
// each one tuned, by name.
type Space map[string]Range

// SpaceOf is the search space of the registered idea name, as its papers
// state or tune it (Param.Space): every parameter with a declared range.
// Empty for an idea with none (it is tuned over the learning rate alone)
// or an unregistered name.
func SpaceOf(name string) Space {
	s, _ := Lookup(name)
	out := Space{}
	for _, p := range s.Params {
		if p.Space != nil {
			out[p.Name] = *p.Space
		}
	}
	return out
}
