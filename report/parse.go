package report

import (
	"encoding/json"
	"reflect"

	"github.com/ideabench/ideabench/internal/jsonstrict"
)

// ParseReport decodes a report read from the file name (used only in
// messages). Malformed JSON is an error naming the file and the line:column
// of the fault, a value of the wrong type also names its JSON path, input
// that ends inside the JSON is said to look truncated, and a key given
// twice is refused. Unknown keys are set aside: the report reads, and
// Verify names each, since nothing checks them. ParseReport never panics,
// and Verify accepts every report it returns.
func ParseReport(raw []byte, name string) (*Report, error) {
	if err := jsonstrict.CheckObject(raw, name, "report"); err != nil {
		return nil, err
	}
	missing, err := SchemaCheck(raw, name)
	if err != nil {
		return nil, err
	}
	var r Report
	vals, _ := jsonstrict.Values(raw) // raw is valid JSON, so the walk cannot fail
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, jsonstrict.DecodeError(raw, vals, name, "report", err)
	}
	if err := jsonstrict.DuplicateKey(raw, vals, name); err != nil {
		return nil, err
	}
	r.missing = missing
	r.unknown = jsonstrict.UnknownKeys(vals, reflect.TypeFor[Report]())
	return &r, nil
}
