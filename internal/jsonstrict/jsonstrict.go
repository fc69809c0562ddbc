// Package jsonstrict is the one strict reading of every JSON file
// ideabench reads (configs, reports, comparison and suite reports, suite
// files, trial records, manifests, an external trainer's result, per-seed
// metrics): one JSON value of the kind its Go type takes and nothing after
// it, no key twice, every key a field of the struct it decodes into
// (spelt exactly), and every error naming the file, the line:column and
// the JSON path of the fault.
//
//  1. Parse checks the syntax (where a file looks truncated, it says so),
//     the top level's kind, then every key against the Go type.
//  2. Doc.Decode decodes, naming the path of a value of the wrong type.
//
// Decode does both, and ReadFile reads a file first. Peek probes one
// top-level key, to tell what a file is before it is read.
package jsonstrict

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Doc is a JSON document that passed Parse, ready to decode.
type Doc struct {
	raw        []byte
	name, what string
	vals       []Value
}

// Parse checks raw, the contents of the file name (used in messages),
// which holds a what ("config", "report", "suite report", ...), for
// decoding into a value of type root: one valid JSON value and nothing
// but white space after it; at the top level an object where root is a
// struct or a map, an array where it is a slice; no key twice in an
// object; every key a field of the struct it decodes into, spelt exactly
// (encoding/json would also take another case, so "Baseline" would decode
// over a profile's grid; a map, and a type that decodes its own JSON,
// take any key). A fault is an error "what name:line:col: path: ...".
func Parse(raw []byte, name, what string, root reflect.Type) (*Doc, error) {
	for root.Kind() == reflect.Pointer {
		root = root.Elem()
	}
	if err := checkSyntax(raw, name, what, root); err != nil {
		return nil, err
	}
	vals, err := values(raw)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, name, err)
	}
	d := &Doc{raw: raw, name: name, what: what, vals: vals}
	if err := d.checkKeys(root); err != nil {
		return nil, err
	}
	return d, nil
}

// Values lists every value of the document in document order (a parent
// before its children).
func (d *Doc) Values() []Value { return d.vals }

// Decode decodes the document into v, a pointer to Parse's root type
// (over what v holds, as encoding/json does). A value of the wrong type
// is an error naming the file, the line:column and the JSON path of the
// value and what to write instead. A number decodes into an interface as
// a json.Number, as written.
func (d *Doc) Decode(v any) error {
	dec := json.NewDecoder(bytes.NewReader(d.raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return d.decodeError(err)
	}
	return nil
}

// Decode reads raw, the contents of the file name holding a what, into
// v strictly: Parse against v's type, then Doc.Decode.
func Decode(raw []byte, name, what string, v any) error {
	d, err := Parse(raw, name, what, reflect.TypeOf(v))
	if err != nil {
		return err
	}
	return d.Decode(v)
}

// ReadFile reads the file path, which holds a what, into v as Decode
// does.
func ReadFile(path, what string, v any) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return Decode(raw, path, what, v)
}

// Peek decodes the value of key at the top level of the JSON object raw
// into v and reports whether it could: a probe of what a file is (a suite
// report, a comparison) before it is read strictly. Nothing else of raw
// is checked.
func Peek(raw []byte, key string, v any) bool {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return false
	}
	val, ok := top[key]
	return ok && json.Unmarshal(val, v) == nil
}

// repeatedKey returns the first member of vals whose key its object gave
// before.
func repeatedKey(vals []Value) (Value, bool) {
	seen := map[string]bool{}
	for _, v := range vals {
		if v.key < 0 {
			continue
		}
		full := PathString(v.Path)
		if seen[full] {
			return v, true
		}
		seen[full] = true
	}
	return Value{}, false
}

// Value is one value of a JSON document.
type Value struct {
	Path       []any // object keys (string) and array indices (int) from the root
	key        int64 // offset of the member's key, -1 for the root and array elements
	start, end int64 // the value's bytes, raw[start:end]
}

// PathString writes a path as a config or report field is named in the
// docs: keys joined by dots, indices in brackets ("idea[1].epochs"). A key
// that is not a plain identifier is quoted in brackets (`["a b"]`).
func PathString(path []any) string {
	var b strings.Builder
	for _, c := range path {
		switch c := c.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", c)
		case string:
			if !isIdent(c) {
				fmt.Fprintf(&b, "[%q]", c)
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(c)
		}
	}
	return b.String()
}

func isIdent(s string) bool {
	for i, r := range s {
		if !(r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}

// values lists every value of the valid JSON document raw in document
// order (a parent before its children). checkSyntax bounds the nesting
// depth first, as encoding/json does, so the recursion stays shallow.
func values(raw []byte) ([]Value, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // a number beyond float64 is still a token
	var vals []Value
	var path []any
	// next is the offset of the next token: the decoder's offset is just
	// past the previous one, before any separator.
	next := func() int64 {
		off := dec.InputOffset()
		for off < int64(len(raw)) && strings.IndexByte(" \t\r\n,:", raw[off]) >= 0 {
			off++
		}
		return off
	}
	var walk func(key int64) error
	walk = func(key int64) error {
		i := len(vals)
		vals = append(vals, Value{Path: append([]any(nil), path...), key: key, start: next()})
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			for dec.More() {
				k := next()
				tok, err := dec.Token()
				if err != nil {
					return err
				}
				name, _ := tok.(string) // inside an object the decoder yields string keys
				path = append(path, name)
				if err := walk(k); err != nil {
					return err
				}
				path = path[:len(path)-1]
			}
			_, err = dec.Token()
		case json.Delim('['):
			for n := 0; dec.More(); n++ {
				path = append(path, n)
				if err := walk(-1); err != nil {
					return err
				}
				path = path[:len(path)-1]
			}
			_, err = dec.Token()
		}
		vals[i].end = dec.InputOffset()
		return err
	}
	return vals, walk(-1)
}

// lineCol is the 1-based line and column (in characters) of byte off of
// raw; off = len(raw) is the position just past the end.
func lineCol(raw []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(raw)))
	before := raw[:off]
	start := bytes.LastIndexByte(before, '\n') + 1
	return 1 + bytes.Count(before, []byte{'\n'}), 1 + utf8.RuneCount(before[start:])
}

// at is the message prefix of a fault at byte off of the file name.
func at(what, name string, raw []byte, off int64) string {
	line, col := lineCol(raw, off)
	return fmt.Sprintf("%s %s:%d:%d: ", what, name, line, col)
}

// syntaxPath returns the path ("baseline[0].lr") of the value in which
// the JSON raw first fails to parse, "" at the top level: it follows the
// decoder's tokens up to the error.
func syntaxPath(raw []byte) string {
	type frame struct {
		obj     bool
		wantKey bool   // an object between members
		key     string // an object's current key
		idx     int    // an array's last element read
	}
	var stack []*frame
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch tok {
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].wantKey = true
			}
			continue
		}
		if top != nil && top.obj && top.wantKey {
			top.key, top.wantKey = tok.(string), false
			continue
		}
		if top != nil && !top.obj {
			top.idx++
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, wantKey: true})
		case json.Delim('['):
			stack = append(stack, &frame{idx: -1})
		default:
			if top != nil && top.obj {
				top.wantKey = true
			}
		}
	}
	var path []any
	for i, f := range stack {
		switch {
		case f.obj && !f.wantKey:
			path = append(path, f.key)
		case !f.obj && i < len(stack)-1:
			path = append(path, f.idx) // an element that opened
		case !f.obj:
			path = append(path, f.idx+1) // the element that failed to start
		}
	}
	return PathString(path)
}

// checkSyntax checks that raw is one syntactically valid JSON value of
// the kind root takes at the top level, nothing after it, and says where
// it is not.
func checkSyntax(raw []byte, name, what string, root reflect.Type) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		if what == "config" {
			return fmt.Errorf("config %s: the file is empty; write a JSON object, {} keeps the profile", name)
		}
		return fmt.Errorf("%s %s: the file is empty; it looks truncated, write the %s again", what, name, what)
	}
	var skip json.RawMessage
	err := json.Unmarshal(raw, &skip)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		// Input cut short fails at its end whatever follows, so one more
		// byte moves the fault past the end; any other fault stays put.
		var again *json.SyntaxError
		if errors.As(json.Unmarshal(append(raw[:len(raw):len(raw)], ' '), &skip), &again) && again.Offset > int64(len(raw)) {
			return fmt.Errorf("%sthe JSON ends inside a value after %d bytes; the file looks truncated, write it again in full", at(what, name, raw, int64(len(raw))), len(raw))
		}
		// Offset counts the offending byte.
		field := ""
		if f := syntaxPath(raw); f != "" {
			field = f + ": "
		}
		hint := ""
		if c := raw[se.Offset-1]; c == 'N' || c == 'I' || c == 'n' && bytes.HasPrefix(raw[se.Offset-1:], []byte("nan")) {
			hint = "; JSON has no NaN or Infinity: write a finite number"
		}
		return fmt.Errorf("%s%s%v%s", at(what, name, raw, se.Offset-1), field, se, hint)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, name, err)
	}
	if reflect.PointerTo(root).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return nil // it reads its own top level
	}
	start := int64(len(raw) - len(bytes.TrimLeft(raw, " \t\r\n")))
	switch c := raw[start]; {
	case (root.Kind() == reflect.Struct || root.Kind() == reflect.Map) && c != '{':
		return fmt.Errorf("%sthe top level is %s, not a JSON object; write the %s as {...}", at(what, name, raw, start), kindOf(c), what)
	case (root.Kind() == reflect.Slice || root.Kind() == reflect.Array) && c != '[':
		return fmt.Errorf("%sthe top level is %s, not a JSON array; write the %s as [...]", at(what, name, raw, start), kindOf(c), what)
	}
	return nil
}

// kindOf names the kind of the JSON value starting with byte c.
func kindOf(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// decodeError turns an error of decoding the document into one that
// names the file, the line:column and the JSON path of the value at
// fault and what to write instead.
func (d *Doc) decodeError(err error) error {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return fmt.Errorf("%s %s: %w", d.what, d.name, err)
	}
	// Offset is just past a scalar or just past the opening byte of an
	// object or array, so byte Offset-1 lies in the value at fault; the last
	// value in document order that holds it is the innermost.
	fault := te.Offset - 1
	pos, path, text := fault, te.Field, ""
	for _, v := range d.vals {
		if v.start <= fault && fault < v.end {
			pos, path, text = v.start, PathString(v.Path), excerpt(d.raw[v.start:v.end])
		}
	}
	if path == "" {
		path = "the top level"
	}
	return fmt.Errorf("%s%s = %s: %s", at(d.what, d.name, d.raw, pos), path, text, wantType(te.Type))
}

// excerpt is the start of a value's JSON text, for a message.
func excerpt(b []byte) string {
	const n = 40
	s := string(b)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i] + "…"
	}
	if len(s) > n {
		s = strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// wantType says what a value of type t looks like in JSON.
func wantType(t reflect.Type) string {
	if t == nil {
		return "the value has the wrong type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "not a whole number in " + t.Kind().String() + " range; write one such as 8"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "not a whole number >= 0 in " + t.Kind().String() + " range; write one such as 1"
	case reflect.Float32, reflect.Float64:
		return "not a number in " + t.Kind().String() + " range; write one such as 0.001"
	case reflect.String:
		return "not a string; write it in double quotes"
	case reflect.Bool:
		return "not a boolean; write true or false"
	case reflect.Slice, reflect.Array:
		return "not an array; write it as [...]"
	case reflect.Struct:
		return "not an object; write it as {...} with keys " + strings.Join(jsonFields(t), ", ")
	case reflect.Map:
		return "not an object; write it as {...}"
	}
	return "cannot be read as " + t.String()
}

// jsonFields are the JSON keys of struct type t, in field order.
func jsonFields(t reflect.Type) []string {
	var keys []string
	for _, f := range keyedFields(t) {
		keys = append(keys, f.key)
	}
	return keys
}

// keyedField is a field of a struct type as encoding/json reads it.
type keyedField struct {
	key string
	typ reflect.Type
}

// keyedFields are the fields of struct type t that encoding/json reads,
// by their JSON keys, in field order: a field named by its tag or else
// its Go name, exported, not "-"; an embedded struct without a tag name
// gives its own fields in its place (encoding/json promotes them).
// The list is made once per type (keyedCache): a report has thousands
// of objects of a few dozen types. Callers must not modify it.
func keyedFields(t reflect.Type) []keyedField {
	if v, ok := keyedCache.Load(t); ok {
		return v.([]keyedField)
	}
	out := keyedFieldsOf(t)
	keyedCache.Store(t, out)
	return out
}

// keyedCache holds keyedFields' lists by struct type.
var keyedCache sync.Map

// keyedFieldsOf is keyedFields, made.
func keyedFieldsOf(t reflect.Type) []keyedField {
	var out []keyedField
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case name == "-":
		case f.Anonymous && name == "" && ft.Kind() == reflect.Struct:
			out = append(out, keyedFields(ft)...)
		case !f.IsExported():
		case name == "":
			out = append(out, keyedField{f.Name, f.Type})
		default:
			out = append(out, keyedField{name, f.Type})
		}
	}
	return out
}

// checkKeys checks every object key of the document against the Go type
// root it decodes into: a key must name a field exactly and appear once
// in its object (encoding/json would keep the last).
func (d *Doc) checkKeys(root reflect.Type) error {
	raw, vals := d.raw, d.vals
	if v, ok := repeatedKey(vals); ok {
		where := "the top level"
		if len(v.Path) > 1 {
			where = PathString(v.Path[:len(v.Path)-1])
		}
		return fmt.Errorf("%sduplicate key %s in %s; give each key once", at(d.what, d.name, raw, v.key), strconv.Quote(v.Path[len(v.Path)-1].(string)), where)
	}
	for _, v := range vals {
		if v.key < 0 {
			continue
		}
		parent := fieldType(root, v.Path[:len(v.Path)-1])
		if parent == nil || parent.Kind() != reflect.Struct {
			continue // a map's key, or a parent of the wrong type, which decoding reports
		}
		if reflect.PointerTo(parent).Implements(reflect.TypeFor[json.Unmarshaler]()) {
			continue // it decodes its own keys (an idea's params)
		}
		key := v.Path[len(v.Path)-1].(string)
		keys := jsonFields(parent)
		if slices.Contains(keys, key) {
			continue
		}
		where := "the top level"
		if len(v.Path) > 1 {
			where = PathString(v.Path[:len(v.Path)-1])
		}
		hint := ""
		for _, k := range keys {
			if strings.EqualFold(k, key) {
				hint = fmt.Sprintf(" (keys are case-sensitive: write %q)", k)
			}
		}
		return fmt.Errorf("%sunknown field %q in %s%s; %s takes %s", at(d.what, d.name, raw, v.key), key, where, hint, where, strings.Join(keys, ", "))
	}
	return nil
}

// fieldType is the Go type that the value at path decodes into, nil when
// the path leaves the type (a key it lacks, an index into a non-array).
func fieldType(t reflect.Type, path []any) reflect.Type {
	for _, c := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch c := c.(type) {
		case string:
			if t.Kind() != reflect.Struct {
				return nil
			}
			ft, ok := fieldByKey(t, c)
			if !ok {
				return nil
			}
			t = ft
		case int:
			if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
				return nil
			}
			t = t.Elem()
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

// fieldByKey is the type of the field of struct type t whose JSON key is
// key.
func fieldByKey(t reflect.Type, key string) (reflect.Type, bool) {
	for _, f := range keyedFields(t) {
		if f.key == key {
			return f.typ, true
		}
	}
	return nil, false
}
