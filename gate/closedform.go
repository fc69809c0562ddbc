package gate

import (
	"fmt"
	"math"
)

// halfLifeTol is the relative slack with which a power ρ^k counts as
// having reached 1/2. It absorbs the rounding of ρ itself: math.Sqrt(0.5)
// is 0.5 + 1.1e-16 when squared, which would otherwise turn the intended
// half-life 2 into 3. Rounding in ρ and in up to ~10³ simulated steps stays
// below 1e-12 (float64 epsilon 2.2e-16 per step), so 1e-9 keeps a wide
// margin while no meaningful memory factor lies within 1e-9 of a boundary.
const halfLifeTol = 1e-9

// settleEps is float64 machine epsilon, 2^-52: once ρ^n is below it the
// transient u·ρ^n of the state is below the rounding of s itself.
const settleEps = 0x1p-52

// maxSettleSteps caps SettleSteps: about 10⁶ steps, enough to settle every
// ρ up to 0.99996 while keeping a simulation at a few milliseconds.
const maxSettleSteps = 1 << 20

// SteadyState returns the fixed point of s = ρ·s + (1-ρ)·u under a
// constant drive u, which is u whatever ρ:
//
//	s* = ρ·s* + (1-ρ)·u  ⇔  s* = u
func SteadyState(u float64) float64 { return u }

// Gain returns the gate's gain at state s, the one formula of it:
//
//	g = 1/(1 + β·s)
//
// (the product rounded before the add, so no CPU fuses it).
func Gain(beta, s float64) float64 { return 1 / (1 + float64(beta*s)) }

// SteadyGain returns the gain at the steady state under a constant drive u:
//
//	g* = Gain(β, SteadyState(u)) = 1/(1 + β·u)
func SteadyGain(beta, u float64) float64 { return Gain(beta, SteadyState(u)) }

// HalfLife returns the number of steps after which an impulse in the state
// has decayed to half, the smallest k >= 1 with ρ^k <= 1/2:
//
//	k = ceil(ln(1/2) / ln ρ)
//
// A power within a relative 1e-9 above 1/2 counts as reaching it, so the
// half-life of ρ = 0.5^(1/k) rounded to float64 is k (ρ = 0.5 gives 1,
// ρ = math.Sqrt(0.5) gives 2), and ObservedHalfLife applies the same
// slack. ρ = 0 gives 1: the impulse is gone after one step. HalfLife
// panics when ρ is outside [0,1).
func HalfLife(rho float64) int {
	checkRho("HalfLife", rho)
	if rho == 0 {
		return 1
	}
	k := math.Ceil(math.Log(0.5*(1+halfLifeTol)) / math.Log(rho))
	return max(1, int(k))
}

// SettleSteps returns a number of steps n after which the transient of a
// constant-drive simulation from s_{-1} = 0 is below float64 rounding:
//
//	s_{n-1} = u·(1 - ρ^n),  so take n = ceil(ln ε / ln ρ),  ε = 2^-52
//
// capped at 2^20 (reached for ρ above about 0.99997, where the transient
// is then not fully gone). ρ = 0 gives 1. SettleSteps panics when ρ is
// outside [0,1).
func SettleSteps(rho float64) int {
	checkRho("SettleSteps", rho)
	if rho == 0 {
		return 1
	}
	n := math.Ceil(math.Log(settleEps) / math.Log(rho))
	if n > maxSettleSteps {
		return maxSettleSteps
	}
	return max(1, int(n))
}

// SimulateConstant runs the recurrence n steps under the constant drive u
// from s_{-1} = 0 and returns the states s (n) and gains g (n):
//
//	s_t = ρ·s_{t-1} + (1-ρ)·u,  g_t = 1/(1 + β·s_t)
//
// It does not validate ρ and β; it panics when n < 0.
func SimulateConstant(rho, beta, u float64, n int) (s, g []float64) {
	if n < 0 {
		panic(fmt.Sprintf("gate: SimulateConstant: n = %d steps, want n >= 0", n))
	}
	s, g = make([]float64, n), make([]float64, n)
	var prev float64
	for t := range n {
		prev = rho*prev + (1-rho)*u
		s[t] = prev
		g[t] = Gain(beta, prev)
	}
	return s, g
}

// SteadyGainError simulates n steps of constant drive u and returns
// |g_{n-1} - SteadyGain(β, u)|. Pick n = SettleSteps(ρ) so that what is
// left is rounding, not transient. It panics when n < 1.
func SteadyGainError(rho, beta, u float64, n int) float64 {
	if n < 1 {
		panic(fmt.Sprintf("gate: SteadyGainError: n = %d steps, want n >= 1 (use SettleSteps)", n))
	}
	_, g := SimulateConstant(rho, beta, u, n)
	return math.Abs(g[n-1] - SteadyGain(beta, u))
}

// ObservedHalfLife drives the recurrence with a unit impulse (u_0 = 1, then
// u_t = 0) from s_{-1} = 0 and returns the first k >= 1 with
// s_k <= s_0/2, found by running the recurrence rather than from the
// formula. The comparison carries the same relative slack of 1e-9 as
// HalfLife. It returns an error when ρ is outside [0,1) or the state has
// not halved within maxSteps steps.
func ObservedHalfLife(rho float64, maxSteps int) (int, error) {
	if err := (Params{Rho: rho}).Validate(); err != nil {
		return 0, err
	}
	if maxSteps < 1 {
		return 0, fmt.Errorf("gate: maxSteps = %d; allow at least 1 step, e.g. 10*HalfLife(rho)", maxSteps)
	}
	s0 := (1 - rho) * 1 // u_0 = 1
	half := 0.5 * s0 * (1 + halfLifeTol)
	st := s0
	for k := 1; k <= maxSteps; k++ {
		st = rho*st + (1-rho)*0 // u_k = 0
		if st <= half {
			return k, nil
		}
	}
	return 0, fmt.Errorf("gate: the impulse state for rho = %v did not halve within maxSteps = %d; raise maxSteps to at least %d", rho, maxSteps, 2*HalfLife(rho))
}

func checkRho(fn string, rho float64) {
	if err := (Params{Rho: rho}).Validate(); err != nil {
		panic(fmt.Sprintf("gate: %s: %v", fn, err))
	}
}

// MathRow is the math check of one gate setting: the closed forms against
// simulations of the recurrence (the report's math_check row).
type MathRow struct {
	Rho                float64  `json:"rho"`
	SteadyGainAbsError float64  `json:"steady_gain_abs_error"` // |simulated g_{n-1} - SteadyGain(β, u)|
	HalfObserved       int      `json:"half_observed"`         // impulse half-life by simulation
	HalfPredicted      int      `json:"half_predicted"`        // ⌈ln ½ / ln ρ⌉
	Beta               *float64 `json:"beta,omitempty"`        // β of the row
	Drive              *float64 `json:"drive,omitempty"`       // constant drive u of the simulation
	Steps              *int     `json:"steps,omitempty"`       // simulated steps n
}

// MathDrive is the constant drive u of the math check's steady-gain
// simulation; the check holds for any u >= 0.
const MathDrive = 1.0

// SteadyErrTol bounds steady_gain_abs_error for a row to hold: a settled
// float64 simulation is within a few ulps of the closed form.
const SteadyErrTol = 1e-12

// CheckMath runs the math check of p: the impulse half-life found by the
// recurrence against HalfLife, and the gain after SettleSteps(ρ) steps of
// a constant drive MathDrive against SteadyGain. It fails on an invalid p.
func CheckMath(p Params) (MathRow, error) {
	obs, err := ObservedHalfLife(p.Rho, 1<<20)
	if err != nil {
		return MathRow{}, err
	}
	n := SettleSteps(p.Rho)
	beta, drive := p.Beta, MathDrive
	return MathRow{
		Rho: p.Rho, SteadyGainAbsError: SteadyGainError(p.Rho, p.Beta, MathDrive, n),
		HalfObserved: obs, HalfPredicted: HalfLife(p.Rho),
		Beta: &beta, Drive: &drive, Steps: &n,
	}, nil
}

// Holds reports whether the row confirms the closed forms: the observed
// half-life equals the predicted one and the steady gain is within
// SteadyErrTol.
func (r MathRow) Holds() bool {
	return r.HalfObserved == r.HalfPredicted && r.SteadyGainAbsError <= SteadyErrTol
}
