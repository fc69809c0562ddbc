package idea

import (
	"fmt"

	"github.com/ideabench/ideabench/gate"
)

// gateSpec is the per-token fading-memory gate of package gate on each
// block's attention branch.
var gateSpec = Spec{
	Name:      "gate",
	Doc:       "per-token fading-memory gain on the attention branch: s = ρ·s + (1-ρ)·mean(a²), a ← a/(1+β·s)",
	Rationale: "A per-token fading-memory gate can weigh the evidence it accumulates over the window.",
	Params: []Param{
		{Name: "rho", Default: 0.9, Doc: "memory factor ρ in [0,1)",
			Space:  &Range{Lo: 0.5, Hi: 0.99},
			Source: "the seed report's idea_sweep tries rho 0.85 and 0.9; the range runs from a memory of one token (half-life 1) to one of 69"},
		{Name: "beta", Default: 0.5, Doc: "gain strength β >= 0; 0 is the identity",
			Space:  &Range{Lo: 0.1, Hi: 4, Scale: ScaleLog},
			Source: "the seed report's idea_sweep tries beta 0.5 and 1; the range runs from a gain barely below 1 to a strong damping"},
	},
	Off: map[string]float64{"beta": 0},
	New: func(p Params) (Idea, error) {
		rho, _ := p.Get("rho")
		beta, _ := p.Get("beta")
		g := gate.Params{Rho: rho, Beta: beta}
		if err := g.Validate(); err != nil {
			return nil, err
		}
		return Gate{g}, nil
	},
}

// Gate is the gate idea at one setting.
type Gate struct{ P gate.Params }

func (g Gate) Config() Config {
	return Config{Name: "gate", Params: NewParams(map[string]float64{"rho": g.P.Rho, "beta": g.P.Beta})}
}
func (Gate) Site() Site             { return SiteAttention }
func (g Gate) Identity() bool       { return g.P.Identity() }
func (Gate) Tensors(Shape) []Tensor { return nil }
func (Gate) State(s Shape) int      { return s.N }
func (Gate) Scratch(s Shape) int    { return s.N }
func (g Gate) Float32() Op[float32] { return gateOp[float32](g) }
func (g Gate) Float64() Op[float64] { return gateOp[float64](g) }
func (g Gate) String() string       { return g.Config().Params.String() }

type gateOp[F Float] Gate

func (g gateOp[F]) Forward(y, state, x, _ []F, s Shape) {
	gate.Forward(y, state, x, s.B, s.N, s.C, g.P)
}

func (g gateOp[F]) Backward(dx, _, scratch, dy, x, state, _ []F, s Shape) {
	clear(dx) // gate.Backward accumulates
	gate.Backward(dx, scratch, dy, x, state, s.B, s.N, s.C, g.P)
}

// NewProbe returns the gate's mechanism probe (gate.Probe).
func (g Gate) NewProbe(instances int, s Shape) Probe {
	return gateProbe{g.P, gate.NewProbe(g.P, instances, s.N)}
}

// Laws is the gate's math check (gate.CheckMath) as laws: the impulse
// half-life found by running the recurrence against ⌈ln ½ / ln ρ⌉, and the
// gain after gate.SettleSteps(ρ) steps of the constant drive
// gate.MathDrive against the steady gain 1/(1+β·u).
func (g Gate) Laws() ([]Law, error) {
	r, err := gate.CheckMath(g.P)
	if err != nil {
		return nil, err
	}
	_, gains := gate.SimulateConstant(g.P.Rho, g.P.Beta, gate.MathDrive, *r.Steps)
	return []Law{
		{Name: "impulse_half_life", Got: float64(r.HalfObserved), Want: float64(r.HalfPredicted)},
		{Name: "steady_gain", Got: gains[len(gains)-1], Want: gate.SteadyGain(g.P.Beta, gate.MathDrive), Tol: gate.SteadyErrTol},
	}, nil
}

// gateProbe feeds gate.Probe.
type gateProbe struct {
	p gate.Params
	a *gate.Probe
}

func (g gateProbe) Add(l int, state, x, _ []float32, s Shape) { g.a.Add(l, state, x, s.B, s.N, s.C) }

// Laws is gate.Confirm's three criteria for every block, as laws (see
// GateLaws).
func (g gateProbe) Laws() []Law { return GateLaws(g.p.Rho, g.a.Finish()) }

// GateLaws turns the per-block signatures of a gate at ρ into laws, three
// per block, that all hold exactly when gate.Confirm holds for each block:
//
//	block<l>.state_pole  the fitted pole of the state within gate.PoleTol of ρ
//	block<l>.final_gain  the gain at the last position within gate.SteadyTol of the steady gain of the mean state
//	block<l>.gain_drop   the gain falls by at least gate.MinGainDrop over the window
func GateLaws(rho float64, ls []GateLayer) []Law {
	var laws []Law
	for _, l := range ls {
		p := fmt.Sprintf("block%d.", l.Layer)
		laws = append(laws,
			Law{Name: p + "state_pole", Got: l.FittedStatePole, Want: rho, Tol: gate.PoleTol},
			Law{Name: p + "final_gain", Got: l.FinalGain, Want: l.PredictedSteadyGain, Tol: gate.SteadyTol},
			Law{Name: p + "gain_drop", Got: l.InitialGain - l.FinalGain, Want: gate.MinGainDrop, AtLeast: true})
	}
	return laws
}

// GateSignature returns the per-block signatures of a gate probe, nil
// when p is not one or a number was not finite.
func GateSignature(p Probe) []GateLayer {
	if g, ok := p.(gateProbe); ok {
		return g.a.Finish()
	}
	return nil
}

// The seed report's schema (../shared/seed) keeps fields of the gate's
// own: each cfg's rho and beta, the mechanism signature's gains, state
// and pole (block 0 at the top level, every block under layers), and the
// math check's rows. What follows is the one adapter between that schema
// and the gate idea: the other packages build and verify those fields
// through it and import no gate code of their own.

// GateLayer is one block's mechanism signature in the seed schema
// (mechanism_signature.layers[l]): what the gate's probe measured, and
// the summary GateSummarize derives from it.
type GateLayer = gate.LayerSignature

// GateMathRow is one row of the seed schema's math check
// (math_check.rows[i]): the impulse half-life and steady gain of one
// gate cfg against their closed forms.
type GateMathRow = gate.MathRow

// The gate's tolerances: GatePoleTol for the fitted state pole against
// ρ, GateSteadyErrTol for the math check's steady gain against
// simulation.
const (
	GatePoleTol      = gate.PoleTol
	GateSteadyErrTol = gate.SteadyErrTol
)

// GateValidate checks a gate setting, each error naming rho or beta and
// the fix (the registry's gate.New checks the same).
func GateValidate(rho, beta float64) error { return gate.Params{Rho: rho, Beta: beta}.Validate() }

// GateSummarize completes block l's signature from what the probe
// measured (gain and state by position, the fitted pole and drive): the
// initial and final gain, the mean state, the predicted steady gain
// 1/(1+β·mean state) and gate.Confirm's verdict.
func GateSummarize(rho, beta float64, l int, m GateLayer) GateLayer {
	return gate.Summarize(gate.Params{Rho: rho, Beta: beta}, l, m.GainByPosition, m.StateByPosition, m.FittedStatePole, m.FittedDrive)
}

// GateSteadyGain is the closed-form steady gain 1/(1+β·u) of a constant
// drive u.
func GateSteadyGain(beta, u float64) float64 { return gate.SteadyGain(beta, u) }

// GateConfirm is the gate's three criteria on one block (gate.Confirm):
// the fitted pole within GatePoleTol of ρ, the final gain at the
// predicted steady gain, and a gain drop over the window.
func GateConfirm(rho, pole, initial, final, predicted float64) bool {
	return gate.Confirm(rho, pole, initial, final, predicted)
}

// GateMath is the math check's row of a gate setting (gate.CheckMath).
func GateMath(rho, beta float64) (GateMathRow, error) {
	return gate.CheckMath(gate.Params{Rho: rho, Beta: beta})
}

// GateHalfLives are the impulse half-life of memory factor rho in
// closed form, ⌈ln ½ / ln ρ⌉, and found by running the recurrence (at
// most maxSteps steps; an error when it takes more). It panics when rho
// is outside [0,1) (GateValidate first).
func GateHalfLives(rho float64, maxSteps int) (predicted, observed int, err error) {
	observed, err = gate.ObservedHalfLife(rho, maxSteps)
	return gate.HalfLife(rho), observed, err
}
