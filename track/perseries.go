package track

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// PerSeriesLambdas are the ridge strengths a per-series map chooses
// among (PerSeriesMaps), as multiples of the number of a series'
// training windows.
var PerSeriesLambdas = []float64{1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100, 1000, 1e4}

// PerSeriesMaps fits the least-squares linear map of the window once per
// series of the panel, on that series' training windows alone, and
// returns its forecasts of every validation and test window ((N,H) each,
// series k's at row k). A series has fewer training windows (38 to 81
// on the archive's weekly sets at look-back 52) than a map of T inputs
// has coefficients, so the fit is ridge regression, with the intercept
// unpenalized:
//
//	W = (Xcᵀ Xc + λ·n·I)⁻¹ Xcᵀ Yc,  b = ȳ − x̄ W
//
// Xc and Yc the series' n windows' inputs (n,T) and targets (n,H)
// centred on their means x̄ and ȳ. One λ serves every series: of
// PerSeriesLambdas the one of least validation MSE over the panel (ties
// to the stronger). With centred, each window is first shifted by its
// last input value, forecast, and shifted back (FitLinearCentred's
// NLinear, per series). A series without a training window is forecast
// by its last value (persistence).
func (p *RealPanel) PerSeriesMaps(centred bool) (val, test []float64, lambda float64, err error) {
	t, h := p.Train.T, p.Train.H
	ns := len(p.Names)
	type gram struct {
		xtx    *mat.SymDense // Xcᵀ Xc (T,T)
		xty    *mat.Dense    // Xcᵀ Yc (T,H)
		mx, my []float64     // x̄ (T), ȳ (H)
		n      int
	}
	grams := make([]gram, ns)
	for k := range ns {
		lo, hi := p.TrainStart[k], p.TrainStart[k+1]
		n := hi - lo
		g := gram{n: n, mx: make([]float64, t), my: make([]float64, h)}
		if n == 0 {
			grams[k] = g
			continue
		}
		x, y := mat.NewDense(n, t, nil), mat.NewDense(n, h, nil)
		for i := range n {
			wx, wy := p.Train.Window(lo + i)
			c := 0.0
			if centred {
				c = wx[t-1]
			}
			for j := range t {
				x.Set(i, j, wx[j]-c)
			}
			for j := range h {
				y.Set(i, j, wy[t+j]-c)
			}
		}
		for i := range n {
			for j := range t {
				g.mx[j] += x.At(i, j) / float64(n)
			}
			for j := range h {
				g.my[j] += y.At(i, j) / float64(n)
			}
		}
		for i := range n {
			for j := range t {
				x.Set(i, j, x.At(i, j)-g.mx[j])
			}
			for j := range h {
				y.Set(i, j, y.At(i, j)-g.my[j])
			}
		}
		g.xtx = mat.NewSymDense(t, nil)
		g.xtx.SymOuterK(1, x.T())
		g.xty = mat.NewDense(t, h, nil)
		g.xty.Mul(x.T(), y)
		grams[k] = g
	}
	forecast := func(dst []float64, s *Split, k int, w *mat.Dense, b []float64) {
		wx, _ := s.Window(k)
		c := 0.0
		if centred {
			c = wx[t-1]
		}
		for j := range h {
			if w == nil {
				dst[j] = wx[t-1]
				continue
			}
			v := b[j]
			for i := range t {
				v += (wx[i] - c) * w.At(i, j)
			}
			dst[j] = v + c
		}
	}
	fit := func(k int, g gram, l float64) (*mat.Dense, []float64, error) {
		if g.n == 0 {
			return nil, nil, nil
		}
		a := mat.NewSymDense(t, nil)
		a.CopySym(g.xtx)
		for i := range t {
			a.SetSym(i, i, a.At(i, i)+l*float64(g.n))
		}
		var ch mat.Cholesky
		if !ch.Factorize(a) {
			return nil, nil, fmt.Errorf("track: per-series map of series %q: the ridge system at λ %g is not positive definite", p.Names[k], l)
		}
		w := mat.NewDense(t, h, nil)
		if err := ch.SolveTo(w, g.xty); err != nil {
			return nil, nil, fmt.Errorf("track: per-series map of series %q at λ %g: %w", p.Names[k], l, err)
		}
		b := make([]float64, h)
		for j := range h {
			b[j] = g.my[j]
			for i := range t {
				b[j] -= g.mx[i] * w.At(i, j)
			}
		}
		return w, b, nil
	}
	best := math.Inf(1)
	fc := make([]float64, h)
	for _, l := range PerSeriesLambdas {
		v := make([]float64, ns*h)
		te := make([]float64, ns*h)
		for k, g := range grams {
			w, b, err := fit(k, g, l)
			if err != nil {
				return nil, nil, 0, err
			}
			forecast(fc, &p.Val, k, w, b)
			copy(v[k*h:], fc)
			forecast(fc, &p.Test, k, w, b)
			copy(te[k*h:], fc)
		}
		if m := LastPositionMSE(v, &p.Val); m <= best {
			best, val, test, lambda = m, v, te, l
		}
	}
	return val, test, lambda, nil
}
