package safetensors

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// requireSameTensors compares names, shapes and the exact bits of every value,
// so -0 and NaN payloads count.
func requireSameTensors(t testing.TB, want, got []Tensor) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		require.Equal(t, want[i].Name, got[i].Name, "tensor %d name", i)
		require.Equal(t, len(want[i].Shape), len(got[i].Shape), "tensor %q rank", want[i].Name)
		for d := range want[i].Shape {
			require.Equal(t, want[i].Shape[d], got[i].Shape[d], "tensor %q shape", want[i].Name)
		}
		require.Len(t, got[i].Data, len(want[i].Data), "tensor %q data", want[i].Name)
		for j := range want[i].Data {
			require.Equal(t, math.Float32bits(want[i].Data[j]), math.Float32bits(got[i].Data[j]),
				"tensor %q value %d", want[i].Name, j)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	specials := []float32{
		0, float32(math.Copysign(0, -1)), 1, -2.5,
		math.Float32frombits(1),          // smallest denormal
		math.Float32frombits(0x007fffff), // largest denormal
		math.MaxFloat32, -math.MaxFloat32,
		float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc00001), // quiet NaN with a payload
		math.Float32frombits(0xff800123), // negative signalling NaN with a payload
	}
	cases := []struct {
		name     string
		tensors  []Tensor
		metadata map[string]string
	}{
		{"specials", []Tensor{{Name: "x", Shape: []int{3, 4}, Data: specials}}, map[string]string{"format": "pt", "a<b": "c&d"}},
		{"linear layer", []Tensor{
			{Name: "fc.weight", Shape: []int{3, 2}, Data: []float32{1, 2, 3, 4, 5, 6}}, // (out,in)
			{Name: "fc.bias", Shape: []int{3}, Data: []float32{-1, 0, 1}},
		}, nil},
		// Scalars hold one value; zero-size tensors take no bytes and share an offset.
		{"scalar and empty", []Tensor{
			{Name: "empty", Shape: []int{0, 5}, Data: []float32{}},
			{Name: "also empty", Shape: []int{0}, Data: nil},
			{Name: "scalar", Shape: []int{}, Data: []float32{7}},
		}, map[string]string{}},
		{"unicode names", []Tensor{{Name: "é\"\\\n", Shape: []int{1}, Data: []float32{1}}}, map[string]string{"ключ": "значение"}},
		{"no tensors", nil, map[string]string{"only": "metadata"}},
	}
	for _, c := range cases {
		check := func(t *testing.T, got []Tensor, md map[string]string) {
			t.Helper()
			requireSameTensors(t, c.tensors, got)
			require.NotNil(t, md)
			if len(c.metadata) == 0 {
				assert.Empty(t, md)
			} else {
				assert.Equal(t, c.metadata, md)
			}
		}
		t.Run(c.name+"/stream", func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, Write(&b, c.tensors, c.metadata))
			n := binary.LittleEndian.Uint64(b.Bytes())
			assert.Zero(t, n%8, "header must be padded to 8 bytes")
			got, md, err := Read(&b)
			require.NoError(t, err)
			check(t, got, md)
		})
		t.Run(c.name+"/file", func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "m.safetensors")
			require.NoError(t, WriteFile(path, c.tensors, c.metadata))
			got, md, err := ReadFile(path)
			require.NoError(t, err)
			check(t, got, md)
		})
	}
}

// goldenHeader is the hand-written header of testdata/golden.safetensors:
// 140 bytes of JSON plus 4 spaces of padding, so N = 144 = 0x90. The file was
// written once, independently of this package, as
//
//	python3 -c 'import struct,sys; h=b"<goldenHeader>"; sys.stdout.buffer.write(
//	    struct.pack("<Q", len(h)) + h + struct.pack("<3f", 1, -2, 0.5))'
//
// and TestGolden checks it against the bytes spelled out below.
const goldenHeader = `{"__metadata__":{"format":"pt"},` +
	`"w":{"dtype":"F32","shape":[2,1],"data_offsets":[0,8]},` +
	`"b":{"dtype":"F32","shape":[],"data_offsets":[8,12]}}    `

var goldenTensors = []Tensor{
	{Name: "w", Shape: []int{2, 1}, Data: []float32{1, -2}},
	{Name: "b", Shape: []int{}, Data: []float32{0.5}},
}

func TestGolden(t *testing.T) {
	want := []byte{0x90, 0, 0, 0, 0, 0, 0, 0}
	want = append(want, goldenHeader...)
	want = append(want,
		0x00, 0x00, 0x80, 0x3f, // 1.0 = 0x3f800000
		0x00, 0x00, 0x00, 0xc0, // -2.0 = 0xc0000000
		0x00, 0x00, 0x00, 0x3f, // 0.5 = 0x3f000000
	)
	t.Run("write", func(t *testing.T) {
		var b bytes.Buffer
		require.NoError(t, Write(&b, goldenTensors, map[string]string{"format": "pt"}))
		assert.Equal(t, string(want), b.String())
	})
	t.Run("testdata file", func(t *testing.T) {
		got, err := os.ReadFile("testdata/golden.safetensors")
		require.NoError(t, err)
		assert.Equal(t, want, got)
	})
	t.Run("read", func(t *testing.T) {
		got, md, err := ReadFile("testdata/golden.safetensors")
		require.NoError(t, err)
		requireSameTensors(t, goldenTensors, got)
		assert.Equal(t, map[string]string{"format": "pt"}, md)
	})
}

// TestWriteMatchesReference replays the byte vectors of the reference
// writer's own tests (test_empty and test_serialization_forced_alignement in
// github.com/huggingface/safetensors, safetensors/src/tensor.rs).
func TestWriteMatchesReference(t *testing.T) {
	attn := make([]byte, 0, 24)
	for _, v := range []float32{0, 1, 2, 3, 4, 5} {
		attn = binary.LittleEndian.AppendUint32(attn, math.Float32bits(v))
	}
	cases := []struct {
		name     string
		tensors  []Tensor
		metadata map[string]string
		want     []byte
	}{
		{"empty", nil, nil, file("{}      ")},
		{"empty with metadata", nil, map[string]string{"framework": "pt"},
			file(`{"__metadata__":{"framework":"pt"}}     `)},
		// A 65-byte JSON header gets 7 spaces so the data starts 8-byte aligned.
		{"forced alignment", []Tensor{{Name: "attn0", Shape: []int{1, 1, 2, 3}, Data: []float32{0, 1, 2, 3, 4, 5}}}, nil,
			file(`{"attn0":{"dtype":"F32","shape":[1,1,2,3],"data_offsets":[0,24]}}       `, attn...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			require.NoError(t, Write(&b, c.tensors, c.metadata))
			assert.Equal(t, string(c.want), b.String())
		})
	}
}

// failingReader yields its bytes and then a non-EOF error.
type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadPropagatesReaderErrors(t *testing.T) {
	valid := file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, 0, 0, 0x80, 0x3f)
	boom := errors.New("disk on fire")
	// Cutting at each region shows the error surfaces wherever it strikes.
	for _, cut := range []struct {
		name string
		at   int
	}{{"in length", 3}, {"in header", 20}, {"in data", len(valid) - 2}} {
		t.Run(cut.name, func(t *testing.T) {
			_, _, err := Read(&failingReader{data: valid[:cut.at], err: boom})
			require.ErrorIs(t, err, boom)
		})
	}
}

// file assembles a safetensors file from a literal header and data section.
func file(header string, data ...byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(b, header...), data...)
}

func TestReadF64(t *testing.T) {
	data := binary.LittleEndian.AppendUint64(nil, math.Float64bits(0.1))
	data = binary.LittleEndian.AppendUint64(data, math.Float64bits(-3))
	in := file(`{"d":{"dtype":"F64","shape":[2],"data_offsets":[0,16]}}`, data...)
	got, _, err := Read(bytes.NewReader(in))
	require.NoError(t, err)
	requireSameTensors(t, []Tensor{{Name: "d", Shape: []int{2}, Data: []float32{0.1, -3}}}, got)
}

func TestReadOffsetOrder(t *testing.T) {
	// Header lists "late" first; Read returns data-offset order.
	in := file(`{"late":{"dtype":"F32","shape":[1],"data_offsets":[4,8]},`+
		`"early":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`,
		0, 0, 0x80, 0x3f, 0, 0, 0, 0x40)
	got, _, err := Read(bytes.NewReader(in))
	require.NoError(t, err)
	requireSameTensors(t, []Tensor{
		{Name: "early", Shape: []int{1}, Data: []float32{1}},
		{Name: "late", Shape: []int{1}, Data: []float32{2}},
	}, got)
}

func TestReadErrors(t *testing.T) {
	four := []byte{0, 0, 0, 0}
	eight := append(four, four...)
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"empty", nil, "fewer than 8 bytes"},
		{"short length", []byte{1, 2, 3}, "fewer than 8 bytes"},
		{"header beyond file", append(binary.LittleEndian.AppendUint64(nil, 100), "{}"...), "header length 100 is beyond the file"},
		{"header too large", binary.LittleEndian.AppendUint64(nil, MaxHeaderSize+1), "exceeds the 100000000-byte limit"},
		{"not utf8", file("{\"\xff\":1}"), "not valid UTF-8"},
		{"not an object", file(`[]`), "must start with '{'"},
		{"leading space", file(` {}`), "must start with '{'"},
		{"bad json", file(`{"a":`), `header is not valid JSON: tensor "a": EOF`},
		{"bad json inside entry", file(`{"a":{"dtype" "F32"}}`), `header is not valid JSON: tensor "a": expected colon`},
		{"trailing garbage", file(`{} x`), "1 unexpected bytes"},
		{"duplicate names", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight...), `duplicate key "a"`},
		{"duplicate field", file(`{"a":{"dtype":"F32","dtype":"F64","shape":[1],"data_offsets":[0,4]}}`, four...), `tensor "a": duplicate key "dtype"`},
		{"unsupported dtype", file(`{"h":{"dtype":"F16","shape":[2],"data_offsets":[0,4]}}`, four...), `tensor "h": dtype "F16" is not supported`},
		{"missing offsets", file(`{"a":{"dtype":"F32","shape":[1]}}`, four...), `tensor "a": entry needs`},
		{"entry not object", file(`{"a":3}`), `tensor "a": expected an object`},
		{"negative dim", file(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}`), `tensor "a": shape[0] = -1 is negative`},
		{"fractional dim", file(`{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}}`), `tensor "a": shape[0] = 1.5 is not an integer`},
		// Go's json would accept a quoted number into json.Number; the reference does not.
		{"quoted dim", file(`{"a":{"dtype":"F32","shape":["1"],"data_offsets":[0,4]}}`, four...), `tensor "a": shape[0] = "1" is not an integer`},
		{"shape overflow", file(`{"a":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,4]}}`), `tensor "a": shape describes more than`},
		{"shape offset mismatch", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}`, four...), `tensor "a": data_offsets [0,4] span 4 bytes but shape [2] of F32 needs 8`},
		{"end before begin", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}}`, eight...), `tensor "a": data_offsets [8,4] span -4 bytes`},
		{"three offsets", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,8]}}`, four...), `tensor "a": data_offsets has 3 numbers`},
		{"negative offset", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}}`), `tensor "a": data_offsets[0] = -4 is not an integer`},
		{"overlap", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, append(eight, four...)...), `tensor "b": data_offsets [4,12] overlap "a"`},
		{"gap", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}}`, append(eight, four...)...), `tensor "b": data_offsets [8,12] leave a gap after "a"`},
		{"gap at start", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}`, eight...), `tensor "a": data_offsets [4,8] leave a gap after start of the data section`},
		{"data truncated", file(`{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, four...), "truncated: data section has 4 bytes, header describes 8"},
		{"data too long", file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}`, eight...), "longer than the 4 bytes"},
		{"metadata not string", file(`{"__metadata__":{"k":1}}`), `metadata "k": value must be a string`},
		{"metadata not object", file(`{"__metadata__":"x"}`), "expected an object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, md, err := Read(bytes.NewReader(c.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, strings.HasPrefix(err.Error(), "safetensors: "), err.Error())
			assert.Nil(t, got)
			assert.Nil(t, md)
		})
	}
}

func TestWriteErrors(t *testing.T) {
	cases := []struct {
		name    string
		tensors []Tensor
		md      map[string]string
		want    string
	}{
		{"duplicate", []Tensor{{Name: "a", Shape: []int{1}, Data: []float32{1}}, {Name: "a", Shape: []int{1}, Data: []float32{2}}}, nil, `tensor "a": duplicate name`},
		{"reserved", []Tensor{{Name: "__metadata__", Shape: []int{1}, Data: []float32{1}}}, nil, "reserved for metadata"},
		{"too few values", []Tensor{{Name: "a", Shape: []int{2, 3}, Data: make([]float32, 5)}}, nil, `tensor "a": shape [2 3] does not hold exactly the 5 values`},
		// The product overflows int; it must still be a mismatch, not a wrap-around match.
		{"overflowing shape", []Tensor{{Name: "a", Shape: []int{1 << 62, 4}, Data: nil}}, nil, `tensor "a": shape`},
		{"negative dim", []Tensor{{Name: "a", Shape: []int{-1}, Data: nil}}, nil, `tensor "a": shape[0] = -1 is negative`},
		{"bad utf8 name", []Tensor{{Name: "\xff", Shape: []int{}, Data: []float32{1}}}, nil, "not valid UTF-8"},
		{"bad utf8 metadata", nil, map[string]string{"k": "\xff"}, `metadata key "k"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			err := Write(&b, c.tensors, c.md)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.Zero(t, b.Len(), "nothing may be written on error")
		})
	}
}

func TestFileErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.safetensors")
	_, _, err := ReadFile(missing)
	require.Error(t, err)
	assert.Contains(t, err.Error(), missing)

	corrupt := filepath.Join(dir, "corrupt.safetensors")
	require.NoError(t, os.WriteFile(corrupt, []byte{1, 2}, 0o644))
	_, _, err = ReadFile(corrupt)
	require.Error(t, err)
	assert.Contains(t, err.Error(), corrupt+": file is truncated")

	err = WriteFile(filepath.Join(dir, "no", "such", "dir", "m.safetensors"), goldenTensors, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "no", "such", "dir", "m.safetensors"))
}

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.safetensors")
	require.NoError(t, WriteFile(path, goldenTensors, nil))
	before, err := os.ReadFile(path)
	require.NoError(t, err)

	// A failed write must leave the old file intact and no temporary behind.
	bad := []Tensor{{Name: "a", Shape: []int{2}, Data: []float32{1}}}
	err = WriteFile(path, bad, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after)

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1, "temporary file left behind")
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())

	// Overwriting replaces the content.
	require.NoError(t, WriteFile(path, goldenTensors[:1], nil))
	got, _, err := ReadFile(path)
	require.NoError(t, err)
	requireSameTensors(t, goldenTensors[:1], got)
}

// FuzzRead: Read never panics, allocates in proportion to its input
// however large the sizes a header claims, and a file it accepts re-encodes
// and re-reads identically. The seed corpus is testdata/fuzz/FuzzRead plus
// the f.Add seeds; search further with
//
//	go test -run '^$' -fuzz '^FuzzRead$' -fuzztime 60s ./internal/safetensors/
func FuzzRead(f *testing.F) {
	golden, err := os.ReadFile("testdata/golden.safetensors")
	require.NoError(f, err)
	f.Add(golden)
	f.Add(golden[:len(golden)-1])
	// Headers that claim far more than the input holds.
	f.Add(file(`{"x":{"dtype":"F32","shape":[1000000000],"data_offsets":[0,4000000000]}}`))
	f.Add(file(`{"x":{"dtype":"F64","shape":[0,9223372036854775807],"data_offsets":[0,0]}}`))
	f.Add(append([]byte{0x00, 0xe1, 0xf5, 0x05, 0, 0, 0, 0}, '{')) // header length 10^8, one byte of it
	f.Add(file(`{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}}`, make([]byte, 6)...))
	f.Fuzz(func(t *testing.T, in []byte) {
		before := allocated()
		got, md, err := Read(bytes.NewReader(in))
		// A few times the input for buffers, decoded JSON and the float32
		// copies, plus a fixed allowance for the decoder's own buffers and
		// the runtime's per-size-class caches, which report in chunks.
		const slack = 4 << 20
		require.LessOrEqual(t, allocated()-before, uint64(64*len(in)+slack), "Read allocated beyond its input")
		if err != nil {
			return
		}
		var b bytes.Buffer
		require.NoError(t, Write(&b, got, md), "Write must accept what Read returns")
		again, md2, err := Read(&b)
		require.NoError(t, err)
		requireSameTensors(t, got, again)
		assert.Equal(t, md, md2)
	})
}

// allocated is the number of heap bytes this process has allocated so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
