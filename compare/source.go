package compare

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/internal/jsonstrict"
	"github.com/ideabench/ideabench/internal/num"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
)

// MaxMetricsBytes bounds a file of per-seed metrics: a million rows of
// arm, cfg, seed, val and test.
const MaxMetricsBytes = 64 << 20

// maxReportBytes bounds a run report read as an arm's source: the bound
// of every run report read (report.MaxFileBytes).
const maxReportBytes = report.MaxFileBytes

// readSource reads a source file (bounded by max) and the SHA-256 of its
// bytes, the one compare records and verify checks.
func readSource(path string, max int64) ([]byte, string, error) {
	raw, err := inputfile.Read(path, max)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(raw)
	return raw, hex.EncodeToString(sum[:]), nil
}

// ReadMetrics reads a file of per-seed metrics (ParseRows, a leading
// byte-order mark dropped): its rows and the source Compare records, the
// file with its SHA-256.
func ReadMetrics(path string) ([]Row, report.ComparedSource, error) {
	raw, sum, err := readSource(path, MaxMetricsBytes)
	if err != nil {
		return nil, report.ComparedSource{}, err
	}
	rows, err := metricsRows(raw, path)
	return rows, report.ComparedSource{Path: path, SHA256: sum}, err
}

// metricsRows are the rows of a metrics file's bytes, as ReadMetrics and
// VerifyWithSources read them.
func metricsRows(raw []byte, path string) ([]Row, error) {
	return ParseRows(bytes.TrimPrefix(raw, []byte("\ufeff")), path)
}

// ParseRows parses per-seed metrics: CSV with a header naming arm, seed
// and test (cfg and val optional; other columns are refused), or a JSON
// array of objects with those keys. name is the file, for messages.
func ParseRows(raw []byte, name string) ([]Row, error) {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		var objs []struct {
			Arm  string   `json:"arm"`
			Cfg  any      `json:"cfg"`
			Seed any      `json:"seed"` // a json.Number: as written, however large
			Val  *float64 `json:"val"`
			Test *float64 `json:"test"`
		}
		if err := jsonstrict.Decode(raw, name, "per-seed metrics", &objs); err != nil {
			return nil, fmt.Errorf("%v; want [{\"arm\": \"baseline\", \"cfg\": \"lr=0.001\", \"seed\": 0, \"val\": 0.41, \"test\": 0.43}, ...]", err)
		}
		rows := make([]Row, len(objs))
		for i, o := range objs {
			if o.Test == nil {
				return nil, fmt.Errorf("%s[%d]: no \"test\"; every row gives its test metric", name, i)
			}
			rows[i] = Row{Arm: o.Arm, Cfg: label(o.Cfg), Seed: label(o.Seed), Val: o.Val, Test: *o.Test, Line: i + 1}
		}
		return rows, nil
	}
	r := csv.NewReader(bytes.NewReader(raw))
	r.Comment = '#'
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %v; want a CSV with the header arm,cfg,seed,val,test (cfg and val optional)", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(h))
		if !slices.Contains([]string{"arm", "cfg", "seed", "val", "test"}, h) {
			return nil, fmt.Errorf("%s: column %s: unknown; the columns are arm, cfg, seed, val and test (cfg and val optional)", name, num.Quote(head[i]))
		}
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("%s: column %q given twice", name, h)
		}
		col[h] = i
	}
	for _, need := range []string{"arm", "seed", "test"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("%s: no %q column; the header names arm, seed and test (and optionally cfg and val)", name, need)
		}
	}
	var rows []Row
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if len(rec) != len(head) {
			return nil, fmt.Errorf("%s line %d: %d fields, the header has %d", name, line, len(rec), len(head))
		}
		number := func(c string) (float64, error) {
			x, err := num.ParseDecimal(strings.TrimSpace(rec[col[c]]))
			if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				return 0, fmt.Errorf("%s line %d: %s = %s: not a finite decimal number", name, line, c, num.Quote(rec[col[c]]))
			}
			return x, nil
		}
		row := Row{Arm: strings.TrimSpace(rec[col["arm"]]), Seed: strings.TrimSpace(rec[col["seed"]]), Line: line}
		if i, ok := col["cfg"]; ok {
			row.Cfg = strings.TrimSpace(rec[i])
		}
		if row.Test, err = number("test"); err != nil {
			return nil, err
		}
		if _, ok := col["val"]; ok {
			v, err := number("val")
			if err != nil {
				return nil, err
			}
			row.Val = &v
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// label is a JSON cfg or seed (string or number) as text.
func label(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case json.Number:
		return v.String()
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// ReportArm is an arm of a comparison taken from a run report: compare's
// NAME=PATH#ARM.
type ReportArm struct {
	Name string // the comparison's arm
	Path string // the run report
	Arm  string // the report's arm: baseline, idea or an idea arm's name
}

// loadedReport is a ReportArm with its report's bytes, read once for its
// SHA-256 and its rows.
type loadedReport struct {
	ReportArm
	raw []byte
}

// ReadReports reads each arm's sweep from its run report, per seed (val
// and test), after checking that the report verifies (every number
// derived again from its inputs) and that the reports share their track,
// seeds and metric: the rows, the metric's direction and the sources
// Compare records, one per arm with its report's SHA-256.
func ReadReports(arms []ReportArm) ([]Row, stats.Direction, []report.ComparedSource, error) {
	ls := make([]loadedReport, len(arms))
	srcs := make([]report.ComparedSource, len(arms))
	for i, a := range arms {
		raw, sum, err := readSource(a.Path, maxReportBytes)
		if err != nil {
			return nil, 0, nil, fmt.Errorf("arm %s: report: %v", a.Name, err)
		}
		ls[i] = loadedReport{a, raw}
		srcs[i] = report.ComparedSource{Arm: a.Name, Path: a.Path, ArmOfReport: a.Arm, SHA256: sum}
	}
	rows, dir, err := reportsRows(ls)
	return rows, dir, srcs, err
}

// reportsRows are the rows of the arms' reports, as ReadReports and
// VerifyWithSources read them.
func reportsRows(arms []loadedReport) ([]Row, stats.Direction, error) {
	var rows []Row
	var dir stats.Direction
	var track string
	var seeds []uint64
	for i, a := range arms {
		r, err := report.Parse(a.raw, a.Path)
		if err != nil {
			return nil, 0, fmt.Errorf("arm %s: %w", a.Name, err)
		}
		if r.Setup == nil {
			return nil, 0, fmt.Errorf("arm %s: %s is no run report (no setup block); give a report of ideabench run, or a file of per-seed metrics", a.Name, a.Path)
		}
		if bad := derive.Verify(r, derive.VerifyOptions{}).Mismatches(); len(bad) > 0 {
			return nil, 0, fmt.Errorf("arm %s: %s does not verify (%d fields differ from what its inputs give, first %s); run ideabench verify %s", a.Name, a.Path, len(bad), bad[0].Field, a.Path)
		}
		d, err := stats.ParseDirection(r.MetricDirection)
		if err != nil {
			return nil, 0, fmt.Errorf("arm %s: %s: metric_direction: %v", a.Name, a.Path, err)
		}
		raw, _ := r.ReadInputs()
		p := raw.Protocol
		if i == 0 {
			dir, track, seeds = d, r.Track, p.Seeds
		} else {
			switch {
			case r.Track != track:
				return nil, 0, fmt.Errorf("arm %s: %s ran on track %s, arm %s on %s; compare arms on one track", a.Name, a.Path, num.Quote(r.Track), arms[0].Name, num.Quote(track))
			case d != dir:
				return nil, 0, fmt.Errorf("arm %s: %s's metric is %s, arm %s's %s", a.Name, a.Path, d, arms[0].Name, dir)
			case !slices.Equal(p.Seeds, seeds):
				return nil, 0, fmt.Errorf("arm %s: %s ran seeds %v, arm %s seeds %v; the comparison pairs seeds, so run both on the same ones", a.Name, a.Path, p.Seeds, arms[0].Name, seeds)
			}
		}
		var sweep *report.RawArm
		switch a.Arm {
		case "baseline":
			sweep = &raw.Baseline
		case "idea":
			sweep = &raw.Idea
		default:
			for k := range raw.Ideas {
				if p.ArmName(raw.Ideas[k].Arm) == a.Arm {
					sweep = &raw.Ideas[k]
				}
			}
		}
		if sweep == nil || len(sweep.Rows) == 0 {
			return nil, 0, fmt.Errorf("arm %s: %s has no arm %s; name baseline, idea or an idea arm of the report", a.Name, a.Path, num.Quote(a.Arm))
		}
		for _, row := range sweep.Rows {
			cfg := cfgLabel(row.Cfg)
			for k, seed := range seeds {
				cr := Row{Arm: a.Name, Cfg: cfg, Seed: fmt.Sprint(seed), Test: row.Test[k]}
				if row.HasVal {
					v := row.Val[k]
					cr.Val = &v
				}
				rows = append(rows, cr)
			}
		}
	}
	return rows, dir, nil
}

// cfgLabel names a sweep's cfg by its learning rate and the training
// settings beside it, the idea's left out: cfgs of two arms' sweeps that
// trained alike carry the same label, and compare pairs them by it.
func cfgLabel(c protocol.Cfg) string {
	return fmt.Sprintf("lr=%g epochs=%d", c.LR, c.Epochs)
}

// sourceLine is Compared.Source: a metrics file's path (or the label of
// rows given in memory), or NAME=PATH#ARM of each report's arm.
func sourceLine(ss []report.ComparedSource) string {
	var out []string
	for _, s := range ss {
		if s.Arm == "" {
			out = append(out, s.Path)
			continue
		}
		out = append(out, s.Arm+"="+s.Path+"#"+s.ArmOfReport)
	}
	return strings.Join(out, ", ")
}

// checkSources reports what is wrong with the sources of c as a finding
// (field, what it has, what it should have), or ok: one metrics file (or
// rows given in memory) without an arm, or one run report per arm of c,
// each naming its arm once; every path given; every SHA-256 64 lowercase
// hex digits (empty only for rows given in memory).
func checkSources(c *report.Compared) (field, got, want string, ok bool) {
	ss := c.Sources
	if len(ss) == 0 {
		return "sources", "no sources", "the metrics file, or one run report per arm", false
	}
	hexSHA := func(s string) bool {
		return len(s) == 2*sha256.Size && strings.Trim(s, "0123456789abcdef") == ""
	}
	if ss[0].Arm == "" {
		s := ss[0]
		switch {
		case len(ss) > 1:
			return "sources", fmt.Sprintf("%d sources, the first with no arm", len(ss)), "one metrics file, or one run report per arm, each naming its arm", false
		case s.Path == "":
			return "sources[0].path", `""`, "the metrics file's path", false
		case s.ArmOfReport != "":
			return "sources[0].arm_of_report", num.Quote(s.ArmOfReport), "none: a metrics file holds every arm (a run report's arm names its arm too)", false
		case s.SHA256 != "" && !hexSHA(s.SHA256):
			return "sources[0].sha256", num.Quote(s.SHA256), "a SHA-256: 64 lowercase hex digits", false
		}
		return "", "", "", true
	}
	if len(ss) != len(c.Arms) {
		return "sources", fmt.Sprintf("%d run reports", len(ss)), fmt.Sprintf("one per arm: %d", len(c.Arms)), false
	}
	arms := map[string]bool{}
	for _, a := range c.Arms {
		arms[a.Name] = true
	}
	named := map[string]bool{}
	for i, s := range ss {
		at := fmt.Sprintf("sources[%d]", i)
		switch {
		case !arms[s.Arm] || named[s.Arm]:
			return at + ".arm", num.Quote(s.Arm), "an arm of the report, each named by one source", false
		case s.Path == "":
			return at + ".path", `""`, "the run report's path", false
		case s.ArmOfReport == "":
			return at + ".arm_of_report", `""`, "the report's arm: baseline, idea or an idea arm's name", false
		case !hexSHA(s.SHA256):
			return at + ".sha256", num.Quote(s.SHA256), "a SHA-256: 64 lowercase hex digits", false
		}
		named[s.Arm] = true
	}
	return "", "", "", true
}

// VerifyWithSources verifies c, read from reportPath: derived again from
// its inputs (Verify), and its inputs read again from every source that
// is there, by the code compare read them with. A source with another
// SHA-256 than the one recorded (it changed since) is a mismatch naming
// the file; every input leaf of c (metric direction, seeds, arm and cfg
// names, per-seed values) that differs from what the unchanged sources
// give, put through Compare with c's settings, is a mismatch named where
// it stands. An arm whose source is absent keeps the report's own
// values, checked against each other only (Verify): a note, not a
// mismatch.
//
// A relative path is looked for as compare was given it (relative to the
// current directory), then relative to the directory of reportPath; the
// first that exists is read.
func VerifyWithSources(c *report.Compared, reportPath string) derive.Findings {
	f := Verify(c)
	if _, _, _, ok := checkSources(c); ok && len(c.Arms) >= 2 {
		s := verifySources(c, reportPath)
		f.Checked += s.Checked
		f.Findings = append(f.Findings, s.Findings...)
	}
	return f
}

// verifySources is VerifyWithSources' check of the sources of c, whose
// sources fit its arms (checkSources) and which has at least two arms.
func verifySources(c *report.Compared, reportPath string) derive.Findings {
	v := &findings{}
	const unchecked = "the arms' per-seed values are checked against each other only, not against their source"
	// fresh[i]: source i is there with its recorded SHA-256, and its bytes.
	fresh := make([][]byte, len(c.Sources))
	paths := make([]string, len(c.Sources))
	for i, s := range c.Sources {
		at := fmt.Sprintf("sources[%d]", i)
		if s.SHA256 == "" {
			v.add(at, s.Path, "a file", "rows given in memory, with no file to read again: "+unchecked)
			continue
		}
		p, ok := locate(s.Path, filepath.Dir(reportPath))
		if !ok {
			v.add(at, s.Path, "a file", s.Path+" is absent here: "+unchecked)
			continue
		}
		max := int64(MaxMetricsBytes)
		if s.Arm != "" {
			max = maxReportBytes
		}
		raw, sum, err := readSource(p, max)
		switch {
		case err != nil: // there but unreadable: a mismatch, not an absence
			v.add(at, s.Path, "a file compare can read: "+err.Error(), "")
		case sum != s.SHA256:
			v.add(at+".sha256", s.SHA256, fmt.Sprintf("%s, the SHA-256 of %s now: it changed after the comparison was made", sum, p), "")
		default:
			v.checked++
			fresh[i], paths[i] = raw, p
		}
	}
	rows, dir, ok, err := sourceRows(c, fresh, paths)
	if err != nil {
		v.add("sources", "rows compare read", "none: reading them again: "+err.Error(), "")
		return v.result()
	}
	if !ok {
		return v.result()
	}
	opt := Options{Sources: c.Sources, Baseline: c.Arms[0].Name, Direction: dir, Alpha: c.Alpha, MinEffectPct: c.MinEffectPct}
	again, err := Compare(rows, opt)
	if err != nil {
		v.add("sources", "a comparison", "the sources' rows give none: "+err.Error(), "")
		return v.result()
	}
	// Only the inputs are compared: Verify derives the rest from them.
	type inputs struct {
		MetricDirection string     `json:"metric_direction"`
		Seeds           []string   `json:"seeds"`
		Arms            []armInput `json:"arms"`
	}
	d := derive.Diff(inputs{c.MetricDirection, c.Seeds, armInputs(c)}, inputs{again.MetricDirection, again.Seeds, armInputs(again)})
	for k := range d.Findings {
		d.Findings[k].Want += " (read from the sources)"
	}
	d.Checked += v.checked
	d.Findings = append(v.found, d.Findings...)
	return d
}

// sourceRows are the rows Compare made c from, each source that is fresh
// read again from its bytes (by the code compare used) and the others
// taken from c's arms, and the metric's direction (the run reports', or
// c's for a metrics file); ok is false when no source is fresh, or c's
// arms cannot be read as rows (Verify names why).
func sourceRows(c *report.Compared, fresh [][]byte, paths []string) (rows []Row, dir stats.Direction, ok bool, err error) {
	dir, err = stats.ParseDirection(c.MetricDirection)
	if err != nil || !slices.ContainsFunc(fresh, func(b []byte) bool { return b != nil }) {
		return nil, 0, false, nil
	}
	if c.Sources[0].Arm == "" {
		rows, err := metricsRows(fresh[0], paths[0])
		return rows, dir, true, err
	}
	var ls []loadedReport
	for i, s := range c.Sources {
		if fresh[i] != nil {
			ls = append(ls, loadedReport{ReportArm{Name: s.Arm, Path: paths[i], Arm: s.ArmOfReport}, fresh[i]})
		}
	}
	read, rdir, err := reportsRows(ls)
	if err != nil {
		return nil, 0, false, err
	}
	for i, s := range c.Sources {
		if fresh[i] != nil {
			for _, r := range read {
				if r.Arm == s.Arm {
					rows = append(rows, r)
				}
			}
			continue
		}
		own, ok := armRows(c, s.Arm)
		if !ok {
			return nil, 0, false, nil
		}
		rows = append(rows, own...)
	}
	return rows, rdir, true, nil
}

// armRows are the rows of c's arm name as c holds them; ok is false
// where c has no such arm or its per-seed lists do not match its seeds.
func armRows(c *report.Compared, name string) ([]Row, bool) {
	for _, a := range c.Arms {
		if a.Name != name {
			continue
		}
		var rows []Row
		for _, cf := range a.Cfgs {
			if len(cf.Test.PerSeed) != len(c.Seeds) || (cf.Val != nil && len(cf.Val.PerSeed) != len(c.Seeds)) {
				return nil, false
			}
			for k, seed := range c.Seeds {
				r := Row{Arm: a.Name, Cfg: cf.Name, Seed: seed, Test: cf.Test.PerSeed[k]}
				if cf.Val != nil {
					r.Val = &cf.Val.PerSeed[k]
				}
				rows = append(rows, r)
			}
		}
		return rows, true
	}
	return nil, false
}

// locate finds a source's path: as given, then, if relative, beside the
// comparison report (in dir); ok is false where neither exists. A path
// that exists but cannot be read is found, so that reading names why.
func locate(path, dir string) (string, bool) {
	exists := func(p string) bool {
		_, err := os.Stat(p)
		return !errors.Is(err, fs.ErrNotExist)
	}
	if exists(path) {
		return path, true
	}
	if p := filepath.Join(dir, path); !filepath.IsAbs(path) && exists(p) {
		return p, true
	}
	return "", false
}
