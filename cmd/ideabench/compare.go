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
	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/internal/jsonstrict"
	"github.com/ideabench/ideabench/internal/num"
	"github.com/ideabench/ideabench/plots"
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
		return fmt.Errorf("%w: compare takes one file of per-seed metrics\nusage: %s", errUsage, synopsis("compare"))
	}
	file := fs.Arg(0)
	if err := parseFlags(fs, fs.Args()[1:], stdout); err != nil { // flags after the file
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: compare takes one file (got also %q)", errUsage, fs.Args())
	}
	// Each flag's value as given: compare.Options reads an alpha of 0 as
	// its default, which --alpha 0 must not become.
	if err := stats.CheckAlpha(*alpha); err != nil {
		return fmt.Errorf("%w: --alpha = %v: %v", errUsage, *alpha, err)
	}
	if err := stats.CheckMinEffectPct(*minEff); err != nil {
		return fmt.Errorf("%w: --min-effect-pct = %v: %v", errUsage, *minEff, err)
	}
	if err := checkOutputs([]output{{named: named{"--out", *out}}}, []named{{"the metrics file", file}}, nil); err != nil {
		return err
	}
	var made madeDirs
	defer made.undoOnError(&err)
	if err := checkWritable(&made, *out); err != nil {
		return err
	}
	raw, err := inputfile.Read(file, maxMetricsBytes)
	if err != nil {
		return err
	}
	raw = bytes.TrimPrefix(raw, []byte("\ufeff"))
	rows, err := readCompareRows(raw, file)
	if err != nil {
		return err
	}
	dir := stats.LowerIsBetter
	if *higher {
		dir = stats.HigherIsBetter
	}
	c, err := compare.Compare(rows, compare.Options{Source: file, Baseline: *baseline, Direction: dir, Alpha: *alpha, MinEffectPct: *minEff})
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
