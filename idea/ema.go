package idea

import "fmt"

// emaSpec mixes each block's output with a fading average of the tokens
// before it, per channel, with a learnable strength that starts at 0: a
// token mixer in the spirit of EMA-augmented attention (Ma et al. 2023,
// "Mega"), kept to one fixed decay λ.
var emaSpec = Spec{
	Name: "ema",
	Doc:  "a per-channel exponential moving average over tokens added to each block's output: h_t ← h_t + α⊙m_t, m_t = λ·m_{t-1} + (1-λ)·h_t, α starting at 0",
	Params: []Param{
		{"lambda", 0.8, "decay λ of the average, in [0,1)"},
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
