package jsonstrict

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

type testInner struct {
	A int `json:"a"`
}

type testEmbedded struct {
	E float64 `json:"e"`
}

type testDoc struct {
	testEmbedded
	Name string         `json:"name"`
	In   testInner      `json:"in"`
	List []testInner    `json:"list"`
	M    map[string]int `json:"m"`
	Any  any            `json:"any"`
}

// TestDecode: every fault names the file, the line:column and, below the
// top level, the JSON path.
func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		name, json, want string // want: an error substring; empty for valid
	}{
		{"valid", `{"name": "x", "e": 1, "in": {"a": 1}, "list": [{"a": 2}], "m": {"any key": 1}, "any": 12345678901234567890}`, ""},
		{"empty", " \n", "thing t.json: the file is empty; it looks truncated, write the thing again"},
		{"truncated", `{"name": "x"`, "thing t.json:1:13: the JSON ends inside a value after 12 bytes; the file looks truncated"},
		{"trailing", "{}\nx", "thing t.json:2:1: invalid character 'x' after top-level value"},
		{"second_value", "{} {}", "thing t.json:1:4: invalid character '{' after top-level value"},
		{"not_object", `[1]`, "thing t.json:1:1: the top level is an array, not a JSON object; write the thing as {...}"},
		{"nan", `{"e": NaN}`, "thing t.json:1:7: e: invalid character 'N' looking for beginning of value; JSON has no NaN or Infinity"},
		{"duplicate", `{"in": {"a": 1, "a": 2}}`, `thing t.json:1:17: duplicate key "a" in in; give each key once`},
		{"duplicate_top", "{\"name\": \"x\",\n \"name\": \"y\"}", `thing t.json:2:2: duplicate key "name" in the top level`},
		{"unknown", `{"zz": 1}`, `thing t.json:1:2: unknown field "zz" in the top level; the top level takes e, name, in, list, m, any`},
		{"case", `{"Name": "x"}`, `unknown field "Name" in the top level (keys are case-sensitive: write "name")`},
		{"unknown_nested", `{"list": [{"a": 1}, {"b": 1}]}`, `thing t.json:1:22: unknown field "b" in list[1]; list[1] takes a`},
		{"type", `{"in": {"a": "x"}}`, `thing t.json:1:14: in.a = "x": not a whole number in int range`},
		{"type_object", `{"in": 3}`, `thing t.json:1:8: in = 3: not an object; write it as {...} with keys a`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d testDoc
			err := Decode([]byte(tc.json), "t.json", "thing", &d)
			if tc.want == "" {
				require.NoError(t, err)
				require.Equal(t, testDoc{testEmbedded{1}, "x", testInner{1}, []testInner{{2}}, map[string]int{"any key": 1}, json.Number("12345678901234567890")}, d)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// TestDecodeArray: a slice takes an array at the top level.
func TestDecodeArray(t *testing.T) {
	var rows []testInner
	require.NoError(t, Decode([]byte(`[{"a": 1}, {"a": 2}]`), "r.json", "rows", &rows))
	require.Equal(t, []testInner{{1}, {2}}, rows)
	require.ErrorContains(t, Decode([]byte(`{"a": 1}`), "r.json", "rows", &rows), "r.json:1:1: the top level is an object, not a JSON array; write the rows as [...]")
	require.ErrorContains(t, Decode([]byte(`[{"a": 1, "c": 2}]`), "r.json", "rows", &rows), `r.json:1:11: unknown field "c" in [0]`)
}

// TestPeek: a probe of one top-level key, false for anything else.
func TestPeek(t *testing.T) {
	var v int
	require.True(t, Peek([]byte(`{"suite_version": 1, "x": [2]}`), "suite_version", &v))
	require.Equal(t, 1, v)
	for _, raw := range []string{`{"suite_version": "1"}`, `{"other": 1}`, `[1]`, `{"suite_version": 1} x`} {
		require.False(t, Peek([]byte(raw), "suite_version", &v), raw)
	}
}
