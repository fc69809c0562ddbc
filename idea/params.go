package idea

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Params are an idea's hyper-parameters by name. The value is held in a
// canonical form (names sorted, numbers in their shortest round-trip
// form), so two equal settings compare equal with ==, as the cfgs holding
// them must; the zero value has no parameters.
type Params struct{ enc string }

// NewParams returns the parameters m; it panics on a NaN or Inf (which a
// config cannot hold) or on a name with '=' or ';'.
func NewParams(m map[string]float64) Params {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(m)) {
		v := m[k]
		if math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(k, "=;") {
			panic(fmt.Sprintf("idea: NewParams: %s = %v", k, v))
		}
		if i > 0 {
			b.WriteByte(';')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
	}
	return Params{b.String()}
}

// Map returns the parameters as a new map.
func (p Params) Map() map[string]float64 {
	m := map[string]float64{}
	if p.enc == "" {
		return m
	}
	for _, kv := range strings.Split(p.enc, ";") {
		k, v, _ := strings.Cut(kv, "=")
		m[k], _ = strconv.ParseFloat(v, 64)
	}
	return m
}

// Get returns the named parameter and whether it is set.
func (p Params) Get(name string) (float64, bool) {
	v, ok := p.Map()[name]
	return v, ok
}

// IsZero reports whether p has no parameters (for the omitzero tag).
func (p Params) IsZero() bool { return p.enc == "" }

// String is "name=value;…" in name order.
func (p Params) String() string { return p.enc }

// MarshalJSON writes an object in name order.
func (p Params) MarshalJSON() ([]byte, error) {
	m := p.Map()
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		b.WriteString(strconv.FormatFloat(m[k], 'g', -1, 64))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads an object of finite numbers.
func (p *Params) UnmarshalJSON(raw []byte) error {
	var m map[string]float64
	if err := json.Unmarshal(raw, &m); err != nil {
		return fmt.Errorf("idea: params must be an object of numbers, e.g. {\"alpha\": 0.1}: %w", err)
	}
	for k := range m {
		if k == "" || strings.ContainsAny(k, "=;") {
			return fmt.Errorf("idea: params: name %q is not a parameter name", k)
		}
	}
	*p = NewParams(m)
	return nil
}

// Config names an idea and its parameters: what a cfg and a checkpoint
// record.
type Config struct {
	Name   string `json:"name"`
	Params Params `json:"params,omitzero"`
}

// IsZero reports whether c names no idea (the baseline model).
func (c Config) IsZero() bool { return c.Name == "" && c.Params.IsZero() }
