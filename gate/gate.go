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

// Validate reports every out-of-range or non-finite field, joined, each
// error naming the field, what is wrong and a fix:
//
//	<field> = <value>: <what is wrong>; <fix>
//
// This is the one range rule of ρ and β; the harness prefixes the fields'
// JSON paths.
func (p Params) Validate() error {
	var errs []error
	if !(p.Rho >= 0 && p.Rho < 1) {
		errs = append(errs, fmt.Errorf("rho = %v: must be in [0,1); pick a memory factor such as 0.9", p.Rho))
	}
	if !(p.Beta >= 0) || math.IsInf(p.Beta, 0) {
		errs = append(errs, fmt.Errorf("beta = %v: must be a finite number >= 0; pick a gain strength such as 0.5 (0 switches the gate off)", p.Beta))
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
	// The energies of every row into s, the scan in place, then the gains.
	rowSumSq(s, a, B*T, C)
	for b := range B {
		var prev F
		for i := b * T; i < (b+1)*T; i++ {
			st := F(rho*prev) + F(drive*(s[i]/c))
			s[i], prev = st, st
		}
	}
	gateScale(y, a, s, beta, B*T, C)
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
	rho, drive, beta := F(p.Rho), F(1-p.Rho), F(p.Beta)
	scan := ds[:T] // (T)
	for b := range B {
		lo, hi := b*T*C, (b+1)*T*C
		// Local adjoint of each state: dg_t, then ds_t.
		rowDot(scan, dy[lo:hi], a[lo:hi], T, C)
		for t := range T {
			g := 1 / (1 + F(beta*s[b*T+t]))
			scan[t] = -beta * g * g * scan[t]
		}
		// Reverse scan, leaving du_t in place of ds_t.
		var acc F
		for t := T - 1; t >= 0; t-- {
			acc = scan[t] + F(rho*acc)
			scan[t] = drive * acc
		}
		gateGradApply(da[lo:hi], dy[lo:hi], a[lo:hi], s[b*T:(b+1)*T], scan, beta, T, C)
	}
}

// The row passes of Forward and Backward: float32 runs the kernels of
// internal/vmath, other types these loops, the same operations.

// rowSumSq sets dst[i] = Σ_j x[i,j]² over each row's C features in order.
func rowSumSq[F Float](dst, x []F, n, c int) {
	if d32, ok := any(dst).([]float32); ok {
		vmath.RowSumSq(d32, any(x).([]float32), n, c)
		return
	}
	for i := range n {
		var sum F
		for _, v := range x[i*c : i*c+c] {
			sum += F(v * v)
		}
		dst[i] = sum
	}
}

// rowDot sets dst[i] = Σ_j x[i,j]·y[i,j] over each row's C features in order.
func rowDot[F Float](dst, x, y []F, n, c int) {
	if d32, ok := any(dst).([]float32); ok {
		vmath.RowDot(d32, any(x).([]float32), any(y).([]float32), n, c)
		return
	}
	for i := range n {
		var sum F
		yr := y[i*c : i*c+c]
		for j, v := range x[i*c : i*c+c] {
			sum += F(v * yr[j])
		}
		dst[i] = sum
	}
}

// gateScale sets y[i,·] = g_i·a[i,·] with g_i = 1/(1+β·s_i); y may be a.
func gateScale[F Float](y, a, s []F, beta F, n, c int) {
	if y32, ok := any(y).([]float32); ok {
		vmath.GateScale(y32, any(a).([]float32), any(s).([]float32), float32(beta), n, c)
		return
	}
	for i := range n {
		g := 1 / (1 + F(beta*s[i]))
		yr := y[i*c : i*c+c]
		for j, v := range a[i*c : i*c+c] {
			yr[j] = g * v
		}
	}
}

// gateGradApply adds dy·g_i + k_i·a to each row of da, with
// g_i = 1/(1+β·s_i) and k_i = 2·u_i/C.
func gateGradApply[F Float](da, dy, a, s, u []F, beta F, n, c int) {
	if da32, ok := any(da).([]float32); ok {
		f := func(x []F) []float32 { return any(x).([]float32) }
		vmath.GateGradApply(da32, f(dy), f(a), f(s), f(u), float32(beta), n, c)
		return
	}
	for i := range n {
		g := 1 / (1 + F(beta*s[i]))
		k := 2 * u[i] / F(c)
		dar, dyr, ar := da[i*c:i*c+c], dy[i*c:i*c+c], a[i*c:i*c+c]
		for j, d := range dyr {
			dar[j] += F(d*g) + F(k*ar[j])
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
