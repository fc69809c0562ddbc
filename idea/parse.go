package idea

import (
	"fmt"
	"strings"

	"github.com/ideabench/ideabench/internal/num"
)

// Parse reads name or name:k=v,k=v (as the command line writes an idea,
// e.g. gate:rho=0.9,beta=0.5) into a Config and checks it against the
// registry: each value a finite decimal number, each name once.
func Parse(s string) (Config, error) {
	name, kvs, _ := strings.Cut(s, ":")
	spec, ok := Lookup(name)
	if !ok {
		_, err := New(Config{Name: name})
		return Config{}, err
	}
	m := map[string]float64{}
	if kvs != "" {
		for _, kv := range strings.Split(kvs, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return Config{}, fmt.Errorf("parameter %s: want name=number", num.Quote(kv))
			}
			p, err := spec.param(k)
			if err != nil {
				return Config{}, err
			}
			x, err := num.ParseDecimal(v)
			if err != nil {
				// The default is a value the parameter takes (an integer
				// where it must be one).
				return Config{}, fmt.Errorf("parameter %s: %v; give a finite number such as %s=%v (its default)", k, err, k, p.Default)
			}
			if _, dup := m[k]; dup {
				return Config{}, fmt.Errorf("parameter %s is given twice; give each parameter once", k)
			}
			m[k] = x
		}
	}
	c := Config{Name: name, Params: NewParams(m)}
	if _, err := New(c); err != nil {
		return Config{}, err
	}
	return c, nil
}
