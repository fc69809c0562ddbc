// Package gate is the per-token fading-memory gate that ideabench tests as
// the architectural idea: a damping gain on the attention branch of each
// transformer block, driven by a leaky average of the branch's energy.
//
// Shape legend: B batch, T positions, C channels, N windows.
//
// With a the attention output (after the output projection) of one
// sequence, the gate computes for t = 0..T-1
//
//	u_t     = (1/C) Σ_j a_{t,j}²          mean energy of token t
//	s_t     = ρ·s_{t-1} + (1-ρ)·u_t       s_{-1} = 0, fading memory
//	g_t     = 1/(1 + β·s_t)               gain in (0,1]
//	y_{t,j} = g_t·a_{t,j}
//
// Design stance: the gate is a pure function of its input and two
// hyper-parameters, written as a forward/backward pair in the style of
// llm.c, so the transformer owns all buffers and the gate never allocates.
// β = 0 is the baseline and is handled as an exact copy, so a run with the
// gate switched off is bit for bit the baseline model, not an approximation
// of it.
//
// The package also holds the theory the report checks a trained model
// against:
//
//  1. closed forms for the steady state under a constant drive
//     (SteadyState, SteadyGain) and the impulse half-life (HalfLife);
//  2. simulations of the same recurrence (SimulateConstant,
//     ObservedHalfLife, SteadyGainError) that must agree with the closed
//     forms, the report's "math check";
//  3. a pole estimator (FitPole) that recovers ρ from the states a trained
//     model actually produced, the report's "mechanism signature".
package gate
