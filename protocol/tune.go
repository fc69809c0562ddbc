package protocol

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/idea"
)

// Tune is the search of every arm's own space on one trial budget, as
// AlgoPerf's external tuning ruleset gives every submission the same
// number of trials drawn quasi-randomly from its own search space (Dahl
// et al. 2023, "Benchmarking Neural Network Training Algorithms"; the
// quasi-random search of Bousquet et al. 2017, "Critical
// Hyper-Parameters: No Random, No Cry"). Every arm trains Cfgs cfgs.
// Cfg j of every arm takes the j-th learning rate of one quasi-random
// sequence, so cfg j of two arms differ by the idea alone (the pairing
// the grid extension, the budgets, the recipes and the inert check
// use), and an idea arm draws its parameters at point j from the
// sequence's further dimensions, one a parameter in name order. Cfg 0
// is the fixed protocol's centre: the middle rate of the range (on its
// log scale) and the idea where its papers start it (each parameter at
// its default, idea.Param.Default, kept within its range), so the
// search holds the published start at the rate a fixed grid centres
// on: the
// baseline spends its cfgs on the learning rate, an idea on the rate and
// its own settings, so an idea that needs tuning pays for it from the
// same budget.
//
// The sequence is Halton's (bases 2, 3, 5, ...; Halton 1960), each
// dimension shifted by a uniform draw of its own stream of Seed and
// taken modulo 1 (Cranley and Patterson 1976), so another seed is
// another equally even design. Rates are rounded to three digits, as
// the grid extension's are; a parameter on a linear or log scale too.
type Tune struct {
	// Cfgs is the number of cfgs every arm draws.
	Cfgs int `json:"cfgs"`
	// Seed picks the design's shifts.
	Seed uint64 `json:"seed"`
	// LR is the learning rate's range, on a log scale; Build sets it
	// from the baseline grid's smallest and largest rate when it is
	// left out.
	LR idea.Range `json:"lr"`
	// Spaces are each idea arm's space, by its arm ("idea",
	// "ideas[0]", ...): the range of each parameter drawn. A parameter
	// out of it stays at the value the arm's cfgs give it (its default,
	// or the one a config or --idea fixes); an empty space tunes the
	// rate alone, the idea at fixed settings. Build sets an arm left
	// out to its idea's declared space (idea.SpaceOf).
	Spaces map[string]idea.Space `json:"spaces,omitempty"`
}

// maxTuneCfgs bounds tune.cfgs.
const maxTuneCfgs = 1 << 12

// tuneStream is the PCG stream of dimension d's shift.
func tuneStream(d int) uint64 { return 0x7475 + uint64(d) }

// Point is the design's point j (0-based) in dims dimensions: Halton's
// (j+1)-th point, each coordinate shifted modulo 1 by its dimension's
// draw of seed.
func (t Tune) Point(j, dims int) []float64 {
	out := make([]float64, dims)
	for d := range out {
		shift := rand.New(rand.NewPCG(t.Seed, tuneStream(d))).Float64()
		u := radicalInverse(j+1, nthPrime(d)) + shift
		out[d] = u - math.Floor(u)
	}
	return out
}

// radicalInverse is Halton's coordinate of index n in base b: n's digits
// in base b mirrored about the point.
func radicalInverse(n, b int) float64 {
	x, f := 0.0, 1/float64(b)
	for ; n > 0; n /= b {
		x += float64(n%b) * f
		f /= float64(b)
	}
	return x
}

// nthPrime is the d-th prime from 0 (2, 3, 5, ...).
func nthPrime(d int) int {
	for n, k := 2, 0; ; n++ {
		prime := true
		for q := 2; q*q <= n; q++ {
			if n%q == 0 {
				prime = false
				break
			}
		}
		if prime {
			if k == d {
				return n
			}
			k++
		}
	}
}

// paramDefault is the default of the parameter name of the registered
// idea ideaName (idea.Param.Default).
func paramDefault(ideaName, name string) float64 {
	s, _ := idea.Lookup(ideaName)
	for _, p := range s.Params {
		if p.Name == name {
			return p.Default
		}
	}
	return 0
}

// tuneRound rounds a drawn value to three significant digits (an int
// range's values are whole already).
func tuneRound(x float64, r idea.Range) float64 {
	if r.Scale == idea.ScaleInt || len(r.Values) > 0 {
		return x
	}
	return round3(x)
}

// draw is the arm's grid: cfg j is base with the j-th rate, and, with
// ic its idea at the settings its cfgs give, ic's parameters of space
// at point j.
func (t Tune) draw(base Cfg, ic *idea.Config, space idea.Space) []Cfg {
	names := slices.Sorted(maps.Keys(space))
	grid := make([]Cfg, t.Cfgs)
	for j := range grid {
		u := t.Point(j, 1+len(names))
		if j == 0 {
			u[0] = 0.5 // the middle rate: where a fixed grid centres
		}
		c := base
		c.LR = round3(t.LR.At(u[0]))
		if ic != nil {
			m := ic.Params.Map()
			for d, name := range names {
				m[name] = tuneRound(space[name].At(u[1+d]), space[name])
				if j == 0 {
					// The papers' start is one of the settings: cfg 0
					// takes each parameter's default (in its range).
					m[name] = space[name].Clamp(paramDefault(ic.Name, name))
				}
			}
			c = c.WithIdea(idea.Config{Name: ic.Name, Params: idea.NewParams(m)})
		}
		grid[j] = c
	}
	return grid
}

// tuned returns p with its grids drawn by p.Tune (Tune): the baseline's
// from its cfg 0 as the template, each idea arm's from the baseline's
// with the idea of its own cfg 0 (at the settings it gives, defaults
// filled) over its space. It first fills what the tune block leaves to
// Build: the rate's range from the baseline grid, and each idea arm's
// space from its idea's declared one.
func (p Protocol) tuned() Protocol {
	t := *p.Tune
	t.Spaces = maps.Clone(t.Spaces)
	if reflect.DeepEqual(t.LR, idea.Range{}) {
		lrs := rates(p.Baseline)
		if len(lrs) > 0 {
			t.LR = idea.Range{Lo: lrs[0], Hi: lrs[len(lrs)-1], Scale: idea.ScaleLog}
		}
	}
	if t.Spaces == nil {
		t.Spaces = map[string]idea.Space{}
	}
	base := p.Baseline[0]
	base.Idea, base.Params, base.Rho, base.Beta = "", idea.Params{}, 0, 0
	q := p
	q.Tune = &t
	q.Baseline = t.draw(base, nil, nil)
	armOf := func(arm string, grid []Cfg) []Cfg {
		if len(grid) == 0 {
			return grid
		}
		ic := grid[0].IdeaConfig().WithDefaults()
		space, ok := t.Spaces[arm]
		if !ok {
			space = idea.SpaceOf(ic.Name)
			t.Spaces[arm] = space
		}
		return t.draw(base, &ic, space)
	}
	q.Idea = armOf("idea", p.Idea)
	q.Ideas = slices.Clone(p.Ideas)
	for k := range q.Ideas {
		q.Ideas[k].Grid = armOf(IdeasArm(k), p.Ideas[k].Grid)
	}
	return q
}

// Tuned returns p with its grids drawn by its tune block (see Tune), the
// block's defaults filled; p itself when it has none. Build calls it
// last, so a config's or the flags' grids give only each arm's template
// (its cfg 0) and the idea.
func (p Protocol) Tuned() Protocol {
	if p.Tune == nil || len(p.Baseline) == 0 || p.Tune.Cfgs < 1 || p.Tune.Cfgs > maxTuneCfgs {
		return p
	}
	return p.tuned()
}

// tuneErrors validates the tune block and that the grids are the ones it
// draws, each error shaped as Validate's.
func (p Protocol) tuneErrors() []error {
	t := p.Tune
	if t == nil {
		return nil
	}
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if t.Cfgs < 2 || t.Cfgs > maxTuneCfgs {
		bad("tune.cfgs = %d: must be in [2, %d]; use e.g. 6 (every arm trains that many cfgs)", t.Cfgs, maxTuneCfgs)
	}
	if err := t.LR.Validate(); err != nil || t.LR.Scale != idea.ScaleLog || !(t.LR.Lo > 0) {
		bad("tune.lr = %s: the learning rate's range is lo..hi on a log scale, lo > 0; use e.g. {\"lo\": 0.0003, \"hi\": 0.003, \"scale\": \"log\"} (left out: the baseline grid's)", t.LR)
	}
	arms := map[string]string{}
	if len(p.Idea) > 0 {
		arms["idea"] = p.Idea[0].IdeaConfig().Name
	}
	for k, a := range p.Ideas {
		if len(a.Grid) > 0 {
			arms[IdeasArm(k)] = a.Grid[0].IdeaConfig().Name
		}
	}
	for _, arm := range slices.Sorted(maps.Keys(t.Spaces)) {
		name, ok := arms[arm]
		if !ok {
			bad("tune.spaces.%s: not an idea arm of the protocol; name idea or ideas[k]", arm)
			continue
		}
		spec, _ := idea.Lookup(name)
		for _, param := range slices.Sorted(maps.Keys(t.Spaces[arm])) {
			r := t.Spaces[arm][param]
			at := fmt.Sprintf("tune.spaces.%s.%s", arm, param)
			if !slices.ContainsFunc(spec.Params, func(q idea.Param) bool { return q.Name == param }) {
				bad("%s = %s: %s has no parameter %q; its parameters are %s", at, r, name, param, paramNames(spec))
				continue
			}
			if err := r.Validate(); err != nil {
				bad("%s = %s: %v", at, r, err)
				continue
			}
			for _, u := range []float64{0, 1} {
				v := tuneRound(r.At(u), r)
				if _, err := idea.New(idea.Config{Name: name, Params: idea.NewParams(map[string]float64{param: v})}); err != nil {
					bad("%s = %s: at %v, %v; keep the range within the parameter's values", at, r, v, err)
					break
				}
			}
		}
	}
	if len(errs) > 0 || len(p.Baseline) == 0 {
		return errs
	}
	q := p.tuned()
	for _, g := range []struct {
		path      string
		got, want []Cfg
	}{{"baseline", p.Baseline, q.Baseline}, {"idea", p.Idea, q.Idea}} {
		if d := gridDiff(g.path, g.got, g.want); d != "" {
			bad("%s; the tune block draws every grid (leave the grids to it, or drop tune)", d)
		}
	}
	for k := range p.Ideas {
		if d := gridDiff(IdeasArm(k)+".grid", p.Ideas[k].Grid, q.Ideas[k].Grid); d != "" {
			bad("%s; the tune block draws every grid (leave the grids to it, or drop tune)", d)
		}
	}
	if !reflect.DeepEqual(p.Tune.Spaces, q.Tune.Spaces) || !reflect.DeepEqual(p.Tune.LR, q.Tune.LR) {
		bad("tune = %s: its lr and spaces are filled when the protocol is built (Tuned); build it, do not give it half", t.text())
	}
	return errs
}

// Untuned returns p without its tune block, each arm on the fixed grid
// of p's profile (FullProfile, CIProfileFor: its rates, the idea at the
// settings its cfgs give): the protocol before the tuner, the idea at
// fixed settings. p itself when it does not tune.
func (p Protocol) Untuned() Protocol {
	if p.Tune == nil {
		return p
	}
	fixed := FullProfile(p.Track)
	if p.Profile == "ci" {
		fixed = CIProfileFor(p.Track)
	}
	// An arm's idea at its settings before the draws: the parameters
	// its space drew back at their defaults.
	ideaOf := func(arm string, grid []Cfg) idea.Config {
		if len(grid) == 0 {
			return idea.Config{}
		}
		ic := grid[0].IdeaConfig()
		m := ic.Params.Map()
		for name := range p.Tune.Spaces[arm] {
			delete(m, name)
		}
		return idea.Config{Name: ic.Name, Params: idea.NewParams(m)}.WithDefaults()
	}
	q := p
	q.Tune = nil
	q.Baseline = fixed.Baseline
	q.Idea = IdeaGrid(fixed.Baseline, ideaOf("idea", p.Idea))
	if len(p.Idea) > 0 && p.Idea[0].IdeaConfig().Name == fixed.Idea[0].IdeaConfig().Name {
		q.Idea = fixed.Idea // the profile's own idea at the profile's settings
	}
	q.Ideas = slices.Clone(p.Ideas)
	for k := range q.Ideas {
		q.Ideas[k].Grid = IdeaGrid(fixed.Baseline, ideaOf(IdeasArm(k), p.Ideas[k].Grid))
	}
	return q
}

// IdeaGrid is the baseline's grid with idea ic in each cfg
// (Cfg.WithIdea): an idea arm on the baseline's grid.
func IdeaGrid(baseline []Cfg, ic idea.Config) []Cfg {
	grid := make([]Cfg, len(baseline))
	for j, c := range baseline {
		grid[j] = c.WithIdea(ic)
	}
	return grid
}

// SetIdea sets the idea arm (further false) or adds a further idea arm
// named spec, from an idea as the command line writes it
// (idea.ParseSpace): its grid the baseline's with the idea, and where p
// tunes, its space: the idea's declared one (idea.SpaceOf) less the
// parameters spec fixes, with the ranges spec gives. A range where p
// does not tune is an error, as is an idea arm that would tune nothing
// its idea has.
func (p *Protocol) SetIdea(spec string, further bool) error {
	ic, ranges, err := idea.ParseSpace(spec)
	if err != nil {
		return err
	}
	if len(ranges) > 0 && p.Tune == nil {
		for _, k := range slices.Sorted(maps.Keys(ranges)) {
			return fmt.Errorf("parameter %s = %s: a range is searched by the tuner, which this protocol does not run; add --tune N (every arm N cfgs, e.g. 6) or a config's tune block, or give one value", k, ranges[k])
		}
	}
	arm := "idea"
	if further {
		arm = IdeasArm(len(p.Ideas))
		p.Ideas = append(p.Ideas, IdeaArm{Name: spec, Grid: IdeaGrid(p.Baseline, ic)})
	} else {
		p.Idea = IdeaGrid(p.Baseline, ic)
	}
	if p.Tune != nil {
		space := idea.SpaceOf(ic.Name)
		for k := range ic.Params.Map() {
			delete(space, k)
		}
		maps.Copy(space, ranges)
		t := *p.Tune
		t.Spaces = maps.Clone(t.Spaces)
		if t.Spaces == nil {
			t.Spaces = map[string]idea.Space{}
		}
		t.Spaces[arm] = space
		p.Tune = &t
	}
	return nil
}

// gridDiff names the first cfg of got that is not want's, shaped as
// Validate's errors; "" when they are the same.
func gridDiff(path string, got, want []Cfg) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%s = %d cfgs: the tune block draws %d", path, len(got), len(want))
	}
	for j := range got {
		if got[j] != want[j] {
			return fmt.Sprintf("%s[%d] = %s: the tune block draws %s", path, j, cfgText(got[j]), cfgText(want[j]))
		}
	}
	return ""
}

// cfgText is a cfg's lr and idea as a message shows them.
func cfgText(c Cfg) string {
	ic := c.IdeaConfig()
	if ic.Name == "" || ic.Name == "gate" && c.Beta == 0 {
		return fmt.Sprintf("lr %g", c.LR)
	}
	return fmt.Sprintf("lr %g, %s %s", c.LR, ic.Name, strings.ReplaceAll(ic.Params.String(), ";", ","))
}

// text is the tune block as a message shows it.
func (t *Tune) text() string {
	return fmt.Sprintf("{cfgs %d, seed %d, lr %s}", t.Cfgs, t.Seed, t.LR)
}

// paramNames lists a spec's parameters, "none" for none.
func paramNames(s idea.Spec) string {
	var out []string
	for _, p := range s.Params {
		out = append(out, p.Name)
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}
