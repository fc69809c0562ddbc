package idea

import (
	"fmt"
	"math"
	"strings"

	"github.com/ideabench/ideabench/internal/num"
)

// Parse reads name or name:k=v,k=v (as the command line writes an idea,
// e.g. gate:rho=0.9,beta=0.5) into a Config and checks it against the
// registry: each value a finite decimal number, each name once.
func Parse(s string) (Config, error) {
	c, space, err := ParseSpace(s)
	if err != nil {
		return Config{}, err
	}
	for k, r := range space {
		return Config{}, fmt.Errorf("parameter %s = %s: a range is searched by the tuner, which this idea arm does not use; give one value, or tune the arms (run --tune N, or a config's tune block)", k, r)
	}
	return c, nil
}

// ParseSpace reads an idea as Parse does, where a parameter may also
// take a range, lo..hi[/log|/int] or a|b|c (ParseRange), for the tuner
// to search: the idea at its fixed settings, and the ranges given.
func ParseSpace(s string) (Config, Space, error) {
	name, kvs, _ := strings.Cut(s, ":")
	spec, ok := Lookup(name)
	if !ok {
		_, err := New(Config{Name: name})
		return Config{}, nil, err
	}
	m := map[string]float64{}
	space := Space{}
	if kvs != "" {
		for _, kv := range strings.Split(kvs, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return Config{}, nil, fmt.Errorf("parameter %s: want name=number (or name=lo..hi, a range to tune)", num.Quote(kv))
			}
			p, err := spec.param(k)
			if err != nil {
				return Config{}, nil, err
			}
			_, dupValue := m[k]
			if _, dupRange := space[k]; dupValue || dupRange {
				return Config{}, nil, fmt.Errorf("parameter %s is given twice; give each parameter once", k)
			}
			if r, isRange, err := ParseRange(v); isRange {
				if err != nil {
					return Config{}, nil, fmt.Errorf("parameter %s: %v", k, err)
				}
				for _, u := range []float64{0, math.Nextafter(1, 0)} {
					if _, err := New(Config{Name: name, Params: NewParams(map[string]float64{k: r.At(u)})}); err != nil {
						return Config{}, nil, fmt.Errorf("parameter %s = %s: %v; keep the range within its values", k, r, err)
					}
				}
				space[k] = r
				continue
			}
			x, err := num.ParseDecimal(v)
			if err != nil {
				// The default is a value the parameter takes (an integer
				// where it must be one).
				return Config{}, nil, fmt.Errorf("parameter %s: %v; give a finite number such as %s=%v (its default), or a range such as %s=%s", k, err, k, p.Default, k, exampleRange(p))
			}
			m[k] = x
		}
	}
	c := Config{Name: name, Params: NewParams(m)}
	if _, err := New(c); err != nil {
		return Config{}, nil, err
	}
	return c, space, nil
}

// exampleRange is a range of p to show in a message: its declared
// space, else one around its default.
func exampleRange(p Param) string {
	if p.Space != nil {
		return p.Space.String()
	}
	return Range{Lo: p.Default, Hi: p.Default + 1}.String()
}
