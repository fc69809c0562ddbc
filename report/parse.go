package report

import (
	"fmt"
	"reflect"

	"github.com/ideabench/ideabench/internal/jsonstrict"
)

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
