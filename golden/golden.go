package golden

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"path/filepath"
	"runtime"
	"strconv"

	"github.com/gkampitakis/go-snaps/snaps"
)

// Update rewrites the golden files instead of comparing (-update).
var Update = flag.Bool("update", false, "rewrite golden files under golden/")

// Digits is the number of significant digits golden numbers are compared
// at. float32 training summed in another order (another kernel, a fused
// multiply-add) moves metrics in their 6th-7th digit; 5 digits still pins
// every selection, win count and verdict.
const Digits = 5

// Normalize returns report JSON without its "run" block and its input
// digests (setup.digests: hashes of the full-precision values, which the
// rounded numbers stand for here and verify checks), with every number
// rounded to Digits significant digits, indented.
func Normalize(report []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(report))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("golden: report is not a JSON object: %w", err)
	}
	delete(v, "run")
	if setup, ok := v["setup"].(map[string]any); ok {
		delete(setup, "digests")
	}
	out, err := json.MarshalIndent(round(v), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("golden: %w", err)
	}
	return append(out, '\n'), nil
}

func round(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = round(e)
		}
	case []any:
		for i, e := range x {
			x[i] = round(e)
		}
	case json.Number:
		if i, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return i
		}
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return x
		}
		r, _ := strconv.ParseFloat(strconv.FormatFloat(f, 'g', Digits, 64), 64)
		return r
	}
	return v
}

// T is the part of *testing.T that Match needs.
type T interface {
	Helper()
	Skip(...any)
	Skipf(string, ...any)
	SkipNow()
	Name() string
	Error(...any)
	Log(...any)
	Cleanup(func())
}

// Match compares the normalized report with the golden file
// golden/NAME_1.snap.json.
func Match(t T, name string, report []byte) {
	t.Helper()
	norm, err := Normalize(report)
	if err != nil {
		t.Error(err)
		return
	}
	opts := []func(*snaps.Config){snaps.Dir(Dir()), snaps.Filename(name)}
	if *Update {
		opts = append(opts, snaps.Update(true))
	}
	snaps.WithConfig(opts...).MatchStandaloneJSON(t, string(norm))
}

// Dir is the folder of the golden files: this package's source folder.
func Dir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(file)
}
