package stats

import (
	"math"
	"testing"
)

func TestTQuantile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		p, nu  float64
		want   float64
		relTol float64
	}{
		// nu = 1 is the Cauchy distribution: x = tan(π(p - 1/2)).
		{name: "nu=1 closed form", p: 0.975, nu: 1, want: math.Tan(math.Pi * 0.475), relTol: 1e-12},
		// nu = 2 has x = (2p-1)/sqrt(2p(1-p)) (Johnson, Kotz & Balakrishnan
		// 1995, "Continuous Univariate Distributions" vol. 2, ch. 28).
		{name: "nu=2 closed form", p: 0.975, nu: 2, want: 0.95 / math.Sqrt(2*0.975*0.025), relTol: 1e-12},
		// R: qt(0.975, 7), printed to 16 digits; the reference study's df.
		{name: "nu=7 table", p: 0.975, nu: 7, want: 2.364624251592785, relTol: 1e-12},
		// R: qt(0.975, 30).
		{name: "nu=30 table", p: 0.975, nu: 30, want: 2.042272456301238, relTol: 1e-12},
		// Symmetry about 0: lower tail is the negated upper tail.
		{name: "lower tail", p: 0.025, nu: 7, want: -2.364624251592785, relTol: 1e-12},
		{name: "median", p: 0.5, nu: 3, want: 0, relTol: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRel(t, "TQuantile", TQuantile(tc.p, tc.nu), tc.want, tc.relTol)
		})
	}
}

func TestTQuantilePanics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p, nu float64
	}{
		{name: "p>1", p: 1.5, nu: 3},
		{name: "p NaN", p: math.NaN(), nu: 3},
		{name: "nu=0", p: 0.9, nu: 0},
		{name: "nu NaN", p: 0.9, nu: math.NaN()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkPanics(t, func() { TQuantile(tc.p, tc.nu) })
		})
	}
}

func TestMDE(t *testing.T) {
	t2 := 0.95 / math.Sqrt(2*0.975*0.025) // t_{0.975,2}, closed form above
	for _, tc := range []struct {
		name  string
		diffs []float64
		alpha float64
		want  float64
	}{
		// Undefined spread: reported as 0 for JSON.
		{name: "n=0", diffs: nil, alpha: 0.05, want: 0},
		{name: "n=1", diffs: []float64{3}, alpha: 0.05, want: 0},
		// mean 2, sample sd sqrt((1+0+1)/2) = 1: MDE = t_{0.975,2}·1/sqrt(3).
		{name: "n=3 ddof 1", diffs: []float64{1, 2, 3}, alpha: 0.05, want: t2 / math.Sqrt(3)},
		// Shifting every diff leaves the spread, hence the MDE, unchanged.
		{name: "shift invariant", diffs: []float64{11, 12, 13}, alpha: 0.05, want: t2 / math.Sqrt(3)},
		{name: "no spread", diffs: []float64{0.2, 0.2, 0.2, 0.2}, alpha: 0.05, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRel(t, "MDE", MDE(tc.diffs, tc.alpha), tc.want, 1e-12)
		})
	}
	t.Run("alpha out of range panics", func(t *testing.T) {
		checkPanics(t, func() { MDE([]float64{1, 2}, 1) })
	})
}
