package idea

import (
	"fmt"
	"math"
)

// Law is one check of an idea's theory: a value Got, measured or
// simulated, against the theory's Want. It holds when |Got - Want| <= Tol,
// or, for a bound (AtLeast), when Got >= Want.
type Law struct {
	Name    string  `json:"name"`
	Got     float64 `json:"got"`
	Want    float64 `json:"want"`
	Tol     float64 `json:"tol"`
	AtLeast bool    `json:"at_least,omitempty"`
}

// Holds reports whether the law holds; never for a NaN.
func (l Law) Holds() bool {
	if l.AtLeast {
		return l.Got >= l.Want
	}
	return math.Abs(l.Got-l.Want) <= l.Tol
}

// Finite reports whether Got, Want and Tol are finite (a report holds
// only finite numbers).
func (l Law) Finite() bool {
	for _, x := range []float64{l.Got, l.Want, l.Tol} {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// AllHold reports whether laws is not empty and every law in it holds.
func AllHold(laws []Law) bool {
	for _, l := range laws {
		if !l.Holds() {
			return false
		}
	}
	return len(laws) > 0
}

// Theory is an optional interface of an idea with closed forms (the
// report's math check): Laws sets each closed form at this setting beside
// a simulation, in float64, of the recurrence it describes (where it can,
// through the idea's own Forward). It must be deterministic: verify calls
// it again and compares the bits.
type Theory interface {
	Laws() ([]Law, error)
}

// Signature is an optional interface of a Probe: Laws turns what the probe
// saw on a trained model into laws (Got measured, Want the theory's
// prediction); the mechanism is confirmed when every law holds. Laws may
// be nil when a measurement was not finite.
type Signature interface {
	Laws() []Law
}

// LawsOf returns the math-check laws of the idea c (nil, nil when it has
// no Theory or is the plain model).
func LawsOf(c Config) ([]Law, error) {
	if c.IsZero() {
		return nil, nil
	}
	i, err := New(c)
	if err != nil {
		return nil, err
	}
	t, ok := i.(Theory)
	if !ok {
		return nil, nil
	}
	laws, err := t.Laws()
	if err != nil {
		return nil, fmt.Errorf("idea %s: math check: %w", c.Name, err)
	}
	for _, l := range laws {
		if !l.Finite() {
			return nil, fmt.Errorf("idea %s: math check: law %s is not finite (got %v, want %v, tol %v)", c.Name, l.Name, l.Got, l.Want, l.Tol)
		}
	}
	return laws, nil
}

// Measured is what an idea's probe measured on a trained model's test
// inputs: the gate's blocks (GateLayer, the seed schema's layers, from
// which its laws are derived: GateLaws), or another idea's laws.
type Measured struct {
	Layers []GateLayer
	Laws   []Law `json:",omitempty"`
}

// Measure is what probe measured: the gate's layers, or another idea's
// laws; nil when nothing was (no probe, or a degenerate pole fit of
// constant states, so the mechanism reads unconfirmed rather than
// carrying a NaN).
func Measure(probe Probe) *Measured {
	if ls := GateSignature(probe); ls != nil {
		return &Measured{Layers: ls}
	}
	if sg, ok := probe.(Signature); ok {
		if laws := sg.Laws(); laws != nil {
			return &Measured{Laws: laws}
		}
	}
	return nil
}
