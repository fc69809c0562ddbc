package gate

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHalfLife(t *testing.T) {
	for _, tc := range []struct {
		name string
		rho  float64
		want int
	}{
		{"zero", 0, 1}, // defined: the impulse is gone after one step
		{"small", 0.1, 1},
		{"half", 0.5, 1},                 // ln½/lnρ is exactly 1
		{"sqrt_half", math.Sqrt(0.5), 2}, // squares to ½ + 1e-16 in float64
		{"cbrt_half", math.Cbrt(0.5), 3}, // ratio 2.9999999999999991
		{"fourth_root_half", math.Pow(0.5, 0.25), 4},
		{"seventh_root_half", math.Pow(0.5, 1.0/7), 7}, // ratio 7.0000000000000036
		{"seed_report_0.85", 0.85, 5},
		{"seed_report_0.9", 0.9, 7},
		{"slow", 0.99, 69},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.want, HalfLife(tc.rho))
			obs, err := ObservedHalfLife(tc.rho, 1000)
			require.NoError(t, err)
			require.Equal(t, tc.want, obs)
		})
	}
}

func TestHalfLifeMatchesObserved(t *testing.T) {
	var rhos []float64
	for i := range 991 { // 0, 0.001, ..., 0.99
		rhos = append(rhos, float64(i)/1000)
	}
	for k := 1; k <= 100; k++ { // the boundaries themselves, rounded to float64
		rhos = append(rhos, math.Pow(0.5, 1/float64(k)))
	}
	for _, rho := range rhos {
		obs, err := ObservedHalfLife(rho, 1000)
		require.NoError(t, err, "rho = %v", rho)
		require.Equal(t, HalfLife(rho), obs, "rho = %v", rho)
	}
}

func TestObservedHalfLifeErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rho      float64
		maxSteps int
		wantErr  string
	}{
		{"too_few_steps", 0.9, 6, "raise maxSteps"}, // the half-life is 7
		{"no_steps", 0.5, 0, "maxSteps = 0"},
		{"rho_one", 1, 100, "rho = 1: must be in [0,1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ObservedHalfLife(tc.rho, tc.maxSteps)
			require.ErrorContains(t, err, tc.wantErr)
		})
	}
	k, err := ObservedHalfLife(0.9, 7)
	require.NoError(t, err, "exactly enough steps")
	require.Equal(t, 7, k)
}

func TestClosedFormsPanicOutsideRange(t *testing.T) {
	for _, rho := range []float64{-0.1, 1, math.NaN()} {
		require.Panics(t, func() { HalfLife(rho) }, "HalfLife(%v)", rho)
		require.Panics(t, func() { SettleSteps(rho) }, "SettleSteps(%v)", rho)
	}
	require.Panics(t, func() { SimulateConstant(0.5, 1, 1, -1) })
	require.Panics(t, func() { SteadyGainError(0.5, 1, 1, 0) })
}

func TestSteadyGainError(t *testing.T) {
	for _, rho := range []float64{0.85, 0.9} {
		for _, beta := range []float64{0.5, 1} {
			for _, u := range []float64{0.3, 1, 2.5} {
				t.Run(fmt.Sprintf("rho=%v/beta=%v/u=%v", rho, beta, u), func(t *testing.T) {
					n := SettleSteps(rho)
					// Rounding only: a few ulps of g* ≤ 1.
					require.Less(t, SteadyGainError(rho, beta, u, n), 1e-12)
					// The settling matters: after one half-life the gap is large.
					require.Greater(t, SteadyGainError(rho, beta, u, HalfLife(rho)), 1e-3)
				})
			}
		}
	}
}

func TestSettleSteps(t *testing.T) {
	require.Equal(t, 1, SettleSteps(0))
	for _, rho := range []float64{0.1, 0.5, 0.85, 0.9, 0.99, 0.999} {
		n := SettleSteps(rho)
		require.LessOrEqual(t, math.Pow(rho, float64(n)), 0x1p-52, "rho = %v: settled", rho)
		require.Greater(t, math.Pow(rho, float64(n-1)), 0x1p-52, "rho = %v: smallest such n", rho)
	}
	require.Equal(t, 1<<20, SettleSteps(0.999999), "capped")
}

func TestSimulateConstant(t *testing.T) {
	const rho, beta, u, n = 0.85, 0.5, 1.3, 40
	s, g := SimulateConstant(rho, beta, u, n)
	require.Len(t, s, n)
	require.Len(t, g, n)
	for k := range n {
		want := u * (1 - math.Pow(rho, float64(k+1))) // geometric sum from s_{-1} = 0
		require.InDelta(t, want, s[k], 1e-14, "s[%d]", k)
		require.InDelta(t, 1/(1+beta*want), g[k], 1e-14, "g[%d]", k)
	}
	require.Equal(t, 1.3, SteadyState(u))
	require.InDelta(t, 1/1.65, SteadyGain(beta, u), 1e-16)
}

// TestCheckMath: the math check of a gate setting confirms the closed
// forms (half-life 7 for ρ = 0.9, the settled gain 1/(1+β·u) for u = 1
// within SteadyErrTol), records its simulation's inputs, and refuses an
// invalid ρ.
func TestCheckMath(t *testing.T) {
	r, err := CheckMath(Params{Rho: 0.9, Beta: 0.5})
	require.NoError(t, err)
	require.Equal(t, 7, r.HalfPredicted)
	require.Equal(t, 7, r.HalfObserved)
	require.LessOrEqual(t, r.SteadyGainAbsError, SteadyErrTol)
	require.Equal(t, SettleSteps(0.9), *r.Steps)
	require.Equal(t, MathDrive, *r.Drive)
	require.True(t, r.Holds())
	r.HalfObserved++
	require.False(t, r.Holds(), "a wrong half-life fails the row")
	_, err = CheckMath(Params{Rho: 1, Beta: 0.5})
	require.ErrorContains(t, err, "rho = 1")
}
