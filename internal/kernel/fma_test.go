package kernel

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// exactFMA32 rounds a·b + c, computed exactly, once to float32 (nearest,
// ties to even).
func exactFMA32(a, b, c float32) float32 {
	x := new(big.Float).SetPrec(2000).SetFloat64(float64(a))
	x.Mul(x, new(big.Float).SetPrec(2000).SetFloat64(float64(b)))
	x.Add(x, new(big.Float).SetPrec(2000).SetFloat64(float64(c)))
	f, _ := x.Float32()
	return f
}

func TestFMA32(t *testing.T) {
	one := float32(1)
	mid := float32(1 + 1.0/(1<<12)) // mid² = 1 + 2^-11 + 2^-24: a float32 midpoint plus 2^-24
	cases := []struct {
		name    string
		a, b, c float32
		want    float32
	}{
		// (1+2^-12)² = 1 + 2^-11 + 2^-24, halfway between two float32 values;
		// c = 2^-80 lifts it above: it rounds up, where the float64 sum
		// rounded again to float32 would tie to even and round down.
		{"midpoint_above", mid, mid, float32(math.Ldexp(1, -80)), math.Float32frombits(math.Float32bits(1+1.0/(1<<11)) + 1)},
		{"midpoint_below", mid, mid, -float32(math.Ldexp(1, -80)), 1 + 1.0/(1<<11)},
		{"midpoint_tie_even", mid, mid, 0, 1 + 1.0/(1<<11)},
		{"cancel_to_plus_zero", one, 2, -2, 0},
		{"negative_zero", float32(math.Copysign(0, -1)), 1, float32(math.Copysign(0, -1)), float32(math.Copysign(0, -1))},
		{"overflow", math.MaxFloat32, 2, 0, float32(math.Inf(1))},
		{"subnormal", float32(math.Ldexp(1, -75)), float32(math.Ldexp(1, -74)), math.SmallestNonzeroFloat32, 2 * math.SmallestNonzeroFloat32},
		{"inf", float32(math.Inf(1)), 1, 1, float32(math.Inf(1))},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := fma32(tc.a, tc.b, tc.c)
			if math.Float32bits(got) != math.Float32bits(tc.want) {
				t.Fatalf("fma32(%g, %g, %g) = %g (%#x), want %g (%#x)", tc.a, tc.b, tc.c, got, math.Float32bits(got), tc.want, math.Float32bits(tc.want))
			}
			if e := exactFMA32(tc.a, tc.b, tc.c); !math.IsInf(float64(tc.want), 0) && math.Float32bits(e) != math.Float32bits(tc.want) {
				t.Fatalf("the case is wrong: exact rounding gives %g", e)
			}
		})
	}
	if got := fma32(float32(math.NaN()), 1, 1); !math.IsNaN(float64(got)) {
		t.Fatalf("fma32(NaN, 1, 1) = %g", got)
	}
	// Random operands, with sums near cancellation and products near
	// float32 midpoints, against exact rounding.
	r := rand.New(rand.NewPCG(5, 8))
	rnd := func() float32 {
		return float32(math.Ldexp(r.Float64()+0.5, r.IntN(60)-30)) * float32(1-2*r.IntN(2))
	}
	for i := range 200000 {
		a, b := rnd(), rnd()
		var c float32
		switch i % 4 {
		case 0:
			c = rnd()
		case 1:
			c = -a * b // near cancellation: the rounding error of a·b survives
		case 2:
			c = float32(math.Ldexp(float64(a)*float64(b), -r.IntN(40)-20)) // tiny against a·b
		default:
			c = -a*b + float32(math.Ldexp(float64(a)*float64(b), -r.IntN(30)))
		}
		if got, want := fma32(a, b, c), exactFMA32(a, b, c); math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%g, %g, %g) = %g, want %g", a, b, c, got, want)
		}
	}
}

// TestAxpy checks axpy (its vector prefix where the CPU has one, then
// the Go loop) against exactFMA32 element by element, at lengths around
// the vector widths, on values whose sums round in every way: random
// scales, exact midpoints and subnormals.
func TestAxpy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	draw := func() float32 {
		switch r.IntN(4) {
		case 0:
			return float32(r.NormFloat64())
		case 1:
			return float32(r.NormFloat64() * math.Ldexp(1, r.IntN(60)-30))
		case 2:
			return math.Float32frombits(r.Uint32N(1 << 23)) // subnormal
		default:
			return float32(1 + r.IntN(1<<10)) // exact products and midpoints
		}
	}
	for _, n := range []int{0, 1, 7, 8, 9, 31, 32, 33, 40, 64, 71, 129} {
		for range 50 {
			a := draw()
			x, y := make([]float32, n), make([]float32, n)
			for i := range x {
				x[i], y[i] = draw(), draw()
			}
			want := make([]float32, n)
			for i := range want {
				want[i] = exactFMA32(a, x[i], y[i])
			}
			axpy(y, a, x)
			for i := range y {
				if math.Float32bits(y[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n %d: y[%d] = %v, want %v (a %v, x %v)", n, i, y[i], want[i], a, x[i])
				}
			}
		}
	}
}
