package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// TQuantile returns the p-quantile of Student's t distribution with nu
// degrees of freedom (Student 1908, "The probable error of a mean",
// Biometrika 6(1)), i.e. the x with P(T <= x) = p. It is gonum's
// distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile, which inverts the
// regularized incomplete beta function:
//
//	F(x) = 1 - ½·I_{nu/(nu+x²)}(nu/2, 1/2)   for x > 0
//
// It panics when p is outside [0, 1] or nu is not positive.
func TQuantile(p, nu float64) float64 {
	if !(p >= 0 && p <= 1) {
		panic(fmt.Sprintf("stats: TQuantile p = %v is outside [0,1]", p))
	}
	if !(nu > 0) {
		panic(fmt.Sprintf("stats: TQuantile nu = %v is not positive", nu))
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: nu}.Quantile(p)
}

// MDE returns the minimum detectable effect of paired differences diffs,
// (N), at two-sided level alpha:
//
//	sd  = sqrt(Σ (d_i - mean(d))² / (N-1))      sample std, ddof 1
//	MDE = t_{1-alpha/2, N-1} · sd / sqrt(N)
//
// It is the half-width of the (1-alpha) paired-t confidence interval: the
// smallest |mean(d)| a paired t-test at level alpha would call significant,
// which is the minimum detectable effect at 50% power (Bloom 1995, "Minimum
// detectable effects", Evaluation Review 19(5); no power term is added).
// With fewer than two differences the spread, and so the MDE, is undefined;
// MDE then returns 0, because the report's JSON cannot hold NaN.
// It panics when alpha is outside (0, 1).
func MDE(diffs []float64, alpha float64) float64 {
	if !(alpha > 0 && alpha < 1) {
		panic(fmt.Sprintf("stats: MDE alpha = %v is outside (0,1)", alpha))
	}
	n := len(diffs)
	if n < 2 {
		return 0
	}
	sd := math.Sqrt(sumSquaredDev(diffs, mean(diffs)) / float64(n-1))
	return TQuantile(1-alpha/2, float64(n-1)) * sd / math.Sqrt(float64(n))
}
