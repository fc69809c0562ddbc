package gate

import (
	"errors"
	"fmt"
	"math"

	"github.com/ideabench/ideabench/internal/vmath"
)

// Float is the element type of the gate's tensors.
type Float interface{ ~float32 | ~float64 }

// Params are the gate's two hyper-parameters.
type Params struct {
	Rho  float64 `json:"rho"`  // memory factor, in [0,1); 0 means no memory
	Beta float64 `json:"beta"` // gain strength, >= 0; 0 is the identity
}

// DefaultParams returns the configuration of the idea as first proposed
// (ρ = 0.85, β = 0.5, the best idea configuration of the seed report in
// ../shared/seed/seed-report.json): a half-life of 5 tokens.
func DefaultParams() Params { return Params{Rho: 0.85, Beta: 0.5} }

// Validate reports every out-of-range or non-finite field, each error
// naming the field and a fix.
func (p Params) Validate() error {
	var errs []error
	switch {
	case math.IsNaN(p.Rho) || math.IsInf(p.Rho, 0):
		errs = append(errs, fmt.Errorf("gate: rho = %v is not a finite number; pick a memory factor in [0,1) such as 0.9", p.Rho))
	case p.Rho < 0 || p.Rho >= 1:
		errs = append(errs, fmt.Errorf("gate: rho = %v is outside [0,1); pick a memory factor such as 0.9", p.Rho))
	}
	switch {
	case math.IsNaN(p.Beta) || math.IsInf(p.Beta, 0):
		errs = append(errs, fmt.Errorf("gate: beta = %v is not a finite number; pick a gain strength >= 0 such as 0.5 (0 switches the gate off)", p.Beta))
	case p.Beta < 0:
		errs = append(errs, fmt.Errorf("gate: beta = %v is negative; pick a gain strength >= 0 such as 0.5 (0 switches the gate off)", p.Beta))
	}
	return errors.Join(errs...)
}

// Identity reports whether the gate is switched off (β = 0), in which case
// Forward is an exact copy.
func (p Params) Identity() bool { return p.Beta == 0 }

// Forward overwrites y (B,T,C) and s (B,T) from a (B,T,C):
//
//	s_{b,t}   = ρ·s_{b,t-1} + (1-ρ)·(1/C) Σ_j a_{b,t,j}²    s_{b,-1} = 0
//	y_{b,t,j} = a_{b,t,j} / (1 + β·s_{b,t})
//
// Arithmetic runs in F; each energy sum runs over j in increasing order.
// float32 runs the row kernels of internal/vmath (RowSumSq, GateScale;
// vectorized where the CPU allows), which perform the same operations.
// When p.Identity(), y is a bit-exact copy of a and s is zeroed.
//
// y may be a itself (in place, since each row of a is read in full before
// its row of y is written) but must not otherwise overlap a; s must not
// overlap either. Backward needs the original a, so in-place use is for
// inference only.
//
// Forward panics on wrong lengths and on Params that fail Validate.
func Forward[F Float](y, s, a []F, B, T, C int, p Params) {
	checkShape("Forward", B, T, C)
	checkLen("Forward: y", y, B*T*C)
	checkLen("Forward: s", s, B*T)
	checkLen("Forward: a", a, B*T*C)
	checkParams("Forward", p)
	if p.Identity() {
		copy(y, a)
		clear(s)
		return
	}
	rho, drive, beta, c := F(p.Rho), F(1-p.Rho), F(p.Beta), F(C)
	if y32, ok := any(y).([]float32); ok {
		// The energies of every row (vectorized), the scan in place, then
		// the gains: the same operations in the same order.
		s32, a32 := any(s).([]float32), any(a).([]float32)
		vmath.RowSumSq(s32, a32, B*T, C)
		for b := range B {
			var prev F
			for i := b * T; i < (b+1)*T; i++ {
				st := F(rho*prev) + F(drive*(s[i]/c))
				s[i], prev = st, st
			}
		}
		vmath.GateScale(y32, a32, s32, float32(beta), B*T, C)
		return
	}
	// Four sequences at a time: their energy sums are independent chains.
	b := 0
	for ; b+4 <= B; b += 4 {
		var prev [4]F
		for t := range T {
			var i [4]int
			var sum [4]F
			for k := range i {
				i[k] = (b+k)*T + t
			}
			sum[0], sum[1], sum[2], sum[3] = sumSq4(a[i[0]*C:][:C], a[i[1]*C:][:C], a[i[2]*C:][:C], a[i[3]*C:][:C])
			for k, ik := range i {
				st := F(rho*prev[k]) + F(drive*(sum[k]/c))
				scaleRow(y[ik*C:][:C], a[ik*C:][:C], 1/(1+F(beta*st)))
				s[ik], prev[k] = st, st
			}
		}
	}
	for ; b < B; b++ {
		var prev F
		for t := range T {
			i := b*T + t
			row := a[i*C : i*C+C] // (C)
			var sum F
			for _, x := range row {
				sum += F(x * x)
			}
			st := F(rho*prev) + F(drive*(sum/c))
			scaleRow(y[i*C:][:C], row, 1/(1+F(beta*st)))
			s[i] = st
			prev = st
		}
	}
}

// sumSq4 returns Σ_j x_j² of four rows of equal length, each summed in
// increasing j.
func sumSq4[F Float](r0, r1, r2, r3 []F) (s0, s1, s2, s3 F) {
	r1, r2, r3 = r1[:len(r0)], r2[:len(r0)], r3[:len(r0)]
	for j, x := range r0 {
		s0 += F(x * x)
		s1 += F(r1[j] * r1[j])
		s2 += F(r2[j] * r2[j])
		s3 += F(r3[j] * r3[j])
	}
	return
}

// dot4 returns Σ_j x_j·y_j of four row pairs of equal length, each summed
// in increasing j.
func dot4[F Float](x0, y0, x1, y1, x2, y2, x3, y3 []F) (s0, s1, s2, s3 F) {
	y0, x1, y1, x2, y2, x3, y3 = y0[:len(x0)], x1[:len(x0)], y1[:len(x0)], x2[:len(x0)], y2[:len(x0)], x3[:len(x0)], y3[:len(x0)]
	for j, x := range x0 {
		s0 += F(x * y0[j])
		s1 += F(x1[j] * y1[j])
		s2 += F(x2[j] * y2[j])
		s3 += F(x3[j] * y3[j])
	}
	return
}

// scaleRow sets y = g·x (y may be x).
func scaleRow[F Float](y, x []F, g F) {
	y = y[:len(x)]
	for j, v := range x {
		y[j] = g * v
	}
}

// Backward accumulates into da (B,T,C) the gradient of the loss given
// dy (B,T,C), using a (B,T,C) and s (B,T) from Forward. Per sequence, with
// S the adjoint of the state:
//
//	g_t      = 1/(1 + β·s_t)
//	dg_t     = Σ_j dy_{t,j}·a_{t,j}
//	ds_t     = -β·g_t²·dg_t                  since ∂g/∂s = -β/(1+β·s)²
//	S_t      = ds_t + ρ·S_{t+1}              S_T = 0, reverse scan: s_t feeds s_{t+1}
//	du_t     = (1-ρ)·S_t
//	da_{t,j} += dy_{t,j}·g_t + du_t·2·a_{t,j}/C    since ∂u_t/∂a_{t,j} = 2·a_{t,j}/C
//
// float32 runs vmath.RowDot and vmath.GateGradApply around the scan, the
// same operations. ds (len >= T) is scratch for the reverse scan; its first T entries are
// overwritten and carry no meaning afterwards. Passing it in keeps the hot
// path free of allocations. When p.Identity(), Backward adds dy into da
// and leaves ds alone.
//
// da and ds must not overlap each other or dy, a, s. Backward panics on
// wrong lengths and on Params that fail Validate.
func Backward[F Float](da, ds, dy, a, s []F, B, T, C int, p Params) {
	checkShape("Backward", B, T, C)
	checkLen("Backward: da", da, B*T*C)
	if len(ds) < T {
		panic(fmt.Sprintf("gate: Backward: ds has length %d, want at least T = %d", len(ds), T))
	}
	checkLen("Backward: dy", dy, B*T*C)
	checkLen("Backward: a", a, B*T*C)
	checkLen("Backward: s", s, B*T)
	checkParams("Backward", p)
	if p.Identity() {
		for i, d := range dy {
			da[i] += d
		}
		return
	}
	rho, drive, beta, c := F(p.Rho), F(1-p.Rho), F(p.Beta), F(C)
	scan := ds[:T] // (T)
	if da32, ok := any(da).([]float32); ok {
		f := func(x []F, lo, hi int) []float32 { return any(x).([]float32)[lo:hi] }
		for b := range B {
			lo, hi := b*T*C, (b+1)*T*C
			vmath.RowDot(f(scan, 0, T), f(dy, lo, hi), f(a, lo, hi), T, C) // dg_t
			for t := range T {
				g := 1 / (1 + F(beta*s[b*T+t]))
				scan[t] = -beta * g * g * scan[t]
			}
			var acc F
			for t := T - 1; t >= 0; t-- {
				acc = scan[t] + F(rho*acc)
				scan[t] = drive * acc
			}
			vmath.GateGradApply(da32[lo:hi], f(dy, lo, hi), f(a, lo, hi), f(s, b*T, (b+1)*T), f(scan, 0, T), float32(beta), T, C)
		}
		return
	}
	for b := range B {
		// Local adjoint of each state, four positions at a time: their dot
		// products are independent chains.
		t := 0
		for ; t+4 <= T; t += 4 {
			i := b*T + t
			var dg [4]F
			dg[0], dg[1], dg[2], dg[3] = dot4(dy[i*C:][:C], a[i*C:][:C], dy[(i+1)*C:][:C], a[(i+1)*C:][:C],
				dy[(i+2)*C:][:C], a[(i+2)*C:][:C], dy[(i+3)*C:][:C], a[(i+3)*C:][:C])
			for k := range dg {
				g := 1 / (1 + F(beta*s[i+k]))
				scan[t+k] = -beta * g * g * dg[k]
			}
		}
		for ; t < T; t++ {
			i := b*T + t
			g := 1 / (1 + F(beta*s[i]))
			var dg F
			for j, d := range dy[i*C : i*C+C] {
				dg += F(d * a[i*C+j])
			}
			scan[t] = -beta * g * g * dg
		}
		// Reverse scan, leaving du_t in place of ds_t.
		var acc F
		for t := T - 1; t >= 0; t-- {
			acc = scan[t] + F(rho*acc)
			scan[t] = drive * acc
		}
		for t := range T {
			i := b*T + t
			g := 1 / (1 + F(beta*s[i]))
			k := 2 * scan[t] / c
			dar, dyr, ar := da[i*C:][:C], dy[i*C:][:C], a[i*C:][:C]
			for j, d := range dyr {
				dar[j] += F(d*g) + F(k*ar[j])
			}
		}
	}
}

func checkShape(fn string, B, T, C int) {
	if B < 0 || T < 0 || C < 1 {
		panic(fmt.Sprintf("gate: %s: shape B=%d T=%d C=%d, want B, T >= 0 and C >= 1", fn, B, T, C))
	}
}

func checkLen[F Float](what string, x []F, want int) {
	if len(x) != want {
		panic(fmt.Sprintf("gate: %s has length %d, want %d", what, len(x), want))
	}
}

func checkParams(fn string, p Params) {
	if err := p.Validate(); err != nil {
		panic(fmt.Sprintf("gate: %s called with invalid Params (validate the config first): %v", fn, err))
	}
}
