package idea

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ideabench/ideabench/gate"
	"github.com/stretchr/testify/require"
)

func TestLawHolds(t *testing.T) {
	for _, tc := range []struct {
		name string
		law  Law
		want bool
	}{
		{"within", Law{Got: 1.005, Want: 1, Tol: 0.01}, true},
		{"at tol", Law{Got: 1.5, Want: 1, Tol: 0.5}, true},
		{"outside", Law{Got: 1.02, Want: 1, Tol: 0.01}, false},
		{"exact with no tol", Law{Got: 3, Want: 3}, true},
		{"off by one with no tol", Law{Got: 4, Want: 3}, false},
		{"bound met", Law{Got: 0.01, Want: 0.01, AtLeast: true}, true},
		{"bound missed", Law{Got: 0.009, Want: 0.01, AtLeast: true}, false},
		{"NaN", Law{Got: math.NaN(), Want: 0, Tol: 1}, false},
		{"NaN bound", Law{Got: math.NaN(), Want: 0, AtLeast: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) { require.Equal(t, tc.want, tc.law.Holds()) })
	}
	require.False(t, AllHold(nil), "no laws confirm nothing")
	require.True(t, AllHold([]Law{{Got: 1, Want: 1}}))
	require.False(t, AllHold([]Law{{Got: 1, Want: 1}, {Got: 0, Want: 1, AtLeast: true}}))
}

// TestTheories: every registered idea with a theory has laws that hold at
// its defaults and across its range, the same bits on every call.
func TestTheories(t *testing.T) {
	settings := map[string][]map[string]float64{
		"gate": {{"rho": 0}, {"rho": 0.5, "beta": 2}, {"rho": 0.99, "beta": 0.1}, {"rho": 0.9, "beta": 0}},
		"ema":  {{"lambda": 0}, {"lambda": 0.5}, {"lambda": math.Sqrt(0.5)}, {"lambda": 0.99}, {"lambda": 0.99999}},
	}
	for _, s := range registry {
		i, err := New(Config{Name: s.Name})
		require.NoError(t, err)
		if _, ok := i.(Theory); !ok {
			continue
		}
		require.Contains(t, settings, s.Name, "add settings for %s's theory", s.Name)
		for _, m := range append([]map[string]float64{nil}, settings[s.Name]...) {
			c := Config{Name: s.Name, Params: NewParams(m)}
			t.Run(s.Name+" "+c.Params.String(), func(t *testing.T) {
				laws, err := LawsOf(c)
				require.NoError(t, err)
				require.NotEmpty(t, laws)
				for _, l := range laws {
					require.True(t, l.Holds(), "%+v", l)
				}
				again, err := LawsOf(c)
				require.NoError(t, err)
				require.Equal(t, laws, again)
			})
		}
	}
	laws, err := LawsOf(Config{Name: "conv"})
	require.NoError(t, err)
	require.Nil(t, laws, "an idea without a theory has no laws")
}

// TestEMALawsDetectAWrongForward: the ema's laws run its own Forward, so a
// Forward with the wrong drive fails them.
func TestEMALawsDetectAWrongForward(t *testing.T) {
	// The step response of m_t = λ·m_{t-1} + x_t (no 1-λ) tends to 1/(1-λ).
	lam := 0.5
	m, prev := 0.0, 0.0
	for range emaStepTokens {
		m = lam*prev + 1
		prev = m
	}
	l := Law{Name: "step_response", Got: m, Want: 1 - math.Pow(lam, emaStepTokens), Tol: 1e-12}
	require.False(t, l.Holds())
	laws, err := EMA{Lambda: lam}.Laws()
	require.NoError(t, err)
	require.Equal(t, "step_response", laws[0].Name)
	require.InDelta(t, 1, laws[0].Got, 1e-15)
	require.Equal(t, 1.0, laws[1].Want, "λ = 0.5 halves in one token")
}

// TestGateLawsAreConfirm: the gate's mechanism laws all hold exactly when
// gate.Confirm holds, on signatures drawn around each threshold.
func TestGateLawsAreConfirm(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		rho := 0.5 + 0.4*r.Float64()
		l := gate.LayerSignature{
			FittedStatePole:     rho + 0.03*(r.Float64()-0.5),
			InitialGain:         1,
			FinalGain:           1 - 0.03*r.Float64(),
			PredictedSteadyGain: 1 - 0.03*r.Float64(),
		}
		laws := GateLaws(rho, []gate.LayerSignature{l})
		require.Len(t, laws, 3)
		require.Equal(t, gate.Confirm(rho, l.FittedStatePole, l.InitialGain, l.FinalGain, l.PredictedSteadyGain), AllHold(laws), "%+v", l)
	}
}

// TestEMAProbe: on states made by the ema's own Forward, the pole fit
// recovers λ and the engagement is |α|·rms(m)/rms(x); with α = 0 the
// mechanism is not engaged.
func TestEMAProbe(t *testing.T) {
	for _, tc := range []struct {
		name    string
		alpha   float32
		engaged bool
	}{
		{"used", 0.5, true},
		{"unused", 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := EMA{Lambda: 0.8}
			s := Shape{B: 16, N: 12, C: 3}
			r := rand.New(rand.NewPCG(3, 4))
			x := make([]float32, s.Len())
			for i := range x {
				x[i] = float32(r.NormFloat64())
			}
			theta := []float32{tc.alpha, -tc.alpha, tc.alpha}
			y, m := make([]float32, s.Len()), make([]float32, s.Len())
			e.Float32().Forward(y, m, x, theta, s)
			p := e.NewProbe(2, s)
			p.Add(0, m, x, theta, s)
			p.Add(1, m, x, theta, s)
			laws := p.(Signature).Laws()
			require.Len(t, laws, 4)
			require.Equal(t, "block0.state_pole", laws[0].Name)
			require.InDelta(t, 0.8, laws[0].Got, 1e-5)
			var mm, xx float64
			for i := range x {
				mm += float64(m[i]) * float64(m[i])
				xx += float64(x[i]) * float64(x[i])
			}
			require.InDelta(t, math.Abs(float64(tc.alpha))*math.Sqrt(mm/xx), laws[1].Got, 1e-6)
			require.Equal(t, tc.engaged, AllHold(laws))
		})
	}
}
