package transformer

import (
	"errors"
	"fmt"

	"github.com/ideabench/ideabench/gate"
)

// Config is the architecture of one transformer_tiny model.
type Config struct {
	D      int         `json:"d"`      // model width d
	Heads  int         `json:"heads"`  // attention heads; must divide D
	Layers int         `json:"layers"` // number of blocks L
	T      int         `json:"t"`      // context length (positions)
	H      int         `json:"h"`      // forecast horizon: each position predicts the next H values
	CIn    int         `json:"c_in"`   // input channels per position
	Gate   gate.Params `json:"gate"`   // fading-memory gate on the attention branch; Beta 0 is the baseline
}

// DefaultConfig is the reference architecture: d=32, 4 heads, L=2, T=32,
// H=8, one input channel, no gate.
func DefaultConfig() Config {
	return Config{D: 32, Heads: 4, Layers: 2, T: 32, H: 8, CIn: 1}
}

// Validate reports every invalid field, joined into one error, each naming
// the field and the fix.
func (c Config) Validate() error {
	var errs []error
	for _, f := range []struct {
		name       string
		v, example int
	}{{"d", c.D, 32}, {"heads", c.Heads, 4}, {"layers", c.Layers, 2}, {"T", c.T, 32}, {"H", c.H, 8}, {"c_in", c.CIn, 1}} {
		if f.v <= 0 {
			errs = append(errs, fmt.Errorf("transformer: %s = %d: must be >= 1; use e.g. %d", f.name, f.v, f.example))
		}
	}
	if c.D > 0 && c.Heads > 0 && c.D%c.Heads != 0 {
		errs = append(errs, fmt.Errorf("transformer: heads = %d does not divide d = %d; pick heads from the divisors of d", c.Heads, c.D))
	}
	if err := c.Gate.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("transformer: %w", err))
	}
	return errors.Join(errs...)
}

// FLOPsPerStep is the number of floating-point operations (a multiply-add
// counts two) of the matrix products in one forward and backward pass over
// a batch of b windows, counting only the unmasked causal attention
// entries. The backward pass costs twice the forward pass.
func (c Config) FLOPsPerStep(b int) float64 {
	n := float64(b * c.T)
	d := float64(c.D)
	linear := 2 * n * (d*3*d + d*d + d*4*d + 4*d*d) // qkv, proj, fc1, fc2
	pairs := float64(c.T*(c.T+1)) / 2               // causal (query,key) pairs per window
	attn := 2 * 2 * float64(b) * pairs * d          // scores q·k and the weighted sum of v
	edges := 2 * n * (float64(c.CIn)*d + d*float64(c.H))
	return 3 * (float64(c.Layers)*(linear+attn) + edges)
}
