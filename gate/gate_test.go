package gate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// reference is the gate written as plainly as possible, in float64.
func reference(a []float64, b, t, c int, p Params) (y, s []float64) {
	y, s = make([]float64, len(a)), make([]float64, b*t)
	for bi := range b {
		prev := 0.0
		for ti := range t {
			row := bi*t + ti
			u := 0.0
			for j := range c {
				u += a[row*c+j] * a[row*c+j] / float64(c)
			}
			s[row] = p.Rho*prev + (1-p.Rho)*u
			prev = s[row]
			for j := range c {
				y[row*c+j] = a[row*c+j] / (1 + p.Beta*s[row])
			}
		}
	}
	return y, s
}

func randNormal(r *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = r.NormFloat64()
	}
	return v
}

func garbage[F Float](n int) []F {
	v := make([]F, n)
	for i := range v {
		v[i] = F(math.NaN())
	}
	return v
}

func TestForwardMatchesReference(t *testing.T) {
	const b, tt, c = 3, 9, 4
	for _, p := range []Params{{0.85, 0.5}, {0.9, 1}, {0, 2}, {0.99, 10}} {
		r := rand.New(rand.NewPCG(1, 2))
		a := randNormal(r, b*tt*c)
		wantY, wantS := reference(a, b, tt, c, p)

		y, s := garbage[float64](len(a)), garbage[float64](b*tt)
		Forward(y, s, a, b, tt, c, p)
		require.InDeltaSlice(t, wantY, y, 1e-14)
		require.InDeltaSlice(t, wantS, s, 1e-14)

		a32 := make([]float32, len(a))
		for i, v := range a {
			a32[i] = float32(v)
		}
		y32, s32 := garbage[float32](len(a)), garbage[float32](b*tt)
		Forward(y32, s32, a32, b, tt, c, p)
		for i := range y32 {
			require.InDelta(t, wantY[i], float64(y32[i]), 1e-5)
		}
	}
}

func TestForwardAliasing(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	a := randNormal(r, 2*5*3)
	p := Params{0.8, 0.6}
	y := make([]float64, len(a))
	s := make([]float64, 10)
	Forward(y, s, a, 2, 5, 3, p)
	Forward(a, s, a, 2, 5, 3, p) // in place
	require.Equal(t, y, a)
}

func TestIdentityIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	a := randNormal(r, 2*6*3)
	y, s := garbage[float64](len(a)), garbage[float64](12)
	Forward(y, s, a, 2, 6, 3, Params{Rho: 0.5})
	require.Equal(t, a, y)
	require.Equal(t, make([]float64, 12), s)

	dy := randNormal(r, len(a))
	da := randNormal(r, len(a))
	want := make([]float64, len(a))
	for i := range da {
		want[i] = da[i] + dy[i]
	}
	Backward(da, make([]float64, 6), dy, a, s, 2, 6, 3, Params{Rho: 0.5})
	require.Equal(t, want, da)
}

// TestBackwardFiniteDifferences checks Backward against central
// differences of L = Σ w·y in float64. Step 1e-6: truncation O(1e-12),
// rounding O(1e-10) relative, so 1e-7 has margin yet catches any wrong term.
func TestBackwardFiniteDifferences(t *testing.T) {
	const b, tt, c, eps, tol = 2, 7, 5, 1e-6, 1e-7
	for _, tc := range []struct {
		name string
		p    Params
	}{
		{"rho0.85_beta0.5", Params{0.85, 0.5}},
		{"rho0.9_beta1", Params{0.9, 1}},
		{"rho0_beta3", Params{0, 3}}, // no memory: each token gates itself
		{"rho0.99_beta0.1", Params{0.99, 0.1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(5, 6))
			a := randNormal(r, b*tt*c)
			w := randNormal(r, b*tt*c)
			loss := func() float64 {
				y, s := make([]float64, len(a)), make([]float64, b*tt)
				Forward(y, s, a, b, tt, c, tc.p)
				l := 0.0
				for i := range y {
					l += w[i] * y[i]
				}
				return l
			}
			y, s := make([]float64, len(a)), make([]float64, b*tt)
			Forward(y, s, a, b, tt, c, tc.p)
			da := make([]float64, len(a))
			Backward(da, garbage[float64](tt), w, a, s, b, tt, c, tc.p)
			var diff, scale float64
			for i := range a {
				old := a[i]
				a[i] = old + eps
				lp := loss()
				a[i] = old - eps
				lm := loss()
				a[i] = old
				num := (lp - lm) / (2 * eps)
				diff = max(diff, math.Abs(num-da[i]))
				scale = max(scale, math.Abs(num))
			}
			require.Less(t, diff/scale, tol)
		})
	}
}

func TestBackwardAccumulates(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	p := Params{0.7, 0.9}
	a := randNormal(r, 1*4*2)
	dy := randNormal(r, len(a))
	y, s := make([]float64, len(a)), make([]float64, 4)
	Forward(y, s, a, 1, 4, 2, p)
	fresh := make([]float64, len(a))
	Backward(fresh, make([]float64, 4), dy, a, s, 1, 4, 2, p)
	acc := make([]float64, len(a))
	for i := range acc {
		acc[i] = 1
	}
	Backward(acc, make([]float64, 4), dy, a, s, 1, 4, 2, p)
	for i := range acc {
		require.InDelta(t, fresh[i]+1, acc[i], 1e-15)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		p    Params
		want string
	}{
		{"baseline", Params{0, 0}, ""},
		{"idea", Params{0.85, 0.5}, ""},
		{"rho_negative", Params{-0.1, 0.5}, "rho = -0.1"},
		{"rho_one", Params{1, 0.5}, "rho = 1: must be in [0,1)"}, // no decay: the state never forgets
		{"rho_large", Params{1.5, 0.5}, "rho = 1.5"},
		{"rho_nan", Params{math.NaN(), 0.5}, "rho = NaN"},
		{"beta_negative", Params{0.5, -1}, "beta = -1"},
		{"beta_inf", Params{0.5, math.Inf(1)}, "beta = +Inf"},
		{"beta_nan", Params{0.5, math.NaN()}, "beta = NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.p.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

// randSlice returns n standard normal draws as F.
func randSlice[F Float](r *rand.Rand, n int) []F {
	v := make([]F, n)
	for i := range v {
		v[i] = F(r.NormFloat64())
	}
	return v
}
