package idea

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Spec is a registered idea: its name, what it does, its parameters and
// its constructor.
type Spec struct {
	Name string
	// Doc says what the idea does, in one line.
	Doc string
	// Rationale says in a sentence what the idea acts on, why a track
	// could show it; a report's track_rationale is the track's
	// description followed by it. Empty for none.
	Rationale string
	// Params are its parameters, with the value each takes when a config
	// leaves it out.
	Params []Param
	// New builds the idea from validated parameters (every Param present,
	// finite); it reports any further range error naming the parameter.
	New func(p Params) (Idea, error)
	// Off are parameters (over the defaults) at which the idea is the
	// identity, so the model is the baseline bit for bit; nil when no
	// setting is.
	Off map[string]float64
}

// Param is one parameter of a registered idea.
type Param struct {
	Name    string
	Default float64
	Doc     string
	// Space, when set, is the range a search draws the parameter from
	// (SpaceOf), and Source where its papers state or tune it; nil for
	// a parameter its papers fix (it stays at Default).
	Space  *Range
	Source string
}

// registry lists every shipped idea: one line each.
var registry = []Spec{
	gateSpec,
	rezeroSpec,
	layerScaleSpec,
	sigmoidSpec,
	emaSpec,
	convSpec,
	calibSpec,
	foxSpec,
	alibiSpec,
	qkNormSpec,
	gatedAttnSpec,
	gatedConvSpec,
	rmsNormSpec,
	swiGLUSpec,
	aaSpec,
}

// Names lists the registered ideas in registry order.
func Names() []string {
	var out []string
	for _, s := range registry {
		out = append(out, s.Name)
	}
	return out
}

// Lookup returns the registered idea of that name.
func Lookup(name string) (Spec, bool) {
	i := slices.IndexFunc(registry, func(s Spec) bool { return s.Name == name })
	if i < 0 {
		return Spec{}, false
	}
	return registry[i], true
}

// RationaleOf is the rationale of c's idea (Spec.Rationale); empty for
// the plain model or an unregistered name.
func RationaleOf(c Config) string {
	s, _ := Lookup(c.Name)
	return s.Rationale
}

// param returns the parameter of s called name, or an error listing
// its parameters.
func (s Spec) param(name string) (Param, error) {
	var names []string
	for _, p := range s.Params {
		if p.Name == name {
			return p, nil
		}
		names = append(names, p.Name)
	}
	if len(names) == 0 {
		return Param{}, fmt.Errorf("idea: %s has no parameter %q; it takes none, so write it alone: %s", s.Name, name, s.Name)
	}
	return Param{}, fmt.Errorf("idea: %s has no parameter %q; its parameters are %s", s.Name, name, strings.Join(names, ", "))
}

// WithDefaults returns c with every parameter of its idea that c leaves
// out at its default (Spec.Params), as New builds it; c as it is when
// its idea is not registered.
func (c Config) WithDefaults() Config {
	s, ok := Lookup(c.Name)
	if !ok {
		return c
	}
	full := c.Params.Map()
	for _, p := range s.Params {
		if _, set := full[p.Name]; !set {
			full[p.Name] = p.Default
		}
	}
	return Config{Name: c.Name, Params: NewParams(full)}
}

// New builds the idea c names: unknown names and parameters, missing ones
// without a default, and out-of-range values are errors naming the field
// and the fix.
func New(c Config) (Idea, error) {
	s, ok := Lookup(c.Name)
	if !ok {
		return nil, fmt.Errorf("idea: %q is not a registered idea; use one of %s", c.Name, strings.Join(Names(), ", "))
	}
	given := c.Params.Map()
	full := map[string]float64{}
	for _, p := range s.Params {
		full[p.Name] = p.Default
	}
	for k, v := range given {
		if _, err := s.param(k); err != nil {
			return nil, err
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("idea: %s.%s = %v is not a finite number", c.Name, k, v)
		}
		full[k] = v
	}
	return s.New(NewParams(full))
}
