package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/compare"
	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/internal/jsonstrict"
	"github.com/ideabench/ideabench/internal/num"
	"github.com/ideabench/ideabench/plots"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/stats"
)

// cmdCompare compares arms whose trials ran elsewhere.
func cmdCompare(args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("compare")
	out := fs.String("out", "ideabench-compare.json", "where to write the comparison report")
	baseline := fs.String("baseline", "", "the baseline arm's name (default: the first arm in the file)")
	higher := fs.Bool("higher-is-better", false, "the metric grows with quality (accuracy); by default lower is better (MSE, loss)")
	alpha := fs.Float64("alpha", 0.05, "significance level")
	minEff := fs.Float64("min-effect-pct", 1, "smallest improvement of interest, in percent of the baseline's mean (power, negligible-effect warning); 0 for none")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: compare takes one file of per-seed metrics, or two or more arms of run reports (NAME=REPORT.json)\nusage: %s", errUsage, synopsis("compare"))
	}
	// The positional arguments, flags allowed after each.
	var files []string
	for fs.NArg() > 0 {
		files = append(files, fs.Arg(0))
		if err := parseFlags(fs, fs.Args()[1:], stdout); err != nil {
			return err
		}
	}
	fromReports := strings.Contains(files[0], "=")
	if !fromReports && len(files) > 1 {
		return fmt.Errorf("%w: compare takes one file of per-seed metrics (got also %q); arms of run reports are given as NAME=REPORT.json", errUsage, files[1:])
	}
	file := files[0]
	// Each flag's value as given: compare.Options reads an alpha of 0 as
	// its default, which --alpha 0 must not become.
	if err := stats.CheckAlpha(*alpha); err != nil {
		return fmt.Errorf("%w: --alpha = %v: %v", errUsage, *alpha, err)
	}
	if err := stats.CheckMinEffectPct(*minEff); err != nil {
		return fmt.Errorf("%w: --min-effect-pct = %v: %v", errUsage, *minEff, err)
	}
	var ins []named
	var arms []reportArm
	if fromReports {
		for _, f := range files {
			a, err := parseReportArm(f)
			if err != nil {
				return err
			}
			arms = append(arms, a)
			ins = append(ins, named{"the report of arm " + a.name, a.path})
		}
	} else {
		ins = []named{{"the metrics file", file}}
	}
	if err := checkOutputs([]output{{named: named{"--out", *out}}}, ins, nil); err != nil {
		return err
	}
	var made madeDirs
	defer made.undoOnError(&err)
	if err := checkWritable(&made, *out); err != nil {
		return err
	}
	dir := stats.LowerIsBetter
	if *higher {
		dir = stats.HigherIsBetter
	}
	var rows []compare.Row
	source := file
	if fromReports {
		var rdir stats.Direction
		rows, rdir, source, err = rowsOfReports(arms)
		if err != nil {
			return err
		}
		if *higher && rdir != stats.HigherIsBetter {
			return fmt.Errorf("%w: --higher-is-better: the reports' metric is %s; leave the flag out, the reports say which way is better", errUsage, rdir)
		}
		dir = rdir
	} else {
		raw, err := inputfile.Read(file, maxMetricsBytes)
		if err != nil {
			return err
		}
		raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
		if rows, err = readCompareRows(raw, file); err != nil {
			return err
		}
	}
	c, err := compare.Compare(rows, compare.Options{Source: source, Baseline: *baseline, Direction: dir, Alpha: *alpha, MinEffectPct: *minEff})
	if errors.Is(err, compare.ErrOption) {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if err != nil {
		return err
	}
	if err := c.WriteFile(*out); err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	if err := printCompared(stdout, c); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nreport: %s\n", *out)
	return nil
}

// maxMetricsBytes bounds compare's file: a million rows of arm, cfg,
// seed, val and test.
const maxMetricsBytes = 64 << 20

// readCompareRows reads per-seed metrics: CSV with a header naming arm,
// seed and test (cfg and val optional; other columns are refused), or a
// JSON array of objects with those keys.
func readCompareRows(raw []byte, name string) ([]compare.Row, error) {
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
		rows := make([]compare.Row, len(objs))
		for i, o := range objs {
			if o.Test == nil {
				return nil, fmt.Errorf("%s[%d]: no \"test\"; every row gives its test metric", name, i)
			}
			rows[i] = compare.Row{Arm: o.Arm, Cfg: label(o.Cfg), Seed: label(o.Seed), Val: o.Val, Test: *o.Test, Line: i + 1}
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
	var rows []compare.Row
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
		row := compare.Row{Arm: strings.TrimSpace(rec[col["arm"]]), Seed: strings.TrimSpace(rec[col["seed"]]), Line: line}
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

// reportArm is an arm of compare taken from a run report: NAME=PATH,
// or NAME=PATH#ARM for an arm other than the report's baseline.
type reportArm struct {
	name, path, arm string
}

func parseReportArm(s string) (reportArm, error) {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return reportArm{}, fmt.Errorf("%w: %s: an arm from a report is NAME=REPORT.json (or NAME=REPORT.json#ARM: idea, or an idea arm's name; the default is the baseline)", errUsage, num.Quote(s))
	}
	a := reportArm{name: name, path: path, arm: "baseline"}
	if p, arm, ok := strings.Cut(path, "#"); ok {
		a.path, a.arm = p, arm
	}
	return a, nil
}

// rowsOfReports reads each arm's sweep from its run report, per seed
// (val and test), after checking that the report verifies (every number
// derived again from its inputs) and that the reports share their track,
// seeds and metric: the rows, the metric's direction and a source line.
func rowsOfReports(arms []reportArm) ([]compare.Row, stats.Direction, string, error) {
	var rows []compare.Row
	var dir stats.Direction
	var track string
	var seeds []uint64
	var src []string
	for i, a := range arms {
		r, err := report.Read(a.path)
		if err != nil {
			return nil, 0, "", fmt.Errorf("arm %s: %w", a.name, err)
		}
		if r.Setup == nil {
			return nil, 0, "", fmt.Errorf("arm %s: %s is no run report (no setup block); give a report of ideabench run, or a file of per-seed metrics", a.name, a.path)
		}
		if bad := derive.Verify(r, derive.VerifyOptions{}).Mismatches(); len(bad) > 0 {
			return nil, 0, "", fmt.Errorf("arm %s: %s does not verify (%d fields differ from what its inputs give, first %s); run ideabench verify %s", a.name, a.path, len(bad), bad[0].Field, a.path)
		}
		d, err := stats.ParseDirection(r.MetricDirection)
		if err != nil {
			return nil, 0, "", fmt.Errorf("arm %s: %s: metric_direction: %v", a.name, a.path, err)
		}
		raw, _ := r.ReadInputs()
		p := raw.Protocol
		if i == 0 {
			dir, track, seeds = d, r.Track, p.Seeds
		} else {
			switch {
			case r.Track != track:
				return nil, 0, "", fmt.Errorf("arm %s: %s ran on track %s, arm %s on %s; compare arms on one track", a.name, a.path, num.Quote(r.Track), arms[0].name, num.Quote(track))
			case d != dir:
				return nil, 0, "", fmt.Errorf("arm %s: %s's metric is %s, arm %s's %s", a.name, a.path, d, arms[0].name, dir)
			case !slices.Equal(p.Seeds, seeds):
				return nil, 0, "", fmt.Errorf("arm %s: %s ran seeds %v, arm %s seeds %v; the comparison pairs seeds, so run both on the same ones", a.name, a.path, p.Seeds, arms[0].name, seeds)
			}
		}
		var sweep *report.RawArm
		switch a.arm {
		case "baseline":
			sweep = &raw.Baseline
		case "idea":
			sweep = &raw.Idea
		default:
			for k := range raw.Ideas {
				if p.ArmName(raw.Ideas[k].Arm) == a.arm {
					sweep = &raw.Ideas[k]
				}
			}
		}
		if sweep == nil || len(sweep.Rows) == 0 {
			return nil, 0, "", fmt.Errorf("arm %s: %s has no arm %s; name baseline, idea or an idea arm of the report", a.name, a.path, num.Quote(a.arm))
		}
		for _, row := range sweep.Rows {
			cfg := cfgLabel(row.Cfg)
			for k, seed := range seeds {
				cr := compare.Row{Arm: a.name, Cfg: cfg, Seed: fmt.Sprint(seed), Test: row.Test[k]}
				if row.HasVal {
					v := row.Val[k]
					cr.Val = &v
				}
				rows = append(rows, cr)
			}
		}
		src = append(src, a.name+"="+a.path+"#"+a.arm)
	}
	return rows, dir, strings.Join(src, ", "), nil
}

// cfgLabel names a sweep's cfg by its learning rate and the training
// settings beside it, the idea's left out: cfgs of two arms' sweeps that
// trained alike carry the same label, and compare pairs them by it.
func cfgLabel(c protocol.Cfg) string {
	return fmt.Sprintf("lr=%g epochs=%d", c.LR, c.Epochs)
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

// printCompared prints a comparison of results made elsewhere: its
// reading (plots.ComparedReading).
func printCompared(w io.Writer, c *report.Compared) error {
	return plots.ComparedReading(c).WriteText(w)
}

// verifyCompared derives a comparison report again and prints what
// differs.
func verifyCompared(file string, stdout io.Writer) error {
	c, err := report.ReadCompared(file)
	if err != nil {
		return err
	}
	f := compare.Verify(c)
	bad := f.Mismatches()
	for _, m := range bad {
		fmt.Fprintln(stdout, m)
	}
	fmt.Fprintf(stdout, "%s: %d fields checked, %d mismatches\n", file, f.Checked, len(bad))
	if len(bad) > 0 {
		return fmt.Errorf("%s does not verify: %d mismatches", file, len(bad))
	}
	return nil
}
