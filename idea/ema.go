package idea

import (
	"fmt"
	"math"

	"github.com/ideabench/ideabench/gate"
)

// emaSpec mixes each block's output with a fading average of the tokens
// before it, per channel, with a learnable strength that starts at 0: a
// token mixer in the spirit of EMA-augmented attention (Ma et al. 2023,
// "Mega"), kept to one fixed decay λ.
var emaSpec = Spec{
	Name:      "ema",
	Doc:       "a per-channel exponential moving average over tokens added to each block's output: h_t ← h_t + α⊙m_t, m_t = λ·m_{t-1} + (1-λ)·h_t, α starting at 0",
	Rationale: "A moving average over tokens carries evidence forward that attention would otherwise have to find again at every token.",
	Params: []Param{
		{Name: "lambda", Default: 0.8, Doc: "decay λ of the average, in [0,1)",
			Space:  &Range{Lo: 0.5, Hi: 0.95},
			Source: "no paper fixes it: an input's weight in the average halves over 1 to 13 tokens across the range"},
	},
	New: func(p Params) (Idea, error) {
		l, _ := p.Get("lambda")
		if !(l >= 0 && l < 1) {
			return nil, fmt.Errorf("ema.lambda = %v: must be in [0,1); pick a decay such as 0.8", l)
		}
		return EMA{Lambda: l}, nil
	},
}

// EMA is the ema idea at one setting.
type EMA struct{ Lambda float64 }

func (e EMA) Config() Config {
	return Config{Name: "ema", Params: NewParams(map[string]float64{"lambda": e.Lambda})}
}
func (EMA) Site() Site     { return SiteResidual }
func (EMA) Identity() bool { return false }
func (EMA) Tensors(s Shape) []Tensor {
	return []Tensor{{Name: "alpha", Shape: []int{s.C}, Kind: Bias}}
}
func (EMA) State(s Shape) int      { return s.N * s.C } // the averages m
func (EMA) Scratch(s Shape) int    { return s.C }       // the adjoint of m, one token
func (e EMA) Float32() Op[float32] { return emaOp[float32](e) }
func (e EMA) Float64() Op[float64] { return emaOp[float64](e) }

type emaOp[F Float] EMA

// Forward: m_t = λ·m_{t-1} + (1-λ)·x_t (m_{-1} = 0), y_t = x_t + α⊙m_t.
func (e emaOp[F]) Forward(y, state, x, theta []F, s Shape) {
	lam, drive := F(e.Lambda), F(1-e.Lambda)
	alpha := theta[:s.C]
	for b := range s.B {
		for t := range s.N {
			i := (b*s.N + t) * s.C
			for c := range s.C {
				var prev F
				if t > 0 {
					prev = state[i-s.C+c]
				}
				m := F(lam*prev) + F(drive*x[i+c])
				state[i+c] = m
				y[i+c] = x[i+c] + F(alpha[c]*m)
			}
		}
	}
}

// Backward: with S_t the adjoint of m_t, S_t = α⊙dy_t + λ·S_{t+1}
// (S_N = 0, a reverse scan), dx_t = dy_t + (1-λ)·S_t, dα += Σ_t dy_t⊙m_t.
func (e emaOp[F]) Backward(dx, dtheta, scratch, dy, _, state, theta []F, s Shape) {
	lam, drive := F(e.Lambda), F(1-e.Lambda)
	alpha, acc := theta[:s.C], scratch[:s.C]
	for b := range s.B {
		clear(acc)
		for t := s.N - 1; t >= 0; t-- {
			i := (b*s.N + t) * s.C
			for c := range s.C {
				acc[c] = F(alpha[c]*dy[i+c]) + F(lam*acc[c])
				dx[i+c] = dy[i+c] + F(drive*acc[c])
			}
		}
		for t := range s.N {
			i := (b*s.N + t) * s.C
			for c := range s.C {
				dtheta[c] += F(dy[i+c] * state[i+c])
			}
		}
	}
}

// emaStepTokens is the length of the ema's step-response simulation.
const emaStepTokens = 64

// emaMaxHalfLife bounds the impulse simulation: a decay whose half-life is
// longer is left out of the math check (it would simulate millions of
// tokens for a λ no window could use).
const emaMaxHalfLife = 1 << 16

// Laws is the ema's math check, run through its own float64 Forward on one
// channel with α = 1 (so y - x is the average m):
//
//	step_response      m after n = 64 tokens of constant input 1 against 1 - λⁿ
//	impulse_half_life  the first t >= 1 with m_t <= m_0/2 after a unit impulse
//	                   against ⌈ln ½ / ln λ⌉ (gate.HalfLife: the same recurrence)
func (e EMA) Laws() ([]Law, error) {
	op := emaOp[float64](e)
	theta := []float64{1}
	run := func(x []float64) []float64 {
		s := Shape{B: 1, N: len(x), C: 1}
		y, m := make([]float64, len(x)), make([]float64, len(x))
		op.Forward(y, m, x, theta, s)
		return m
	}
	step := make([]float64, emaStepTokens)
	for i := range step {
		step[i] = 1
	}
	m := run(step)
	laws := []Law{{Name: "step_response", Got: m[len(m)-1], Want: 1 - math.Pow(e.Lambda, emaStepTokens), Tol: 1e-12}}
	if h := gate.HalfLife(e.Lambda); h <= emaMaxHalfLife {
		imp := make([]float64, h+1)
		imp[0] = 1
		m := run(imp)
		obs := 0
		for t := 1; t < len(m); t++ {
			if m[t] <= 0.5*m[0]*(1+1e-9) {
				obs = t
				break
			}
		}
		laws = append(laws, Law{Name: "impulse_half_life", Got: float64(obs), Want: float64(h)})
	}
	return laws, nil
}

// NewProbe returns the ema's mechanism probe.
func (e EMA) NewProbe(instances int, s Shape) Probe {
	return &emaProbe{lambda: e.Lambda, sums: make([][7]float64, instances)}
}

// EngageMin is the least share the ema's path must carry in a trained
// model for its mechanism to count as used: rms(α⊙m) / rms(x) over the
// test windows (α starts at 0, so an unused mixer stays near 0).
const EngageMin = 0.01

// emaProbe accumulates, per block, the least-squares sums of the pole fit
// m_t = a·m_{t-1} + b·x_t over all windows, tokens t >= 1 and channels,
// and the energies of the path α⊙m and of the input x.
type emaProbe struct {
	lambda float64
	sums   [][7]float64 // pp, px, xx, pm, xm, path², x²
}

func (p *emaProbe) Add(l int, state, x, theta []float32, s Shape) {
	q := &p.sums[l]
	for b := range s.B {
		for t := range s.N {
			i := (b*s.N + t) * s.C
			for c := range s.C {
				xv, mv := float64(x[i+c]), float64(state[i+c])
				path := float64(theta[c]) * mv
				q[5] += path * path
				q[6] += xv * xv
				if t > 0 {
					pv := float64(state[i-s.C+c])
					q[0] += pv * pv
					q[1] += pv * xv
					q[2] += xv * xv
					q[3] += pv * mv
					q[4] += xv * mv
				}
			}
		}
	}
}

// Laws, per block:
//
//	block<l>.state_pole  the fitted pole a of m_t = a·m_{t-1} + b·x_t within gate.PoleTol of λ
//	block<l>.engagement  rms(α⊙m) / rms(x) at least EngageMin: training put the average to use
//
// nil when a fit is singular or a number not finite.
func (p *emaProbe) Laws() []Law {
	var laws []Law
	for l, q := range p.sums {
		det := q[0]*q[2] - q[1]*q[1]
		if !(det > 0) || !(q[6] > 0) {
			return nil
		}
		pole := (q[3]*q[2] - q[4]*q[1]) / det
		pre := fmt.Sprintf("block%d.", l)
		laws = append(laws,
			Law{Name: pre + "state_pole", Got: pole, Want: p.lambda, Tol: gate.PoleTol},
			Law{Name: pre + "engagement", Got: math.Sqrt(q[5] / q[6]), Want: EngageMin, AtLeast: true})
	}
	for _, l := range laws {
		if !l.Finite() {
			return nil
		}
	}
	return laws
}
