package derive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"
)

// Finding is one checked field of a report that did not re-derive
// exactly. A Note is explained (e.g. the seed report's Monte Carlo
// p-value); anything else is a mismatch.
type Finding struct {
	Field string // JSON path, e.g. "comparison.mde"
	Got   string // the report's value
	Want  string // the re-derived value
	Note  string // when set, the difference is explained and not a mismatch
}

func (f Finding) String() string {
	s := fmt.Sprintf("%s: report has %s, re-derived %s", f.Field, f.Got, f.Want)
	if f.Note != "" {
		s += " (" + f.Note + ")"
	}
	return s
}

// Findings is the outcome of Verify.
type Findings struct {
	Checked  int       // number of fields compared
	Findings []Finding // everything that differed
}

// Mismatches are the unexplained findings.
func (fs Findings) Mismatches() []Finding {
	var out []Finding
	for _, f := range fs.Findings {
		if f.Note == "" {
			out = append(out, f)
		}
	}
	return out
}

// VerifyOptions control Verify.
type VerifyOptions struct {
	// Rerun rebuilds the track from the report's setup and takes the
	// reference forecasters and the data file's digest from it instead of
	// from the report (milliseconds; no training).
	Rerun bool
	// Results, when set, are the results directories of the run (one, or
	// a merged run's shards'): each trial's raw values are read from its
	// record there, found by the key that setup.protocol gives, instead of
	// from the report, so an edited raw value is named leaf by leaf.
	Results []string
	// Limits bound the track Rerun rebuilds (protocol.DataWithin): a
	// report whose protocol names windows beyond them is not rebuilt, and
	// the finding says so. Zero: no limit.
	Limits protocol.Limits
	// Memo, when set, keeps the reports Derive builds by the digests of
	// their inputs, for a caller that verifies many edits of one report
	// (a test that edits every leaf): Derive is a function of the inputs
	// alone, so an edit that moves no input's digest is checked against
	// the derivation already made. Not used with Rerun or Results, whose
	// inputs are not the report's. Safe for concurrent use.
	Memo *Memo
}

// Memo keeps derived reports by their inputs' digests (VerifyOptions.Memo).
// The zero value is ready to use.
type Memo struct {
	mu sync.Mutex
	m  map[string]*report.Report
}

// derive is Derive(in) for the inputs whose digests are key, made once
// per key; each caller gets its own copy of the top level and of the
// setup, the parts Verify sets, and the run block in's (no input, taken
// as it stands).
func (m *Memo) derive(key string, in Inputs) (*report.Report, error) {
	if m == nil || key == "" {
		return Derive(in)
	}
	m.mu.Lock()
	cached, ok := m.m[key]
	m.mu.Unlock()
	if !ok {
		r, err := Derive(in)
		if err != nil {
			return nil, err
		}
		m.mu.Lock()
		if m.m == nil {
			m.m = map[string]*report.Report{}
		}
		m.m[key], cached = r, r
		m.mu.Unlock()
	}
	c := *cached
	if c.Setup != nil {
		s := *c.Setup
		c.Setup = &s
	}
	c.Run = in.Run
	return &c, nil
}

// memoKey is the key of the inputs whose digests are d.
func memoKey(d map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(d)) {
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(d[k])
		b.WriteByte(0)
	}
	return b.String()
}

// The tolerances of a number derived again, the one policy of Verify,
// Diff and so of every verify (reports, comparisons, suite reports). A
// report re-derives to the bit (its floats round-trip through JSON), so
// relTol only forgives a sum taken in another order or a fused
// multiply-add in another build's arithmetic. A hierarchical model
// (stats.HierarchicalModel, in a suite report's aggregates) is a Markov
// chain: one such bit can turn an accept into a reject, after which
// another build's chain takes another path, so below a key
// "hierarchical" its probabilities (p_*) must agree within hierProbTol
// and its means within hierRelTol of the derived value (its Monte Carlo
// error; TestHierarchicalReference shows two samplers agree within
// 0.004), its sample counts exactly.
const (
	relTol      = 1e-12
	hierProbTol = 0.02
	hierRelTol  = 0.05
)

func near(a, b float64) bool {
	return a == b || math.Abs(a-b) <= relTol*max(math.Abs(a), math.Abs(b))
}

// Verify checks a report and lists what does not re-derive.
//
// A report of this harness (one with setup) is checked by rebuilding it:
// its inputs are read back out of it (report.ReadInputs: the protocol,
// the per-seed metrics of every cfg, the chosen cfgs' curves, the gate's
// measurements, the reference forecasters), Derive, the one function that
// made the report, builds it again, and the two are compared leaf by leaf.
// So every derived field is checked, by construction, including fields
// added after this was written. The inputs themselves are covered by
// their digests (Setup.Digests), of the values the same reader reads: an
// input edited after the report was written is named at its path. With
// Rerun the reference forecasters and the data digest come from the
// rebuilt track; with Results the raw values come from the trial records,
// found by the keys that setup.protocol gives, so an edited protocol,
// training version or raw value is named leaf by leaf.
//
// A report of the seed schema without setup (the seed report) has no
// inputs to rebuild from; verifySeedFormat checks what its own fields
// determine.
func Verify(r *report.Report, opt VerifyOptions) Findings {
	if r == nil {
		r = &report.Report{}
	}
	if r.Setup == nil {
		fs := verifySeedFormat(r)
		if own := ownBlocks(r); len(own) > 0 {
			// The seed report's schema has no setup; a report with
			// blocks of this harness's own always has one.
			fs.Checked++
			fs.Findings = append([]Finding{{Field: "setup", Got: "missing",
				Want: fmt.Sprintf("present: the report has this harness's own blocks (%s), which only a report with setup has, and setup holds the inputs every number is derived from, so none can be checked: the file was edited; rerun the run, or `ideabench merge` its results directory, to write it again", strings.Join(own, ", "))}}, fs.Findings...)
		}
		return fs
	}
	v := &verifier{}
	if r.Setup.Digests == nil {
		// A report written before verify rebuilt reports: check what the
		// seed schema determines, and say it is not bound.
		fs := verifySeedFormat(r)
		fs.Checked++
		fs.Findings = append(fs.Findings, Finding{Field: "setup.digests", Got: "missing",
			Want: "the digests of the report's inputs: the report was written before verify rebuilt reports; rerun `ideabench run` (or merge) on its results directory to rewrite it"})
		return fs
	}
	// The inputs as they stand in the file against the digests recorded
	// when it was written: an edited input is named at its path whatever
	// else fails.
	raw, read := r.ReadInputs()
	digests := report.Digests(read)
	v.digests(r.Setup.Digests, digests)
	p := raw.Protocol
	if err := p.Validate(); err != nil {
		for _, e := range protocol.Unjoin(err) {
			field, _, _ := strings.Cut(e.Error(), " ")
			v.checked++
			v.add("setup.protocol."+strings.TrimSuffix(field, ":"), "an invalid value", e.Error(), "")
		}
		return Findings{Checked: v.checked, Findings: v.found}
	}
	in, ok := v.inputsOf(raw, opt)
	if !ok {
		return Findings{Checked: v.checked, Findings: v.found}
	}
	in.Run = r.Run // no input: it is checked against its own digest (run)
	v.checked++
	if r.Setup.DeriveVersion != DeriveVersion {
		v.add("setup.derive_version", show(r.Setup.DeriveVersion), fmt.Sprintf("%q, this build's derivation: the differences listed may come from that; `ideabench run` (or merge) on the report's results directory derives it again, without training when the report's training version is this build's", DeriveVersion), "")
	}
	key := ""
	if !opt.Rerun && len(opt.Results) == 0 {
		key = memoKey(digests)
	}
	want, err := opt.Memo.derive(key, in)
	if err != nil {
		v.checked++
		v.add("report", "present", err.Error(), "")
		return Findings{Checked: v.checked, Findings: v.found}
	}
	want.Setup.DeriveVersion = r.Setup.DeriveVersion // named first, with its consequence
	v.tree("", r, want)
	v.keptEpochs(r, want)
	v.run(r, len(in.Trials))
	return Findings{Checked: v.checked, Findings: v.found}
}

// keptEpochs checks the one relation between two inputs that training
// fixes: a seed's val metric is its val curve at the epoch it kept
// (TrainTrial), for each chosen cfg's seeds that did not diverge. want is
// the rebuilt report (the chosen cfgs and kept epochs as Derive finds
// them).
func (v *verifier) keptEpochs(r *report.Report, want *report.Report) {
	if r.Training == nil || want.Training == nil {
		return
	}
	for _, a := range []struct {
		name      string
		got, want report.ArmCurves
		val       func(cfg protocol.Cfg) *report.Summary
	}{
		{"baseline", r.Training.Baseline, want.Training.Baseline, func(c protocol.Cfg) *report.Summary {
			for _, row := range r.Baseline.Sweep {
				if row.Cfg == c {
					return row.Val
				}
			}
			return nil
		}},
		{"idea", r.Training.Idea, want.Training.Idea, func(c protocol.Cfg) *report.Summary {
			for _, row := range r.MechanismSignature.IdeaSweep {
				if row.Cfg == c {
					return row.Val
				}
			}
			return nil
		}},
	} {
		val := a.val(a.want.Cfg)
		if val == nil || (r.Setup != nil && r.Setup.Protocol.TrainerOf(a.name) != nil) {
			// An external trainer's curve is its own measure of val; the
			// val metric is computed here from its forecasts.
			continue
		}
		for i, be := range a.want.BestEpochs {
			var at string
			var x float64
			switch {
			case i >= len(val.PerSeed):
				continue
			case be == 0 && i < len(a.got.StartVals):
				at, x = fmt.Sprintf("training.%s.start_vals[%d]", a.name, i), a.got.StartVals[i]
			case be >= 1 && i < len(a.got.ValCurves) && be <= len(a.got.ValCurves[i]):
				at, x = fmt.Sprintf("training.%s.val_curves[%d][%d]", a.name, i, be-1), a.got.ValCurves[i][be-1]
			default:
				continue // diverged
			}
			v.checked++
			if !near(x, val.PerSeed[i]) {
				v.add(at, fmt.Sprint(x), fmt.Sprintf("%v, the seed's val metric, which training takes from the epoch it kept", val.PerSeed[i]), "")
			}
		}
	}
}

type verifier struct {
	checked int
	found   []Finding
	missing []string // fields the report lacks (Report.MissingFields)
}

func (v *verifier) add(field, got, want, note string) {
	for _, m := range v.missing {
		if field == m || strings.HasPrefix(field, m+".") || strings.HasPrefix(field, m+"[") || strings.HasPrefix(field, m+" ") {
			return // reported as missing
		}
	}
	v.found = append(v.found, Finding{Field: field, Got: got, Want: want, Note: note})
}

func (v *verifier) floatEq(field string, got, want float64) bool {
	v.checked++
	if !near(got, want) {
		v.add(field, fmt.Sprint(got), fmt.Sprint(want), "")
		return false
	}
	return true
}

func (v *verifier) intEq(field string, got, want int) {
	v.checked++
	if got != want {
		v.add(field, fmt.Sprint(got), fmt.Sprint(want), "")
	}
}

// inputsOf builds Derive's inputs from the report's (raw, read by
// report.ReadInputs, which the digests cover), with opt's sources in
// place of the report's where given; false, with the faults among the
// findings, when the report's shape does not allow it. It reads nothing
// else of the report, so nothing that reaches Derive escapes the digests.
func (v *verifier) inputsOf(raw report.Raw, opt VerifyOptions) (Inputs, bool) {
	bad := func(field, got, want string) {
		v.checked++
		v.add(field, got, want, "")
	}
	in := Inputs{Facts: raw.Facts}
	p := in.Protocol
	if in.References == nil {
		bad("reference_forecasters", "missing", "the reference forecasters' MSEs")
		return in, false
	}
	if opt.Rerun {
		if d, err := p.DataWithin(context.Background(), opt.Limits); err != nil {
			v.add("setup.protocol", "", err.Error(), "the track could not be rebuilt, so the reference forecasters and the data digest were taken from the report")
		} else if err := dataFacts(&in.Facts, d); err != nil {
			bad("reference_forecasters", "present", err.Error())
		}
	}

	// The seeds: the protocol's, or a sequential run's up to where it
	// stopped, which the per-seed metrics tell.
	seeds := p.Seeds
	if p.Sequential != nil {
		n := 0
		if b := raw.Baseline.Rows; len(b) > 0 && b[0].HasVal {
			n = len(b[0].Val)
		}
		all := p.Sequential.AllSeeds(p.Seeds)
		if n < len(p.Seeds) || n > len(all) {
			bad("baseline.sweep[0].val.per_seed", fmt.Sprintf("%d values", n), fmt.Sprintf("one per seed of a look, %d to %d", len(p.Seeds), len(all)))
			return in, false
		}
		seeds = all[:n]
	}
	q := p
	q.Seeds, q.Sequential = seeds, nil
	if p.ExtendGrid != nil {
		// The grids as they grew: the sweeps' cfgs, which Derive checks
		// against its replay of the extension.
		q.ExtendGrid = nil
		q.Baseline, q.Idea = cfgsOf(raw.Baseline), cfgsOf(raw.Idea)
		q.Ideas = slices.Clone(p.Ideas)
		for k := range min(len(q.Ideas), len(raw.Ideas)) {
			q.Ideas[k].Grid = cfgsOf(raw.Ideas[k])
		}
	}
	in.Trials = q.Trials()
	in.Results = make([]trial.Result, len(in.Trials))
	seedIdx := map[uint64]int{}
	for i, s := range seeds {
		seedIdx[s] = i
	}

	// The per-seed metrics of every cfg of every arm.
	type row struct {
		at                   string
		val, test, acc, mase []float64
	}
	arms := map[string][]row{}
	ok := true
	addRows := func(a report.RawArm) {
		for j, rw := range a.Rows {
			at := fmt.Sprintf("%s[%d]", a.At, j)
			if !rw.HasVal {
				bad(at+".val", "missing", "the cfg's val summary")
				ok = false
				continue
			}
			arms[a.Arm] = append(arms[a.Arm], row{at, rw.Val, rw.Test, rw.Acc, rw.MASE})
		}
	}
	addRows(raw.Baseline)
	addRows(raw.Idea)
	if len(raw.Ideas) != len(p.Ideas) {
		bad("ideas", fmt.Sprintf("%d arms", len(raw.Ideas)), fmt.Sprintf("%d arms, one per setup.protocol.ideas", len(p.Ideas)))
		return in, false
	}
	for _, a := range raw.Ideas {
		addRows(a)
	}
	if !ok {
		return in, false
	}
	for _, a := range []struct {
		arm, at string
		n       int
	}{{"baseline", "baseline.sweep", len(q.Baseline)}, {"idea", "mechanism_signature.idea_sweep", len(q.Idea)}} {
		if len(arms[a.arm]) != a.n {
			bad(a.at, fmt.Sprintf("%d rows", len(arms[a.arm])), fmt.Sprintf("%d rows, one per cfg of setup.protocol", a.n))
			ok = false
		}
	}
	for k, a := range q.Ideas {
		if len(arms[protocol.IdeasArm(k)]) != len(a.Grid) {
			bad(fmt.Sprintf("ideas[%d].sweep", k), fmt.Sprintf("%d rows", len(arms[protocol.IdeasArm(k)])), fmt.Sprintf("%d rows, one per cfg of setup.protocol.ideas[%d].grid", len(a.Grid), k))
			ok = false
		}
	}
	names := []string{"baseline", "idea"}
	for k := range p.Ideas {
		names = append(names, protocol.IdeasArm(k))
	}
	for _, name := range names {
		for _, rw := range arms[name] {
			if len(rw.val) != len(seeds) {
				bad(rw.at+".val.per_seed", fmt.Sprintf("%d values", len(rw.val)), fmt.Sprintf("%d, one per seed", len(seeds)))
				ok = false
			}
			if rw.acc != nil && len(rw.acc) != len(seeds) {
				bad(rw.at+".test_accuracy.per_seed", fmt.Sprintf("%d values", len(rw.acc)), fmt.Sprintf("%d, one per seed", len(seeds)))
				ok = false
			}
			if rw.mase != nil && len(rw.mase) != len(seeds) {
				bad(rw.at+".test_mase.per_seed", fmt.Sprintf("%d values", len(rw.mase)), fmt.Sprintf("%d, one per seed", len(seeds)))
				ok = false
			}
			if len(rw.test) != len(seeds) {
				bad(rw.at+" per-seed test metrics", fmt.Sprintf("%d values", len(rw.test)), fmt.Sprintf("%d, one per seed", len(seeds)))
				ok = false
			}
		}
	}
	if !ok {
		return in, false
	}
	for i, t := range in.Trials {
		rw, si := arms[t.Arm][t.Cfg], seedIdx[t.Seed]
		in.Results[i].Val, in.Results[i].Test = rw.val[si], rw.test[si]
		if rw.acc != nil {
			in.Results[i].TestAcc = rw.acc[si]
		}
		if rw.mase != nil {
			in.Results[i].TestMASE = rw.mase[si]
		}
	}

	// Diverged trials: their metrics are the substitutes, which derive
	// computes.
	for k, dt := range raw.Diverged {
		i := slices.Index(in.Trials, protocol.Trial{Arm: dt.Arm, Cfg: dt.Cfg, Seed: dt.Seed})
		if i < 0 {
			bad(fmt.Sprintf("diverged.trials[%d]", k), fmt.Sprintf("%s cfg %d seed %d", dt.Arm, dt.Cfg, dt.Seed), "a trial of the protocol")
			return in, false
		}
		in.Results[i].Diverged, in.Results[i].DivergedStep = true, dt.Step
		in.Results[i].Val, in.Results[i].Test = math.Inf(1), math.Inf(1)
	}

	// The chosen cfgs' curves, given to every cfg of their arm (derive
	// reads the chosen cfg's), and the mechanism measurements, given to
	// every idea cfg on the first seed.
	if raw.Curves == nil {
		bad("training", "missing", "the chosen cfgs' training curves")
		return in, false
	}
	sig := raw.Signature
	if sig != nil {
		for l, ls := range sig.Layers {
			if len(ls.GainByPosition) == 0 || len(ls.StateByPosition) != len(ls.GainByPosition) {
				bad(fmt.Sprintf("mechanism_signature.mechanism_signature.layers[%d].state_by_position", l),
					fmt.Sprintf("%d values", len(ls.StateByPosition)), fmt.Sprintf("one per position, as gain_by_position's %d", len(ls.GainByPosition)))
				return in, false
			}
		}
	}
	for i, t := range in.Trials {
		si := seedIdx[t.Seed]
		if t.Arm == "idea" && si == 0 {
			in.Results[i].Signature = sig
		}
		if v, ok := raw.ValAcc[t.Arm]; ok && si < len(v.Curves) {
			in.Results[i].ValAccCurve, in.Results[i].ValEvery, in.Results[i].Steps = v.Curves[si], v.Every, v.Budget
		}
		c, ok := raw.Curves[t.Arm]
		if !ok {
			continue
		}
		if si < len(c.EpochLosses) {
			in.Results[i].EpochLoss = c.EpochLosses[si]
		}
		if si < len(c.ValCurves) {
			in.Results[i].ValCurve = c.ValCurves[si]
		}
		if si < len(c.StartVals) {
			in.Results[i].StartVal = c.StartVals[si]
		}
		if t.Arm == "baseline" {
			if si < len(raw.StartTest) {
				in.Results[i].StartTest = raw.StartTest[si]
			}
			if si < len(raw.LinearTest) {
				in.Results[i].LinearTest = raw.LinearTest[si]
			}
		}
	}
	if len(opt.Results) > 0 {
		v.records(&in, q, opt.Results)
	}
	return in, true
}

// records replaces in's results by the trial records of the results
// directories dirs, each found by the key of its trial under the report's
// protocol q, data digest and training version; a trial without a
// readable record is a finding, and keeps the report's values.
func (v *verifier) records(in *Inputs, q protocol.Protocol, dirs []string) {
	var missing []string
	for i, t := range in.Trials {
		id := q.KeyAt(t, in.DataSHA256, in.TrainingVersion).ID()
		at := fmt.Sprintf("trial %s cfg %d seed %d", t.Arm, t.Cfg, t.Seed)
		v.checked++
		found := false
		for _, dir := range dirs {
			st := &trial.Store{Dir: dir}
			_, res, ok, err := st.Read(id)
			if err != nil {
				v.add(at, "a record", err.Error(), "")
				found = true
				break
			}
			if ok {
				in.Results[i], found = res, true
				break
			}
		}
		if !found {
			missing = append(missing, fmt.Sprintf("%s (%s)", at, id))
		}
	}
	if len(missing) == 0 {
		return
	}
	const show = 3
	n, more := len(missing), ""
	if n > show {
		more = fmt.Sprintf(" and %d more", n-show)
		missing = missing[:show]
	}
	v.add("setup", fmt.Sprintf("%d of %d trials without a record in %s: %s%s", n, len(in.Trials), strings.Join(dirs, ", "), strings.Join(missing, "; "), more),
		"a record for every trial under the keys that setup.protocol, setup.training_version and setup.data_sha256 give: they were edited, or the directories hold another run's trials (a merged run needs every shard's directory)", "")
}

// tree compares the report got with its re-derivation want leaf by leaf,
// by their JSON forms: numbers within relTol, everything else exactly; a
// leaf on one side only is missing on the other. The digests
// (setup.digests) are left to Verify, which compares them with the
// file's own inputs.
func (v *verifier) tree(field string, got, want any) {
	enc := func(x any) any {
		raw, err := json.Marshal(x)
		if err != nil {
			return nil
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber() // integers compare exactly, however large
		var out any
		dec.Decode(&out)
		return out
	}
	join := func(f, k string) string {
		if f == "" {
			return k
		}
		return f + "." + k
	}
	var walk func(f string, g, w any)
	walk = func(f string, g, w any) {
		switch w := w.(type) {
		case map[string]any:
			gm, ok := g.(map[string]any)
			if !ok {
				v.checked++
				v.add(f, show(g), "an object", "")
				return
			}
			if f == "setup.digests" {
				return // compared with the file's inputs first
			}
			for _, k := range slices.Sorted(maps.Keys(w)) {
				walk(join(f, k), gm[k], w[k])
			}
			for _, k := range slices.Sorted(maps.Keys(gm)) {
				if _, ok := w[k]; !ok {
					v.checked++
					v.add(join(f, k), show(gm[k]), "absent", "")
				}
			}
		case []any:
			ga, ok := g.([]any)
			v.checked++
			if !ok || len(ga) != len(w) {
				v.add(f, show(g), fmt.Sprintf("%d values", len(w)), "")
			}
			for i := range min(len(ga), len(w)) {
				walk(fmt.Sprintf("%s[%d]", f, i), ga[i], w[i])
			}
		case json.Number:
			gn, ok := g.(json.Number)
			v.checked++
			if !ok || !numEq(f, gn, w) {
				v.add(f, show(g), w.String(), "")
			}
		default:
			v.checked++
			if g != w {
				v.add(f, show(g), show(w), "")
			}
		}
	}
	walk(field, enc(got), enc(want))
}

// numEq compares the number got of the report at field with want,
// derived again, as encoding/json writes them: equal text, or, below a
// key "hierarchical", within its tolerances; else, unless both are whole
// numbers (which compare exactly), floats within relTol.
func numEq(field string, got, want json.Number) bool {
	if got == want {
		return true
	}
	x, err1 := got.Float64()
	y, err2 := want.Float64()
	if err1 != nil || err2 != nil {
		return false
	}
	if _, leaf, ok := strings.Cut("."+field, ".hierarchical."); ok {
		switch {
		case strings.HasPrefix(leaf, "p_"):
			return math.Abs(x-y) <= hierProbTol
		case leaf == "samples" || leaf == "burn":
			return false
		default: // delta0, tracks[k]
			return math.Abs(x-y) <= hierRelTol*math.Max(math.Abs(y), 1e-12)+1e-9
		}
	}
	whole := func(n json.Number) bool { return !strings.ContainsAny(n.String(), ".eE") }
	if whole(got) && whole(want) {
		return false
	}
	return near(x, y)
}

// show is a JSON value as a finding shows it.
func show(x any) string {
	switch x := x.(type) {
	case nil:
		return "missing"
	case string:
		return fmt.Sprintf("%q", x)
	case []any:
		return fmt.Sprintf("%d values", len(x))
	case map[string]any:
		return "an object"
	}
	return fmt.Sprint(x)
}

// digests compares the recorded digests got with those of the inputs
// now in the report, want, naming each differing one by the path it
// covers.
func (v *verifier) digests(got, want map[string]string) {
	recorded := func(k string) string {
		if d, ok := got[k]; ok {
			return fmt.Sprintf("digest %q in setup.digests", d)
		}
		return "missing"
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		v.checked++
		if d, ok := got[k]; !ok || d != want[k] {
			v.add(k, recorded(k), fmt.Sprintf("digest %q of the values now there: the input was edited after the report was written", want[k]), "")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[k]; !ok {
			v.checked++
			v.add(k, recorded(k), "no such input in the report", "")
		}
	}
}

// run checks the run block (volatile; nothing derives from it): its
// digest, counts and time non-negative, the trials reused and run
// making up the report's n trials, and the time it finished a time.
func (v *verifier) run(r *report.Report, n int) {
	ri := r.Run
	if ri == nil {
		return
	}
	v.checked += 2
	if d := ri.Sum(); ri.Digest != d {
		v.add("run", "digest "+show(ri.Digest), fmt.Sprintf("digest %q of the values now there: the run block was edited after the report was written", d), "")
	}
	switch {
	case !(ri.WallSeconds >= 0):
		v.add("run.wall_seconds", fmt.Sprint(ri.WallSeconds), "a time >= 0", "")
	case ri.Workers < 0:
		v.add("run.workers", fmt.Sprint(ri.Workers), "a count >= 0", "")
	case ri.TrialsReused < 0 || ri.TrialsRun < 0 || ri.TrialsReused+ri.TrialsRun != n:
		v.add("run.trials_run", fmt.Sprintf("%d run + %d reused", ri.TrialsRun, ri.TrialsReused), fmt.Sprintf("%d in all, the report's trials", n), "")
	}
	if ri.Finished != "" {
		v.checked++
		if _, err := time.Parse(time.RFC3339, ri.Finished); err != nil {
			v.add("run.finished", show(ri.Finished), "a time as RFC 3339 (2006-01-02T15:04:05Z)", "")
		}
	}
}

// ownBlocks names the blocks of r that this harness writes and the seed
// report's schema lacks.
func ownBlocks(r *report.Report) []string {
	var out []string
	for _, b := range []struct {
		name string
		set  bool
	}{
		{"run", r.Run != nil}, {"budget", r.Budget != nil}, {"informativeness", r.Informativeness != nil},
		{"reference_forecasters", r.ReferenceForecasters != nil}, {"training", r.Training != nil},
		{"tuning_budget", r.TuningBudget != nil}, {"ideas", r.Ideas != nil}, {"sequential", r.Sequential != nil},
		{"early_stop", r.EarlyStop != nil}, {"external", r.External != nil}, {"grid_extension", r.GridExtension != nil},
		{"diverged", r.Diverged != nil}, {"accuracy", r.Accuracy != nil}, {"mase", r.MASE != nil},
	} {
		if b.set {
			out = append(out, b.name)
		}
	}
	return out
}

// Diff compares got with want leaf by leaf, as Verify compares a report
// with the one derived again: numbers within the last bits of another
// build's arithmetic, everything else exactly.
func Diff(got, want any) Findings {
	v := &verifier{}
	v.tree("", got, want)
	return Findings{Checked: v.checked, Findings: v.found}
}

// cfgsOf are the cfgs of a sweep.
func cfgsOf(a report.RawArm) []protocol.Cfg {
	var out []protocol.Cfg
	for _, row := range a.Rows {
		out = append(out, row.Cfg)
	}
	return out
}
