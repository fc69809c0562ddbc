package report

import (
	"fmt"
	"reflect"

	"github.com/ideabench/ideabench/internal/jsonstrict"
)

// MaxFileBytes bounds a run report read from a file (Read), so that a
// wrong path or a file grown without bound fails at once: a 300 MB
// report took verify 16 s and 2.3 GB. The full profile's report is
// 120 KB (golden/full_1.snap.json at full precision, 83 KB of it the
// two arms' loss and val curves, 8 seeds by 96 epochs); each further
// idea arm adds about 11 KB (the ci profile's 36 KB report grows to
// 175 KB with 13 of them), so the full profile with every registered
// idea is about 0.3 MB, and its curves at 64 seeds (a sequential
// design) about 2 MB. 32 MiB is 16 times that; a report of 31 MiB (the
// curves grown) took Read 2.6 s and 0.8 GB allocated on a 2-core
// development machine.
const MaxFileBytes = 32 << 20

// MaxComparedBytes bounds a comparison report read from a file
// (ReadCompared). It holds its metrics file's per-seed val and test
// values: 7.4 MB from a metrics file of 5.3 MB (100,000 rows), a ratio
// of 1.4, so 88 MiB from the largest metrics file compare reads
// (compare.MaxMetricsBytes, 64 MiB); 256 MiB is about 3 times that.
const MaxComparedBytes = 256 << 20

// Parse decodes a report read from the file name (used only in
// messages) strictly (jsonstrict): malformed JSON is an error naming the
// file and the line:column of the fault, input that ends inside the JSON
// is said to look truncated, and a value of the wrong type, a key given
// twice and a key that is no field of a report (nothing would check it)
// also name their JSON path. Parse never panics, and Verify accepts
// every report it returns.
func Parse(raw []byte, name string) (*Report, error) {
	// A JSON object that is no report is named as such before its keys.
	missing, err := SchemaCheck(raw, name)
	if err != nil {
		return nil, err
	}
	var r Report
	doc, err := jsonstrict.Parse(raw, name, "report", reflect.TypeFor[Report]())
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if err := doc.Decode(&r); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	r.missing = missing
	return &r, nil
}
