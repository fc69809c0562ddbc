package compare

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/num"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
)

// Row is one trial's metrics from results made elsewhere: its arm,
// cfg and seed (labels) and its val (optional) and test metric.
type Row struct {
	Arm, Cfg, Seed string
	Val            *float64
	Test           float64
	Line           int // where it was read, for messages (0: unknown)
}

// Options are the settings of Compare.
type Options struct {
	// Sources are the files the rows were read from, with their SHA-256
	// (ReadMetrics, ReadReports give them), recorded in the report for
	// verify to read again (VerifyWithSources).
	Sources []report.ComparedSource
	// Source names rows given in memory, where Sources is empty (a test,
	// a program): recorded as a source without a SHA-256, which verify
	// cannot read again.
	Source       string
	Baseline     string          // the baseline arm's name; "" is the first arm
	Direction    stats.Direction // of the metric
	Alpha        float64         // 0 is 0.05
	MinEffectPct float64         // smallest improvement of interest, percent of the baseline's mean
}

// ErrOption marks an error of Options (a value out of range, a baseline
// arm the rows do not have), which the caller's settings fix, not the
// file's rows.
var ErrOption = errors.New("compare: bad option")

// Compare compares arms whose trials ran elsewhere, given as one row per
// (arm, cfg, seed), as a run compares its arms: each arm picks its cfg by
// mean val metric (every arm needs one cfg when there is no val), the
// chosen cfgs are compared seed by seed with the selection-aware test
// (the sign-flip test when the grids differ in length), intervals and
// power, Holm-adjusted across idea arms. Every (arm, cfg) must have every
// seed once; an error names the row and the fix.
func Compare(rows []Row, opt Options) (*report.Compared, error) {
	if opt.Alpha == 0 {
		opt.Alpha = 0.05
	}
	if err := stats.CheckAlpha(opt.Alpha); err != nil {
		return nil, fmt.Errorf("%w: alpha = %v: %w", ErrOption, opt.Alpha, err)
	}
	if err := stats.CheckMinEffectPct(opt.MinEffectPct); err != nil {
		return nil, fmt.Errorf("%w: min_effect_pct = %v: %w", ErrOption, opt.MinEffectPct, err)
	}
	sources := opt.Sources
	if len(sources) == 0 {
		sources = []report.ComparedSource{{Path: opt.Source}}
	}
	// src names the rows' file(s) in messages.
	src := sourceLine(sources)
	if len(rows) == 0 {
		return nil, fmt.Errorf("compare: %s has no rows; give one row per arm, cfg and seed", src)
	}
	at := func(r Row) string {
		if r.Line > 0 {
			return fmt.Sprintf("%s line %d", src, r.Line)
		}
		return src
	}
	if strings.HasSuffix(src, ".json") {
		at = func(r Row) string { return fmt.Sprintf("%s row %d", src, r.Line) }
	}
	type key struct{ arm, cfg string }
	var arms []string
	cfgs := map[string][]string{}
	seen := map[key]map[string]Row{}
	var seeds []string
	seedSeen := map[string]bool{}
	hasVal := rows[0].Val != nil
	for _, r := range rows {
		switch {
		case r.Arm == "" || r.Seed == "":
			return nil, fmt.Errorf("compare: %s: empty arm or seed; every row names its arm, cfg and seed", at(r))
		case (r.Val != nil) != hasVal:
			return nil, fmt.Errorf("compare: %s: a val metric on some rows only; give val on every row (each arm then picks its cfg by it) or on none", at(r))
		case math.IsNaN(r.Test) || math.IsInf(r.Test, 0) || (r.Val != nil && (math.IsNaN(*r.Val) || math.IsInf(*r.Val, 0))):
			return nil, fmt.Errorf("compare: %s: a metric is not a finite number; a diverged trial counts as the worst finite value of its split (say so in the file), not NaN", at(r))
		}
		k := key{r.Arm, r.Cfg}
		if _, ok := cfgs[r.Arm]; !ok {
			arms = append(arms, r.Arm)
		}
		if seen[k] == nil {
			seen[k] = map[string]Row{}
			cfgs[r.Arm] = append(cfgs[r.Arm], r.Cfg)
		}
		if _, dup := seen[k][r.Seed]; dup {
			return nil, fmt.Errorf("compare: %s: arm %s cfg %q seed %s repeats an earlier row; give each trial once", at(r), r.Arm, r.Cfg, r.Seed)
		}
		seen[k][r.Seed] = r
		if !seedSeen[r.Seed] {
			seedSeen[r.Seed] = true
			seeds = append(seeds, r.Seed)
		}
	}
	if opt.Baseline != "" {
		i := -1
		for j, a := range arms {
			if a == opt.Baseline {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("%w: --baseline %s: no such arm in %s (arms: %s)", ErrOption, opt.Baseline, src, strings.Join(arms, ", "))
		}
		arms = append([]string{arms[i]}, append(arms[:i:i], arms[i+1:]...)...)
	}
	if len(arms) < 2 {
		return nil, fmt.Errorf("compare: %s has one arm (%s); give the baseline's rows and at least one idea arm's", src, arms[0])
	}
	// The selection-aware test pairs cfg j of the baseline with cfg j of
	// each idea arm: where an arm has the baseline's cfg names, its cfgs
	// are put in the baseline's order.
	for _, a := range arms[1:] {
		if sameNames(cfgs[a], cfgs[arms[0]]) {
			cfgs[a] = append([]string(nil), cfgs[arms[0]]...)
		}
	}
	if len(seeds) < 2 {
		return nil, fmt.Errorf("compare: %s has one seed; a paired comparison needs at least 2", src)
	}
	c := &report.Compared{CompareVersion: report.CompareVersion, Sources: sources, MetricDirection: opt.Direction.String(),
		Alpha: opt.Alpha, MinEffectPct: opt.MinEffectPct, Seeds: seeds}
	for _, a := range arms {
		if !hasVal && len(cfgs[a]) > 1 {
			return nil, fmt.Errorf("compare: arm %s has %d cfgs but the file has no val metric to choose among them; add a val column, or give each arm its chosen cfg only", a, len(cfgs[a]))
		}
		arm := report.ComparedArm{Name: a}
		for _, cf := range cfgs[a] {
			rs := seen[key{a, cf}]
			row := report.ComparedCfg{Name: cf}
			var val, test []float64
			for _, s := range seeds {
				r, ok := rs[s]
				if !ok {
					return nil, fmt.Errorf("compare: arm %s cfg %q has no row for seed %s; every cfg of every arm needs every seed, paired by seed", a, cf, s)
				}
				test = append(test, r.Test)
				if r.Val != nil {
					val = append(val, *r.Val)
				}
			}
			row.Test = report.Summary{PerSeed: test}
			if hasVal {
				row.Val = &report.Summary{PerSeed: val}
			}
			arm.Cfgs = append(arm.Cfgs, row)
		}
		c.Arms = append(c.Arms, arm)
	}
	if field, got, want, ok := checkSources(c); !ok {
		return nil, fmt.Errorf("%w: %s: %s; want %s", ErrOption, field, got, want)
	}
	if err := deriveCompared(c); err != nil {
		return nil, err
	}
	return c, nil
}

// deriveCompared sets every derived field of c from its inputs (the
// sources, the arms' per-seed metrics, the direction, alpha and
// min_effect_pct).
func deriveCompared(c *report.Compared) error {
	c.Source = sourceLine(c.Sources)
	dir, err := stats.ParseDirection(c.MetricDirection)
	if err != nil {
		return fmt.Errorf("compare: metric_direction: %w", err)
	}
	tables := make([]stats.Arm, len(c.Arms))
	best := make([]int, len(c.Arms))
	for i := range c.Arms {
		a := &c.Arms[i]
		for j := range a.Cfgs {
			cf := &a.Cfgs[j]
			cf.Test = report.SummaryOf(stats.Summarize(cf.Test.PerSeed))
			test := cf.Test.PerSeed
			val := test // one cfg and no val: the choice is that cfg
			if cf.Val != nil {
				s := report.SummaryOf(stats.Summarize(cf.Val.PerSeed))
				cf.Val, val = &s, s.PerSeed
			}
			tables[i].Val = append(tables[i].Val, val)
			tables[i].Test = append(tables[i].Test, test)
		}
		best[i] = tables[i].Select(dir)
		a.BestCfg = best[i]
		a.Result = a.Cfgs[best[i]].Test
	}
	p := protocol.Protocol{MinEffectPct: c.MinEffectPct}
	minEff := p.MinEffectAt(c.Arms[0].Result.Mean, dir)
	c.Ideas = nil
	var cs []*report.Comparison
	for i := 1; i < len(c.Arms); i++ {
		b, x := c.Arms[0], c.Arms[i]
		cmp, err := derive.CompareArms(c.Alpha, true, x.Name, tables[0], best[0], b.Cfgs[best[0]].Name, tables[i], best[i], x.Cfgs[best[i]].Name, dir, minEff, true)
		if err != nil {
			return err
		}
		if len(b.Cfgs) == len(x.Cfgs) && len(b.Cfgs) > 1 && !sameOrder(b.Cfgs, x.Cfgs) {
			cmp.Warnings = append(cmp.Warnings, fmt.Sprintf("cfgs paired by position: %s's cfgs are not named as the baseline's, so the selection-aware test pairs them in the file's order (baseline %s with %s %s, ...); name each cfg the same in every arm to pair them by name",
				x.Name, b.Cfgs[0].Name, x.Name, x.Cfgs[0].Name))
		}
		if i == 1 {
			c.Comparison = cmp
		} else {
			c.Ideas = append(c.Ideas, report.ComparedIdea{Name: x.Name, Comparison: cmp})
		}
	}
	cs = append(cs, &c.Comparison)
	for k := range c.Ideas {
		cs = append(cs, &c.Ideas[k].Comparison)
	}
	if len(cs) > 1 {
		derive.Holm(cs, dir)
	}
	c.DeriveVersion = derive.DeriveVersion
	c.Digests = map[string]string{
		"arms":     report.Digest(armInputs(c)),
		"seeds":    report.Digest(c.Seeds),
		"sources":  report.Digest(c.Sources),
		"settings": report.Digest([]any{c.MetricDirection, c.Alpha, c.MinEffectPct}),
	}
	return nil
}

// armInputs are the measured values of c's arms: names, cfg names and
// per-seed metrics, under the report's JSON names, so that the digest
// "arms" covers them and VerifyWithSources names a leaf that differs from its
// source by its path in the report.
func armInputs(c *report.Compared) []armInput {
	var out []armInput
	for _, a := range c.Arms {
		x := armInput{Name: a.Name}
		for _, cf := range a.Cfgs {
			y := cfgInput{Name: cf.Name, Test: perSeed{cf.Test.PerSeed}}
			if cf.Val != nil {
				y.Val = &perSeed{cf.Val.PerSeed}
			}
			x.Cfgs = append(x.Cfgs, y)
		}
		out = append(out, x)
	}
	return out
}

// armInput, cfgInput and perSeed are the inputs of a report.ComparedArm,
// a report.ComparedCfg and a report.Summary.
type (
	armInput struct {
		Name string     `json:"name"`
		Cfgs []cfgInput `json:"cfgs"`
	}
	cfgInput struct {
		Name string   `json:"name"`
		Val  *perSeed `json:"val,omitempty"`
		Test perSeed  `json:"test"`
	}
	perSeed struct {
		PerSeed []float64 `json:"per_seed"`
	}
)

// Verify derives c again from its inputs and names every field that
// differs, as derive.Verify does for a run's report. It reads no file:
// VerifyWithSources also checks the inputs against the sources they came
// from.
func Verify(c *report.Compared) derive.Findings {
	v := &findings{}
	want := &report.Compared{CompareVersion: c.CompareVersion, Sources: c.Sources, MetricDirection: c.MetricDirection,
		Alpha: c.Alpha, MinEffectPct: c.MinEffectPct, Seeds: c.Seeds}
	if len(c.Arms) < 2 {
		v.add("arms", fmt.Sprintf("%d arms", len(c.Arms)), "a baseline and at least one idea arm", "")
		return v.result()
	}
	if !(c.Alpha > 0 && c.Alpha < 1) {
		v.add("alpha", fmt.Sprint(c.Alpha), "a level in (0,1)", "")
		return v.result()
	}
	if _, err := stats.ParseDirection(c.MetricDirection); err != nil {
		v.add("metric_direction", num.Quote(c.MetricDirection), `"lower is better" or "higher is better"`, "")
		return v.result()
	}
	// Sources that do not fit the arms are named, and the arms are still
	// derived: an arm renamed is then named by its digest too.
	if field, got, want, ok := checkSources(c); !ok {
		v.add(field, got, want, "")
	}
	for i, a := range c.Arms {
		if len(a.Cfgs) == 0 {
			v.add(fmt.Sprintf("arms[%d].cfgs", i), "[]", "at least one cfg", "")
			return v.result()
		}
		x := report.ComparedArm{Name: a.Name}
		for j, cf := range a.Cfgs {
			if len(cf.Test.PerSeed) != len(c.Seeds) || (cf.Val != nil && len(cf.Val.PerSeed) != len(c.Seeds)) {
				v.add(fmt.Sprintf("arms[%d].cfgs[%d]", i, j), "per-seed lists of another length", fmt.Sprintf("%d values, one per seed", len(c.Seeds)), "")
				return v.result()
			}
			y := report.ComparedCfg{Name: cf.Name, Test: report.Summary{PerSeed: cf.Test.PerSeed}}
			if cf.Val != nil {
				y.Val = &report.Summary{PerSeed: cf.Val.PerSeed}
			}
			x.Cfgs = append(x.Cfgs, y)
		}
		want.Arms = append(want.Arms, x)
	}
	if err := deriveCompared(want); err != nil {
		v.add("", "a comparison", err.Error(), "")
		return v.result()
	}
	if c.CompareVersion != report.CompareVersion {
		v.add("compare_version", fmt.Sprint(c.CompareVersion), fmt.Sprint(report.CompareVersion), "")
	}
	d := derive.Diff(c, want)
	d.Checked += v.checked
	d.Findings = append(v.found, d.Findings...)
	return d
}

// findings collects what Verify finds before it can derive.
type findings struct {
	checked int
	found   []derive.Finding
}

func (v *findings) add(field, got, want, note string) {
	v.checked++
	v.found = append(v.found, derive.Finding{Field: field, Got: got, Want: want, Note: note})
}

func (v *findings) result() derive.Findings {
	return derive.Findings{Checked: max(v.checked, 1), Findings: v.found}
}

// sameNames reports whether a and b hold the same names, in any order.
func sameNames(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]bool{}
	for _, x := range b {
		seen[x] = true
	}
	for _, x := range a {
		if !seen[x] {
			return false
		}
	}
	return true
}

// sameOrder reports whether the cfgs of a and b are named alike, in order.
func sameOrder(a, b []report.ComparedCfg) bool {
	for j := range a {
		if a[j].Name != b[j].Name {
			return false
		}
	}
	return true
}
