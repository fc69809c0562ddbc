// Package stricttest checks that a reader of JSON files reads through
// jsonstrict: one test helper that every reader's tests call, so that
// each refuses the same faults.
package stricttest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Refuses checks that read accepts valid, a JSON file as the reader takes
// it, and refuses it with one byte of garbage after its value and with a
// key "zz_unknown" added to its first object, each with an error that
// says what is wrong and where (line:column).
func Refuses(t testing.TB, valid []byte, read func(raw []byte) error) {
	t.Helper()
	if err := read(valid); err != nil {
		t.Fatalf("the valid file is refused: %v", err)
	}
	trailing := append(bytes.TrimRight(bytes.Clone(valid), " \t\r\n"), '\n', 'x')
	at := fmt.Sprintf(":%d:1: ", bytes.Count(trailing, []byte{'\n'})+1)
	if err := read(trailing); err == nil || !strings.Contains(err.Error(), at+"invalid character 'x' after top-level value") {
		t.Errorf("a garbage byte after the JSON value: got %v, want an error naming it at %s", err, at)
	}
	i := bytes.IndexByte(valid, '{')
	if i < 0 {
		t.Fatalf("the valid file has no object")
	}
	member := `"zz_unknown": 0`
	if rest := bytes.TrimLeft(valid[i+1:], " \t\r\n"); len(rest) == 0 || rest[0] != '}' {
		member += ", "
	}
	unknown := append(append(bytes.Clone(valid[:i+1]), member...), valid[i+1:]...)
	line := valid[bytes.LastIndexByte(valid[:i+1], '\n')+1 : i+1]
	at = fmt.Sprintf(":%d:%d: ", bytes.Count(valid[:i+1], []byte{'\n'})+1, utf8.RuneCount(line)+1)
	if err := read(unknown); err == nil || !strings.Contains(err.Error(), at+`unknown field "zz_unknown"`) {
		t.Errorf("an unknown key: got %v, want an error naming it at %s", err, at)
	}
}
