package safetensors

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"unicode/utf8"

	"github.com/ideabench/ideabench/internal/atomicfile"
)

// MaxHeaderSize is the largest header length, in bytes, that Read accepts;
// it is MAX_HEADER_SIZE of the reference implementation
// (safetensors/src/tensor.rs) and exists to refuse absurd input.
const MaxHeaderSize = 100_000_000

// metadataKey is the reserved header key holding the string->string metadata.
const metadataKey = "__metadata__"

// Tensor is one named float32 tensor.
type Tensor struct {
	// Name is the key in the header, e.g. "blocks.0.attn.weight".
	Name string
	// Shape is the size of each dimension as PyTorch stores it (an nn.Linear
	// weight is (out,in)); an empty Shape is a scalar with one element.
	Shape []int
	// Data holds product(Shape) values in row-major order.
	Data []float32
}

// dtypeSize is the element size in bytes of each dtype Read decodes.
var dtypeSize = map[string]int64{"F32": 4, "F64": 8}

// DataSHA256 returns the SHA-256 (hex) of the data section Write writes for
// tensors: every value as little-endian float32, tensor by tensor in the
// given order. A checkpoint that records it in its metadata lets a reader
// refuse edited or corrupt tensor bytes.
func DataSHA256(tensors []Tensor) string {
	h := sha256.New()
	buf := make([]byte, 0, 4096)
	for _, t := range tensors {
		for _, v := range t.Data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			if len(buf) == cap(buf) {
				h.Write(buf)
				buf = buf[:0]
			}
		}
	}
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil))
}

// Write writes tensors to w in safetensors format. The bytes are
// deterministic: tensors appear in the given order, metadata keys sorted, and
// the header is padded with spaces to a multiple of 8 bytes, as the reference
// writer does. A nil or empty metadata omits "__metadata__". Invalid tensors
// (len(Data) != product(Shape), negative dims, duplicate or reserved names,
// names not UTF-8) are reported as errors before anything is written.
func Write(w io.Writer, tensors []Tensor, metadata map[string]string) error {
	if err := write(w, tensors, metadata); err != nil {
		return fmt.Errorf("safetensors: %w", err)
	}
	return nil
}

func write(w io.Writer, tensors []Tensor, metadata map[string]string) error {
	header, err := encodeHeader(tensors, metadata)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(header)))
	bw.Write(n[:])
	bw.Write(header)
	buf := make([]byte, 0, 4096)
	for _, t := range tensors {
		for _, v := range t.Data {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
			if len(buf) == cap(buf) {
				bw.Write(buf)
				buf = buf[:0]
			}
		}
	}
	bw.Write(buf)
	return bw.Flush()
}

// encodeHeader validates tensors and metadata and returns the padded JSON header.
func encodeHeader(tensors []Tensor, metadata map[string]string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	if len(metadata) > 0 {
		keys := make([]string, 0, len(metadata))
		for k, v := range metadata {
			if !utf8.ValidString(k) || !utf8.ValidString(v) {
				return nil, fmt.Errorf("metadata key %q or its value is not valid UTF-8; JSON headers must be UTF-8", k)
			}
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteString(`"` + metadataKey + `":{`)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(&b, k)
			b.WriteByte(':')
			writeString(&b, metadata[k])
		}
		b.WriteByte('}')
	}
	seen := make(map[string]bool, len(tensors))
	var offset int64
	for i, t := range tensors {
		switch {
		case t.Name == metadataKey:
			return nil, fmt.Errorf("tensor %d: name %q is reserved for metadata; rename the tensor", i, t.Name)
		case !utf8.ValidString(t.Name):
			return nil, fmt.Errorf("tensor %d: name %q is not valid UTF-8; JSON headers must be UTF-8", i, t.Name)
		case seen[t.Name]:
			return nil, fmt.Errorf("tensor %q: duplicate name; every tensor needs a unique name", t.Name)
		}
		seen[t.Name] = true
		for d, s := range t.Shape {
			if s < 0 {
				return nil, fmt.Errorf("tensor %q: shape[%d] = %d is negative; dims must be >= 0", t.Name, d, s)
			}
		}
		if !holds(t.Shape, len(t.Data)) {
			return nil, fmt.Errorf("tensor %q: shape %v does not hold exactly the %d values in Data; make them agree", t.Name, t.Shape, len(t.Data))
		}
		n := int64(len(t.Data))
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		writeString(&b, t.Name)
		b.WriteString(`:{"dtype":"F32","shape":[`)
		for d, s := range t.Shape {
			if d > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(s))
		}
		end := offset + 4*n
		fmt.Fprintf(&b, `],"data_offsets":[%d,%d]}`, offset, end)
		offset = end
	}
	b.WriteByte('}')
	for b.Len()%8 != 0 {
		b.WriteByte(' ')
	}
	if b.Len() > MaxHeaderSize {
		return nil, fmt.Errorf("header is %d bytes, over the %d-byte limit readers enforce; use fewer tensors or less metadata", b.Len(), MaxHeaderSize)
	}
	return b.Bytes(), nil
}

// holds reports whether product(shape) == n for non-negative dims, without
// overflowing on absurd shapes.
func holds(shape []int, n int) bool {
	if slices.Contains(shape, 0) {
		return n == 0
	}
	p := 1
	for _, s := range shape {
		if p > n/s {
			return false
		}
		p *= s
	}
	return p == n
}

// writeString appends s as a JSON string without HTML escaping, so names
// such as "a<b" stay readable in the header.
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)           // cannot fail for a string
	b.Truncate(b.Len() - 1) // Encode appends a newline
}

// entry is one parsed tensor entry of the header.
type entry struct {
	name       string
	dtype      string
	shape      []int
	begin, end int64
	index      int // position in the header, to order zero-size ties stably
}

// Read parses a safetensors stream and returns its tensors in data-offset
// order (ties between empty tensors keep header order) and its metadata,
// never nil. F64 tensors are rounded to float32. Read consumes exactly the
// bytes the header describes plus one, to detect trailing data.
func Read(r io.Reader) ([]Tensor, map[string]string, error) {
	ts, md, err := read(r)
	if err != nil {
		return nil, nil, fmt.Errorf("safetensors: %w", err)
	}
	return ts, md, nil
}

// errTruncated marks input that ends before the layout says it should.
var errTruncated = errors.New("file is truncated")

func read(r io.Reader) ([]Tensor, map[string]string, error) {
	var nb [8]byte
	if _, err := io.ReadFull(r, nb[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, nil, fmt.Errorf("%w: fewer than 8 bytes, no header length", errTruncated)
		}
		return nil, nil, err
	}
	n := binary.LittleEndian.Uint64(nb[:])
	if n > MaxHeaderSize {
		return nil, nil, fmt.Errorf("header length %d exceeds the %d-byte limit; the file is corrupt or not safetensors", n, MaxHeaderSize)
	}
	// ReadAll grows its buffer as bytes arrive, so a lying length costs no memory.
	header, err := io.ReadAll(io.LimitReader(r, int64(n)))
	if err != nil {
		return nil, nil, err
	}
	if uint64(len(header)) < n {
		return nil, nil, fmt.Errorf("%w: header length %d is beyond the file, which has %d bytes after the length", errTruncated, n, len(header))
	}
	entries, md, err := parseHeader(header)
	if err != nil {
		return nil, nil, err
	}
	size, err := checkLayout(entries)
	if err != nil {
		return nil, nil, err
	}
	data, err := io.ReadAll(io.LimitReader(r, size+1))
	if err != nil {
		return nil, nil, err
	}
	switch {
	case int64(len(data)) < size:
		return nil, nil, fmt.Errorf("%w: data section has %d bytes, header describes %d", errTruncated, len(data), size)
	case int64(len(data)) > size:
		return nil, nil, fmt.Errorf("data section is longer than the %d bytes the header describes; offsets must cover it exactly", size)
	}
	tensors := make([]Tensor, len(entries))
	for i, e := range entries {
		raw := data[e.begin:e.end]
		var v []float32
		if e.dtype == "F64" {
			v = make([]float32, len(raw)/8)
			for j := range v {
				v[j] = float32(math.Float64frombits(binary.LittleEndian.Uint64(raw[8*j:])))
			}
		} else {
			v = make([]float32, len(raw)/4)
			for j := range v {
				v[j] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:]))
			}
		}
		tensors[i] = Tensor{Name: e.name, Shape: e.shape, Data: v}
	}
	return tensors, md, nil
}

// checkLayout sorts entries by offset, checks that they tile [0, size) with no
// gap or overlap, and returns size, the length of the data section.
func checkLayout(entries []entry) (int64, error) {
	slices.SortFunc(entries, func(a, b entry) int {
		return cmp.Or(cmp.Compare(a.begin, b.begin), cmp.Compare(a.end, b.end), cmp.Compare(a.index, b.index))
	})
	var pos int64
	prev := "start of the data section"
	for _, e := range entries {
		switch {
		case e.begin < pos:
			return 0, fmt.Errorf("tensor %q: data_offsets [%d,%d] overlap %s, which ends at %d", e.name, e.begin, e.end, prev, pos)
		case e.begin > pos:
			return 0, fmt.Errorf("tensor %q: data_offsets [%d,%d] leave a gap after %s, which ends at %d", e.name, e.begin, e.end, prev, pos)
		}
		pos = e.end
		prev = strconv.Quote(e.name)
	}
	return pos, nil
}

// parseHeader decodes the JSON header into entries (in header order) and
// metadata, checking each entry on its own.
func parseHeader(header []byte) ([]entry, map[string]string, error) {
	if !utf8.Valid(header) {
		return nil, nil, errors.New("header is not valid UTF-8")
	}
	if len(header) == 0 || header[0] != '{' {
		return nil, nil, errors.New("header is not a JSON object: it must start with '{'")
	}
	dec := json.NewDecoder(bytes.NewReader(header))
	md := map[string]string{}
	var entries []entry
	err := decodeObject(dec, func(key string) error {
		if key == metadataKey {
			return decodeObject(dec, func(k string) error {
				var v string
				if err := dec.Decode(&v); err != nil {
					return fmt.Errorf("metadata %q: value must be a string: %w", k, err)
				}
				md[k] = v
				return nil
			})
		}
		e, err := decodeEntry(dec, key)
		if err != nil {
			return fmt.Errorf("tensor %q: %w", key, err)
		}
		e.index = len(entries)
		entries = append(entries, e)
		return nil
	})
	if err != nil {
		// Syntax errors concern the JSON as a whole; the rest already name
		// the tensor or metadata key at fault.
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, nil, fmt.Errorf("header is not valid JSON: %w", err)
		}
		return nil, nil, fmt.Errorf("header: %w", err)
	}
	if rest := bytes.TrimLeft(header[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, nil, fmt.Errorf("header is not valid JSON: %d unexpected bytes after the closing '}'", len(rest))
	}
	return entries, md, nil
}

// decodeObject reads one JSON object from dec, calling value for each key to
// consume its value; duplicate keys are errors because Go would silently keep
// the last one.
func decodeObject(dec *json.Decoder, value func(key string) error) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("expected an object, found %v", tok)
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string) // inside an object the decoder only yields string keys
		if seen[key] {
			return fmt.Errorf("duplicate key %q; every name must be unique", key)
		}
		seen[key] = true
		if err := value(key); err != nil {
			return err
		}
	}
	_, err = dec.Token() // the closing '}'
	return err
}

// decodeEntry reads and checks one tensor entry.
func decodeEntry(dec *json.Decoder, name string) (entry, error) {
	e := entry{name: name}
	var shape, offsets []json.RawMessage
	var hasDtype bool
	err := decodeObject(dec, func(key string) error {
		switch key {
		case "dtype":
			hasDtype = true
			return dec.Decode(&e.dtype)
		case "shape":
			return dec.Decode(&shape)
		case "data_offsets":
			return dec.Decode(&offsets)
		}
		var skip json.RawMessage // unknown fields are ignored, as in the reference
		return dec.Decode(&skip)
	})
	if err != nil {
		return e, err
	}
	size, ok := dtypeSize[e.dtype]
	switch {
	case !hasDtype || shape == nil || offsets == nil:
		return e, errors.New(`entry needs "dtype", "shape" and "data_offsets"`)
	case !ok:
		return e, fmt.Errorf("dtype %q is not supported; only F32 and F64 are read, convert the checkpoint to F32", e.dtype)
	case len(offsets) != 2:
		return e, fmt.Errorf("data_offsets has %d numbers, want [begin,end]", len(offsets))
	}
	// Cap the byte count at the largest header-describable file so that
	// products cannot overflow int64.
	const limit = math.MaxInt64 / 8
	nbytes := size
	e.shape = make([]int, len(shape))
	for d, raw := range shape {
		s, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return e, fmt.Errorf("shape[%d] = %s is not an integer", d, raw)
		}
		if s < 0 {
			return e, fmt.Errorf("shape[%d] = %d is negative; dims must be >= 0", d, s)
		}
		if s != 0 && nbytes > limit/s {
			return e, fmt.Errorf("shape describes more than %d bytes; the entry is corrupt", int64(limit))
		}
		nbytes *= s
		e.shape[d] = int(s)
	}
	for k, raw := range offsets {
		o, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || o < 0 || o > limit {
			return e, fmt.Errorf("data_offsets[%d] = %s is not an integer in [0, %d]", k, raw, int64(limit))
		}
		if k == 0 {
			e.begin = o
		} else {
			e.end = o
		}
	}
	if e.end-e.begin != nbytes {
		return e, fmt.Errorf("data_offsets [%d,%d] span %d bytes but shape %v of %s needs %d", e.begin, e.end, e.end-e.begin, e.shape, e.dtype, nbytes)
	}
	return e, nil
}

// WriteFile writes tensors to path atomically: it writes a temporary file in
// the same directory, fsyncs it, renames it over path and fsyncs the
// directory, so a crash leaves either the old file or the new one.
func WriteFile(path string, tensors []Tensor, metadata map[string]string) error {
	err := atomicfile.Write(path, func(w io.Writer) error { return write(w, tensors, metadata) })
	if err != nil {
		return fmt.Errorf("safetensors: %s: %w", path, err)
	}
	return nil
}

// ReadFile reads the safetensors file at path like Read; errors name the file.
func ReadFile(path string) ([]Tensor, map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("safetensors: %w", err)
	}
	defer f.Close()
	ts, md, err := read(f)
	if err != nil {
		return nil, nil, fmt.Errorf("safetensors: %s: %w", path, err)
	}
	return ts, md, nil
}
