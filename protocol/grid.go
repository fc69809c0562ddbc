package protocol

import (
	"maps"
	"slices"
)

// CfgField is one numeric field of a Cfg, by its JSON key.
type CfgField struct {
	Key   string
	Value func(Cfg) float64
}

// CfgFields lists the numeric fields of a Cfg in JSON order; schedule,
// the one string field, is not ordered and not listed.
var CfgFields = []CfgField{
	{"lr", func(c Cfg) float64 { return c.LR }},
	{"epochs", func(c Cfg) float64 { return float64(c.Epochs) }},
	{"rho", func(c Cfg) float64 { return c.Rho }},
	{"beta", func(c Cfg) float64 { return c.Beta }},
	{"weight_decay", func(c Cfg) float64 { return c.WeightDecay }},
	{"warmup", func(c Cfg) float64 { return c.Warmup }},
	{"clip", func(c Cfg) float64 { return c.Clip }},
	{"patience", func(c Cfg) float64 { return float64(c.Patience) }},
	{"epoch_windows", func(c Cfg) float64 { return float64(c.EpochWindows) }},
	{"context", func(c Cfg) float64 { return float64(c.Context) }},
}

// FieldsOf returns CfgFields followed by one field per idea parameter
// that occurs in cs, keyed "params.<name>" in order of first appearance
// (0 for a cfg without it): the fields a grid over cs can vary.
func FieldsOf(cs []Cfg) []CfgField {
	out := slices.Clone(CfgFields)
	seen := map[string]bool{}
	for _, c := range cs {
		m := c.Params.Map()
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if seen[k] {
				continue
			}
			seen[k] = true
			out = append(out, CfgField{"params." + k, func(c Cfg) float64 {
				v, _ := c.Params.Get(k)
				return v
			}})
		}
	}
	return out
}

// Varies reports whether field f takes more than one value over cs.
func (f CfgField) Varies(cs []Cfg) bool {
	for _, c := range cs {
		if f.Value(c) != f.Value(cs[0]) {
			return true
		}
	}
	return false
}
