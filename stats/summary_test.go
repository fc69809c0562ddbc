package stats

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	for _, tc := range []struct {
		name      string
		x         []float64
		mean, std float64
	}{
		// Empty: defined as 0, 0 so the report's JSON can hold it.
		{name: "empty", x: []float64{}, mean: 0, std: 0},
		{name: "nil", x: nil, mean: 0, std: 0},
		{name: "single", x: []float64{5}, mean: 5, std: 0},
		// Deviations ±1.5, ±0.5: Σ² = 5, /N = 1.25 (ddof 0, not 5/3).
		{name: "population std", x: []float64{1, 2, 3, 4}, mean: 2.5, std: math.Sqrt(1.25)},
		{name: "constant", x: []float64{0.3, 0.3, 0.3}, mean: 0.3, std: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(tc.x)
			checkRel(t, "Mean", s.Mean, tc.mean, 1e-15)
			checkRel(t, "Std", s.Std, tc.std, 1e-15)
			if s.N != len(tc.x) || len(s.PerSeed) != len(tc.x) {
				t.Errorf("N = %d, len(PerSeed) = %d, want %d", s.N, len(s.PerSeed), len(tc.x))
			}
			if s.PerSeed == nil {
				t.Error("PerSeed is nil; want an empty slice so JSON encodes []")
			}
		})
	}
}

func TestSummarizeCopies(t *testing.T) {
	x := []float64{1, 2, 3}
	s := Summarize(x)
	x[0] = 100
	if s.PerSeed[0] != 1 {
		t.Errorf("PerSeed[0] = %v after the caller changed x; Summarize must copy", s.PerSeed[0])
	}
}
