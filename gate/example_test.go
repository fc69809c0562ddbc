package gate_test

import (
	"fmt"

	"github.com/ideabench/ideabench/gate"
)

func Example() {
	p := gate.Params{Rho: 0.85, Beta: 0.5}
	// One sequence of 4 tokens, 2 channels, each with mean energy u = 1.
	a := []float64{1, -1, 1, 1, -1, 1, 1, -1}
	y := make([]float64, len(a))
	s := make([]float64, 4)
	gate.Forward(y, s, a, 1, 4, 2, p)
	fmt.Printf("state %.4f %.4f %.4f %.4f\n", s[0], s[1], s[2], s[3])
	fmt.Printf("steady gain %.4f, half-life %d steps\n", gate.SteadyGain(p.Beta, 1), gate.HalfLife(p.Rho))
	// Output:
	// state 0.1500 0.2775 0.3859 0.4780
	// steady gain 0.6667, half-life 5 steps
}
