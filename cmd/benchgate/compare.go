package main

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
	"golang.org/x/perf/benchunit"
)

// verdict is the outcome for one benchmark.
type verdict int

const (
	unchanged   verdict = iota // not significant (p >= alpha), or equal centres
	tooFew                     // the sample sizes cannot reach p < alpha at all
	improved                   // significantly better
	worseWithin                // significantly worse, by at most the threshold
	regressed                  // significantly worse by more than the threshold: fails the gate
	onlyOld                    // in the old file only (or only there with the metric)
	onlyNew                    // in the new file only
	probe                      // a machine probe (Peak): reported, never gated
)

func (v verdict) String() string {
	return [...]string{"~", "too few samples", "better", "worse, within threshold", "REGRESSION", "only in old", "only in new", "machine probe, not gated"}[v]
}

// row is the comparison of one benchmark.
type row struct {
	// Pkg is the value of the pkg: line above the benchmark, "" if none.
	Pkg string
	// Name is the full name without "Benchmark", e.g. "MatMul/n=64-16".
	Name string
	// Old and New are the metric's values, ascending; nil if absent.
	Old, New []float64
	// OldCenter and NewCenter are the medians (modes for assume=exact),
	// set where Old or New is.
	OldCenter, NewCenter float64
	// Delta is the change of the centre in percent, 100*(new/old - 1);
	// P is the test's p-value. Both are set when Old and New are.
	Delta, P float64
	// Verdict is the outcome.
	Verdict verdict
	// Notes are benchmath's warnings and configuration that varied.
	Notes []string
}

// id names the row unambiguously in the list of regressions.
func (r *row) id() string {
	if r.Pkg == "" {
		return r.Name
	}
	return r.Name + " (" + r.Pkg + ")"
}

// report is the comparison of two files.
type report struct {
	// Opts are the options compared with.
	Opts options
	// Unit is the tidied metric: Opts.Metric "ns/op" is "sec/op" here.
	Unit string
	// Better is +1 if higher values of Unit are better, -1 if lower.
	Better int
	// Rows are the benchmarks of both files, in benchproc order: by
	// package, then name, each in order of first appearance.
	Rows []row
}

// regressions returns the rows that fail the gate.
func (r *report) regressions() []row {
	var out []row
	for _, row := range r.Rows {
		if row.Verdict == regressed {
			out = append(out, row)
		}
	}
	return out
}

// summaryConfidence is benchstat's default -confidence. Only the centre
// of the summary is used, and a median does not depend on it.
const summaryConfidence = 0.95

// compare pairs the benchmarks of old and new by package and full name
// and judges each on opts.Metric. It returns an error when the metric is
// missing from a file, has no known better direction, or no benchmark
// has it in both files: a gate that compares nothing must not pass.
func compare(old, new *input, opts options) (*report, error) {
	_, unit := benchunit.Tidy(1, opts.Metric)
	units, err := mergeUnits(old, new, unit)
	if err != nil {
		return nil, err
	}
	better := betterDirection(units, unit)
	if better == 0 {
		return nil, fmt.Errorf("-metric %s: unknown whether higher or lower is better; add a line \"Unit %s better=higher\" (or better=lower) to the files, or use a unit that ends in /s or starts with s/, ms/ or ns/", opts.Metric, opts.Metric)
	}
	assume := units.GetAssumption(unit)
	th := &benchmath.Thresholds{CompareAlpha: opts.Alpha}

	var pp benchproc.ProjectionParser
	byName, err := pp.Parse("pkg,.fullname", nil)
	if err != nil {
		panic("benchgate: " + err.Error())
	}
	residue := pp.Residue()
	pkgField, nameField := byName.Fields()[0], byName.Fields()[1]

	type cell struct {
		vals    [2][]float64           // old, new
		residue map[benchproc.Key]bool // configurations outside the key
	}
	cells := make(map[benchproc.Key]*cell)
	var keys []benchproc.Key
	for i, in := range []*input{old, new} {
		n := 0
		seen := make(map[string]bool)
		for _, res := range in.Results {
			v, ok := res.Value(unit)
			if !ok {
				for _, val := range res.Values {
					seen[cmp.Or(val.OrigUnit, val.Unit)] = true
				}
				continue
			}
			n++
			k := byName.Project(res)
			c := cells[k]
			if c == nil {
				c = &cell{residue: make(map[benchproc.Key]bool)}
				cells[k] = c
				keys = append(keys, k)
			}
			c.vals[i] = append(c.vals[i], v)
			c.residue[residue.Project(res)] = true
		}
		if n == 0 {
			return nil, fmt.Errorf("no benchmark in %s reports %s (units there: %s); pick one of those with -metric", in.Path, opts.Metric, strings.Join(slices.Sorted(maps.Keys(seen)), ", "))
		}
	}
	benchproc.SortKeys(keys)

	rep := &report{Opts: opts, Unit: unit, Better: better}
	paired := 0
	for _, k := range keys {
		c := cells[k]
		r := row{Pkg: k.Get(pkgField), Name: k.Get(nameField)}
		judge(&r, c.vals, assume, th, opts, better)
		if r.Verdict != onlyOld && r.Verdict != onlyNew {
			paired++
		}
		if vary := benchproc.NonSingularFields(slices.Collect(maps.Keys(c.residue))); len(vary) > 0 {
			names := make([]string, len(vary))
			for i, f := range vary {
				names[i] = f.Name
			}
			r.Notes = append(r.Notes, "results vary in "+strings.Join(names, ", "))
		}
		rep.Rows = append(rep.Rows, r)
	}
	if paired == 0 {
		return nil, fmt.Errorf("no benchmark reports %s in both %s and %s, so there is nothing to gate; run the same benchmarks (same -bench pattern, same GOMAXPROCS) for both", opts.Metric, old.Path, new.Path)
	}
	return rep, nil
}

// judge fills the centres, change, p-value, verdict and benchmath's
// warnings of r from its old and new values.
func judge(r *row, vals [2][]float64, assume benchmath.Assumption, th *benchmath.Thresholds, opts options, better int) {
	var s [2]*benchmath.Sample
	for i, v := range vals {
		if v != nil {
			s[i] = benchmath.NewSample(v, th)
		}
	}
	if s[0] != nil {
		r.Old, r.OldCenter = s[0].Values, assume.Summary(s[0], summaryConfidence).Center
	}
	if s[1] != nil {
		r.New, r.NewCenter = s[1].Values, assume.Summary(s[1], summaryConfidence).Center
	}
	switch {
	case s[1] == nil:
		r.Verdict = onlyOld
		return
	case s[0] == nil:
		r.Verdict = onlyNew
		return
	}
	c := assume.Compare(s[0], s[1])
	r.P = c.P
	r.Delta = pctChange(r.OldCenter, r.NewCenter)
	worse := r.Delta * float64(-better)
	switch {
	case !reachable(assume, len(r.Old), len(r.New), th):
		r.Verdict = tooFew
		r.Notes = append(r.Notes, fmt.Sprintf("too few samples: %d old and %d new runs cannot reach p < %v; rerun with -count 10", len(r.Old), len(r.New), opts.Alpha))
	case c.P >= opts.Alpha:
		r.Verdict = unchanged
	case worse > opts.Threshold:
		r.Verdict = regressed
	case worse > 0:
		r.Verdict = worseWithin
	case worse < 0:
		r.Verdict = improved
	default:
		r.Verdict = unchanged
	}
	for _, w := range c.Warnings {
		r.Notes = append(r.Notes, w.Error())
	}
	if isProbe(r.Name) && r.Verdict != unchanged && r.Verdict != tooFew {
		// The CPU's own speed moved, not the code's: say so, never fail.
		r.Verdict = probe
		r.Notes = append(r.Notes, "Peak measures the CPU (register-only loops), not the project's code: a change here is the machine's, and the other rows moved with it")
	}
}

// isProbe reports whether the benchmark named name (without
// "Benchmark") is a machine probe: BenchmarkPeak and its sub-benchmarks.
func isProbe(name string) bool {
	return name == "Peak" || strings.HasPrefix(name, "Peak/") || strings.HasPrefix(name, "Peak-")
}

// reachable reports whether samples of n1 and n2 values can show
// p < alpha at all under assume, by testing two samples that do not
// overlap: the strongest evidence those sizes allow. For the U test the
// smallest two-sided p is 2/C(n1+n2, n1): 0.1 for 3 runs a side, 0.029
// for 4, 1.1e-5 for 10 (Mann and Whitney 1947, exact null distribution).
func reachable(assume benchmath.Assumption, n1, n2 int, th *benchmath.Thresholds) bool {
	lo, hi := make([]float64, n1), make([]float64, n2)
	for i := range lo {
		lo[i] = float64(i)
	}
	for i := range hi {
		hi[i] = float64(n1 + i)
	}
	return assume.Compare(benchmath.NewSample(lo, th), benchmath.NewSample(hi, th)).P < th.CompareAlpha
}

// pctChange returns 100*(new/old - 1); ±Inf when only old is zero.
func pctChange(old, new float64) float64 {
	if old == new {
		return 0
	}
	return 100 * (new/old - 1)
}

// betterDirection returns +1 if higher values of the tidied unit are
// better, -1 if lower ones are, 0 if unknown. The rule is in doc.go.
func betterDirection(units benchfmt.UnitMetadataMap, unit string) int {
	// Unit lines first, then benchfmt's defaults: sec/op, B/op,
	// allocs/op lower, B/s higher.
	if b := units.GetBetter(unit); b != 0 {
		return b
	}
	for _, p := range []string{"s/", "sec/", "ms/", "us/", "µs/"} {
		if strings.HasPrefix(unit, p) {
			return -1
		}
	}
	if strings.HasSuffix(unit, "/s") {
		return 1
	}
	return 0
}

// mergeUnits joins the Unit metadata of both files. The two may not
// declare the compared unit differently: that would flip the verdict
// depending on which file is believed.
func mergeUnits(old, new *input, unit string) (benchfmt.UnitMetadataMap, error) {
	m := make(benchfmt.UnitMetadataMap)
	maps.Copy(m, old.Units)
	for k, v := range new.Units {
		if have, ok := m[k]; ok && k.Unit == unit && have.Value != v.Value {
			return nil, fmt.Errorf("%s declares Unit %s %s=%s but %s declares %s=%s; make the Unit lines agree", old.Path, have.OrigUnit, k.Key, have.Value, new.Path, k.Key, v.Value)
		}
		m[k] = v
	}
	return m, nil
}
