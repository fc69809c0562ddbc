package testkit

import (
	"encoding/json"
	"flag"
	"math"
	"regexp"
	"sort"

	"github.com/ideabench/ideabench/internal/jsonstrict"
)

// Leaf is one scalar of a JSON document: its path (jsonstrict.PathString)
// and the object keys and array indices that reach it from the root.
type Leaf struct {
	Path string
	Keys []any
}

// Leaves lists every scalar of the decoded JSON doc in document order,
// object keys sorted.
func Leaves(doc any) []Leaf {
	var out []Leaf
	var walk func(v any, keys []any)
	walk = func(v any, keys []any) {
		switch v := v.(type) {
		case map[string]any:
			ks := make([]string, 0, len(v))
			for k := range v {
				ks = append(ks, k)
			}
			sort.Strings(ks)
			for _, k := range ks {
				walk(v[k], append(append([]any(nil), keys...), k))
			}
		case []any:
			for i, x := range v {
				walk(x, append(append([]any(nil), keys...), i))
			}
		default:
			out = append(out, Leaf{Path: jsonstrict.PathString(keys), Keys: keys})
		}
	}
	walk(doc, nil)
	return out
}

// Tamper returns a copy of the JSON document raw with the leaf at keys
// changed: a whole number plus 1, any other number times 1 + 1e-6 (a zero
// becomes 1e-6), a bool flipped, a string with "x" appended, a null
// made 1.
func Tamper(raw []byte, keys []any) ([]byte, error) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	parent := doc
	for _, k := range keys[:len(keys)-1] {
		switch k := k.(type) {
		case string:
			parent = parent.(map[string]any)[k]
		case int:
			parent = parent.([]any)[k]
		}
	}
	change := func(v any) any {
		switch v := v.(type) {
		case float64:
			switch {
			case v == 0:
				return 1e-6
			case v == math.Trunc(v) && math.Abs(v) < 1<<53:
				return v + 1
			}
			return v * (1 + 1e-6)
		case bool:
			return !v
		case string:
			return v + "x"
		}
		return 1.0 // null
	}
	switch k := keys[len(keys)-1].(type) {
	case string:
		m := parent.(map[string]any)
		m[k] = change(m[k])
	case int:
		a := parent.([]any)
		a[k] = change(a[k])
	}
	return json.Marshal(doc)
}

// Long is the -long flag of the module's tests: the exhaustive form of
// a check whose default run samples (every leaf of a report edited, not
// one of each kind), which .ci/run runs in a step of its own.
var Long = flag.Bool("long", false, "run the exhaustive form of the slowest checks (every leaf of every report edited); .ci/run runs it in its own step")

// Representatives are, unless -long is set, the first and the last leaf
// of each path of ls with its indices left out (tracks[*].effects[*]),
// in document order: every kind of leaf, at both ends of its arrays.
// With -long, ls itself.
func Representatives(ls []Leaf) []Leaf {
	if *Long {
		return ls
	}
	index := regexp.MustCompile(`\[[0-9]+\]`)
	first, last := map[string]int{}, map[string]int{}
	for i, l := range ls {
		k := index.ReplaceAllString(l.Path, "[*]")
		if _, ok := first[k]; !ok {
			first[k] = i
		}
		last[k] = i
	}
	var out []Leaf
	for i, l := range ls {
		k := index.ReplaceAllString(l.Path, "[*]")
		if first[k] == i || last[k] == i {
			out = append(out, l)
		}
	}
	return out
}
