package gate

import (
	"fmt"
	"math"
)

// LayerSignature is the mechanism signature of one block's gate: what the
// gate of a trained model did on a set of windows, next to what the
// theory predicts from it.
type LayerSignature struct {
	Layer               int     `json:"layer"`
	InitialGain         float64 `json:"initial_gain"`          // mean over windows of g at position 0
	FinalGain           float64 `json:"final_gain"`            // mean over windows of g at position T-1
	MeanState           float64 `json:"mean_state"`            // mean over windows of s at position T-1
	PredictedSteadyGain float64 `json:"predicted_steady_gain"` // SteadyGain(β, mean_state)
	FittedStatePole     float64 `json:"fitted_state_pole"`     // FitPole over all windows and positions
	FittedDrive         float64 `json:"fitted_drive"`          // the drive coefficient of that fit, ≈ 1-ρ
	Confirmed           bool    `json:"confirmed"`

	GainByPosition  []float64 `json:"gain_by_position"`  // mean over windows of g at each position 0..T-1; [0] is initial_gain, [T-1] final_gain
	StateByPosition []float64 `json:"state_by_position"` // mean over windows of s at each position; [T-1] is mean_state
}

// Finite reports whether every number of the signature is finite.
func (l LayerSignature) Finite() bool {
	xs := append([]float64{l.InitialGain, l.FinalGain, l.MeanState, l.PredictedSteadyGain, l.FittedStatePole, l.FittedDrive}, l.GainByPosition...)
	for _, x := range append(xs, l.StateByPosition...) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// Confirmation tolerances of the mechanism signature. The pole fit on
// float32 states recovers ρ to ~1e-3 (this package's tests), so 0.01
// separates a fading memory with the designed pole from anything else;
// 0.02 on the gain allows the Jensen gap between mean gain and gain at the
// mean state for the spread of states seen across windows; 0.01 of gain
// drop is the least that says the gate engages at all.
const (
	PoleTol     = 0.01
	SteadyTol   = 0.02
	MinGainDrop = 0.01
)

// Confirm applies the three criteria of the theory to one signature:
//
//	|fitted_state_pole - ρ| ≤ PoleTol                   the state is the designed fading memory
//	|final_gain - predicted_steady_gain| ≤ SteadyTol    the window ends at the steady gain of its state
//	initial_gain - final_gain ≥ MinGainDrop             the gain falls as the memory fills
func Confirm(rho, pole, initial, final, predicted float64) bool {
	return math.Abs(pole-rho) <= PoleTol && math.Abs(final-predicted) <= SteadyTol && initial-final >= MinGainDrop
}

// Probe accumulates a trained model's gate states over evaluation batches
// and turns them into one LayerSignature per block.
type Probe struct {
	p           Params
	n           int         // windows seen
	gPos, sPos  [][]float64 // (L,T) sums over windows of the gain and the state at each position
	sPrev, s, u [][]float64 // (L) the pole fit's samples
}

// NewProbe returns a probe for a gate p in layers blocks of t positions.
func NewProbe(p Params, layers, t int) *Probe {
	a := &Probe{p: p, gPos: make([][]float64, layers), sPos: make([][]float64, layers),
		sPrev: make([][]float64, layers), s: make([][]float64, layers), u: make([][]float64, layers)}
	for l := range layers {
		a.gPos[l], a.sPos[l] = make([]float64, t), make([]float64, t)
	}
	return a
}

// Add feeds block l's gate state s (B,T) and gate input a (B,T,C) of one
// batch of B windows; call it for every block of each batch.
func (a *Probe) Add(l int, s, x []float32, B, T, C int) {
	checkLen("Probe.Add: s", s, B*T)
	checkLen("Probe.Add: x", x, B*T*C)
	beta := a.p.Beta
	for bi := range B {
		prev := 0.0
		for ti := range T {
			var u float64
			for _, v := range x[(bi*T+ti)*C : (bi*T+ti+1)*C] {
				u += float64(float64(v) * float64(v))
			}
			cur := float64(s[bi*T+ti])
			a.sPos[l][ti] += cur
			a.gPos[l][ti] += Gain(beta, cur)
			a.sPrev[l] = append(a.sPrev[l], prev)
			a.s[l] = append(a.s[l], cur)
			a.u[l] = append(a.u[l], u/float64(C))
			prev = cur
		}
	}
	if l == 0 {
		a.n += B
	}
}

// Finish returns one signature per block; nil when a number is not
// finite (a degenerate pole fit of constant states), so the mechanism
// reads unconfirmed rather than carrying a NaN.
func (a *Probe) Finish() []LayerSignature {
	var out []LayerSignature
	n := float64(a.n)
	for l := range a.gPos {
		var gain, state []float64
		for ti := range a.gPos[l] {
			gain = append(gain, a.gPos[l][ti]/n)
			state = append(state, a.sPos[l][ti]/n)
		}
		pole, drive, err := FitPole(a.sPrev[l], a.s[l], a.u[l])
		if err != nil {
			pole, drive = 0, 0
		}
		ls := Summarize(a.p, l, gain, state, pole, drive)
		if !ls.Finite() {
			return nil
		}
		out = append(out, ls)
	}
	return out
}

// Summarize builds block layer's signature of a gate p from what the
// probe measured: the mean gain and state by position (T each) and the
// pole fit (pole and drive both 0 when the fit failed). Every other field
// follows from these:
//
//	initial_gain = gain_by_position[0]       final_gain = gain_by_position[T-1]
//	mean_state   = state_by_position[T-1]    predicted_steady_gain = SteadyGain(β, mean_state)
//	confirmed    = a fitted pole and Confirm(ρ, pole, initial_gain, final_gain, predicted_steady_gain)
//
// so a report's signature re-derives from those four fields alone.
func Summarize(p Params, layer int, gain, state []float64, pole, drive float64) LayerSignature {
	if len(gain) == 0 || len(state) != len(gain) {
		panic(fmt.Sprintf("gate: Summarize: %d gains and %d states; want T >= 1 of each", len(gain), len(state)))
	}
	ls := LayerSignature{Layer: layer, InitialGain: gain[0], FinalGain: gain[len(gain)-1], MeanState: state[len(state)-1],
		FittedStatePole: pole, FittedDrive: drive, GainByPosition: gain, StateByPosition: state}
	ls.PredictedSteadyGain = SteadyGain(p.Beta, ls.MeanState)
	fitted := pole != 0 || drive != 0
	ls.Confirmed = fitted && Confirm(p.Rho, pole, ls.InitialGain, ls.FinalGain, ls.PredictedSteadyGain)
	return ls
}
