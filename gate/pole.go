package gate

import (
	"errors"
	"fmt"
	"math"
)

// singularTol is the smallest accepted 1 - r², r the uncentred correlation
// of the two regressors. The determinant's cancellation amplifies the
// rounding of the sums (2^-52 relative) by 1/(1 - r²), so below 1e-10 the
// coefficients could be off by more than 1e-6, too coarse for the mechanism
// check.
const singularTol = 1e-10

// ErrSingular is returned (wrapped) by FitPole when the normal equations
// are singular, so the pole is not identified by the data.
var ErrSingular = errors.New("gate: FitPole: the normal equations are singular")

// FitPole regresses s_t on s_{t-1} and u_t (no intercept) by least squares
// over all given triples and returns the coefficients (pole ≈ ρ,
// drive ≈ 1-ρ). sPrev, s, u (N·T) have one entry per (window, t); for t = 0
// sPrev is 0.
//
// Regressing s_t on s_{t-1} alone would be biased upward while the state
// rises from its zero start (the rise looks like a pole above 1); giving
// the drive its own coefficient removes that bias, since the recurrence is
// exactly linear in the two regressors. The 2x2 normal equations of
// ordinary least squares (Golub & Van Loan, Matrix Computations, 4th ed.,
// §5.3) are solved by Cramer's rule:
//
//	[Σp²  Σpu] [pole ]   [Σps]
//	[Σpu  Σu²] [drive] = [Σus]     p = s_{t-1}
//
// It returns an error when there are fewer than 2 triples, a sum is not
// finite, or the equations are singular (e.g. constant drive with a
// settled state, where s_{t-1} = u_t; errors.Is(err, ErrSingular)). It panics when the lengths differ.
func FitPole(sPrev, s, u []float64) (pole, drive float64, err error) {
	if len(sPrev) != len(s) || len(u) != len(s) {
		panic(fmt.Sprintf("gate: FitPole: lengths sPrev %d, s %d, u %d differ", len(sPrev), len(s), len(u)))
	}
	if len(s) < 2 {
		return 0, 0, fmt.Errorf("gate: FitPole got %d triples; pass at least 2 (all (window, t) pairs of the gate state)", len(s))
	}
	var pp, pu, uu, ps, us float64
	for i, p := range sPrev {
		// Each product rounded before its add (float64(·)), so no
		// compiler fuses a multiply-add and the fit has the same bits on
		// every CPU.
		pp += float64(p * p)
		pu += float64(p * u[i])
		uu += float64(u[i] * u[i])
		ps += float64(p * s[i])
		us += float64(u[i] * s[i])
	}
	for _, v := range [...]float64{pp, pu, uu, ps, us} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, 0, errors.New("gate: FitPole: the data sums are not finite; check the states and drives for NaN or Inf")
		}
	}
	det := float64(pp*uu) - float64(pu*pu)
	if pp == 0 || uu == 0 || det <= singularTol*pp*uu {
		return 0, 0, fmt.Errorf("%w (s_{t-1} and u_t are collinear or zero); include windows from their zero start or with a varying drive", ErrSingular)
	}
	pole = (float64(ps*uu) - float64(us*pu)) / det
	drive = (float64(pp*us) - float64(pu*ps)) / det
	return pole, drive, nil
}
