package track

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// maxCond is the largest condition number of the design matrix FitLinear
// accepts: beyond it a float64 least-squares solution keeps fewer than 4 of
// its ~16 significant digits (the error bound grows as cond·ε, Golub & Van
// Loan, Matrix Computations, §5.3).
const maxCond = 1e12

// SquaredError adds the squared errors of pred against target (equal
// lengths) to sum and returns it, in float64 and in index order:
//
//	sum + Σ_i (pred_i - target_i)²
//
// The one rule of the report's metric: the model's evaluation
// (transformer.LastPositionSSE) and every reference forecaster
// (LastPositionMSE) sum their errors with it.
func SquaredError[F ~float32 | ~float64](sum float64, pred, target []F) float64 {
	target = target[:len(pred)]
	for i, v := range pred {
		d := float64(v) - float64(target[i])
		sum += float64(d * d)
	}
	return sum
}

// LastPositionMSE returns the mean squared error of pred (N,H) against the
// evaluation targets Y[n][T:T+H] of s, over all N·H values: the metric every
// forecaster on a track is scored with.
func LastPositionMSE(pred []float64, s *Split) float64 {
	if len(pred) != s.N*s.H {
		panic(fmt.Sprintf("track: LastPositionMSE: pred has %d values, want N*H = %d", len(pred), s.N*s.H))
	}
	var sum float64
	for n := range s.N {
		_, y := s.Window(n)
		sum = SquaredError(sum, pred[n*s.H:(n+1)*s.H], y[s.T:])
	}
	return sum / float64(s.N*s.H)
}

// Persistence repeats the last input value of the target channel for all H
// steps and returns LastPositionMSE over the split.
func Persistence(s *Split, target int) float64 {
	if target < 0 || target >= s.C {
		panic(fmt.Sprintf("track: Persistence: target %d outside [0,%d)", target, s.C))
	}
	pred := make([]float64, s.N*s.H) // (N,H)
	for n := range s.N {
		x, _ := s.Window(n)
		last := x[(s.T-1)*s.C+target]
		for h := range s.H {
			pred[n*s.H+h] = last
		}
	}
	return LastPositionMSE(pred, s)
}

// SeasonalPersistence repeats the target channel's last period of p
// inputs for all H steps and returns LastPositionMSE over the split:
//
//	ŷ_{T-1+h} = x_{T-1+h-p·⌈h/p⌉},  h = 1..H
//
// (the seasonal naive forecast, Hyndman and Athanasopoulos, Forecasting:
// Principles and Practice, §5.2). It needs 1 <= p <= T.
func SeasonalPersistence(s *Split, target, p int) float64 {
	if target < 0 || target >= s.C || p < 1 || p > s.T {
		panic(fmt.Sprintf("track: SeasonalPersistence: target %d of C = %d, period %d of T = %d", target, s.C, p, s.T))
	}
	pred := make([]float64, s.N*s.H) // (N,H)
	for n := range s.N {
		x, _ := s.Window(n)
		for h := 1; h <= s.H; h++ {
			k := (h + p - 1) / p // ⌈h/p⌉
			pred[n*s.H+h-1] = x[(s.T-1+h-p*k)*s.C+target]
		}
	}
	return LastPositionMSE(pred, s)
}

// Linear is a least-squares linear forecaster on the window: for each
// horizon step h = 1..H,
//
//	ŷ_{T-1+h} = w_h · x + b_h
//
// with x the window's T·C inputs.
type Linear struct {
	// W holds the weights, one row per horizon step. (H,T*C)
	W []float64
	// B holds the intercepts. (H)
	B []float64
	// T, H and C are the shape of the windows it was fitted on.
	T, H, C int
	// Centred marks the last-value-centred map (FitLinearCentred): the
	// window's last value is subtracted from its inputs before the map
	// and added back to the forecast.
	Centred bool
}

// FitLinear fits a Linear on the train split in closed form: with the design
// matrix A = [X | 1] (N, T·C+1) and the targets Yₑ (N,H) = Y[n][T:T+H], it
// solves
//
//	min ‖A·[W | B]ᵀ - Yₑ‖²
//
// by Householder QR (gonum mat.QR). It returns an error when N < T·C+1 or
// when A is rank deficient (collinear inputs).
func FitLinear(train *Split) (*Linear, error) {
	p := train.T*train.C + 1
	if train.N < p {
		return nil, fmt.Errorf("track: FitLinear: %d train windows are too few for %d inputs plus an intercept; need N >= T*C+1 = %d", train.N, p-1, p)
	}
	a := mat.NewDense(train.N, p, nil)
	b := mat.NewDense(train.N, train.H, nil)
	for n := range train.N {
		x, y := train.Window(n)
		row := a.RawRowView(n)
		copy(row, x)
		row[p-1] = 1
		copy(b.RawRowView(n), y[train.T:])
	}
	var qr mat.QR
	qr.Factorize(a)
	if c := qr.Cond(); c > maxCond {
		return nil, fmt.Errorf("track: FitLinear: design matrix has condition number %.3g > %g; the inputs are collinear (e.g. a noiseless or constant channel), add noise or shorten T", c, maxCond)
	}
	var sol mat.Dense // (T*C+1, H)
	if err := qr.SolveTo(&sol, false, b); err != nil {
		return nil, fmt.Errorf("track: FitLinear: %w", err)
	}
	l := &Linear{W: make([]float64, train.H*(p-1)), B: make([]float64, train.H), T: train.T, H: train.H, C: train.C}
	for h := range train.H {
		for j := range p - 1 {
			l.W[h*(p-1)+j] = sol.At(j, h)
		}
		l.B[h] = sol.At(p-1, h)
	}
	return l, nil
}

// FitLinearCentred fits the last-value-centred linear map on a
// univariate train split (C = 1): with c = x_{T-1}, the window's last
// value,
//
//	ŷ_{T-1+h} = c + Σ_{t<T-1} w_{h,t}·(x_t - c) + b_h
//
// fitted in closed form as FitLinear does, on the centred windows (the
// centred last input is always 0, so it has no weight: W's last column
// is 0). This is NLinear (Zeng et al. 2023, "Are Transformers Effective
// for Time Series Forecasting?", §4): the map is shift-equivariant, so a
// level shift between train and test does not bias it.
func FitLinearCentred(train *Split) (*Linear, error) {
	if train.C != 1 {
		panic(fmt.Sprintf("track: FitLinearCentred: C = %d, want a univariate split (see Univariate)", train.C))
	}
	t, h := train.T, train.H
	if t < 2 {
		return nil, fmt.Errorf("track: FitLinearCentred: T = %d; the centred map needs at least 2 inputs", t)
	}
	// Windows of T-1 centred inputs x_0..x_{T-2} and the same targets.
	c := Split{X: make([]float64, train.N*(t-1)), Y: make([]float64, train.N*(t-1+h)), N: train.N, T: t - 1, H: h, C: 1}
	for n := range train.N {
		x, y := train.Window(n)
		cx, cy := c.Window(n)
		last := x[t-1]
		for i := range t - 1 {
			cx[i], cy[i] = x[i]-last, y[i]-last
		}
		for i := range h {
			cy[t-1+i] = y[t+i] - last
		}
	}
	fit, err := FitLinear(&c)
	if err != nil {
		return nil, err
	}
	l := &Linear{W: make([]float64, h*t), B: fit.B, T: t, H: h, C: 1, Centred: true}
	for k := range h {
		copy(l.W[k*t:k*t+t-1], fit.W[k*(t-1):(k+1)*(t-1)])
	}
	return l, nil
}

// Predict overwrites dst (H) with the forecast from one window's inputs x
// (T*C).
func (l *Linear) Predict(dst, x []float64) {
	tc := l.T * l.C
	if len(dst) != l.H || len(x) != tc {
		panic(fmt.Sprintf("track: Linear.Predict: dst has %d and x %d values, want H = %d and T*C = %d", len(dst), len(x), l.H, tc))
	}
	var c float64
	if l.Centred {
		c = x[tc-1]
	}
	for h := range l.H {
		v := l.B[h]
		for j, w := range l.W[h*tc : (h+1)*tc] {
			v += float64(w * (x[j] - c))
		}
		dst[h] = v + c
	}
}

// MSE returns LastPositionMSE of the forecasts over the split s, which must
// have the shape l was fitted on.
func (l *Linear) MSE(s *Split) float64 {
	if s.T != l.T || s.H != l.H || s.C != l.C {
		panic(fmt.Sprintf("track: Linear.MSE: split is T=%d H=%d C=%d, model T=%d H=%d C=%d", s.T, s.H, s.C, l.T, l.H, l.C))
	}
	if s.Per > 0 {
		return l.sse(s) / float64(s.N*s.H)
	}
	pred := make([]float64, s.N*s.H) // (N,H)
	for n := range s.N {
		x, _ := s.Window(n)
		l.Predict(pred[n*s.H:(n+1)*s.H], x)
	}
	return LastPositionMSE(pred, s)
}

// sse is the sum of squared errors of l's forecasts over the windows of
// s, window order kept in the sum (forecasts by Forecast).
func (l *Linear) sse(s *Split) float64 {
	pred := make([]float64, s.N*s.H) // (N,H)
	l.Forecast(pred, s, 0, s.N)
	var sum float64
	for n := range s.N {
		_, y := s.Window(n)
		sum = SquaredError(sum, pred[n*s.H:(n+1)*s.H], y[s.T:])
	}
	return sum
}

// Forecast overwrites dst (n,H) with l's forecasts of windows lo …
// lo+n-1 of s, in blocks of windows by matrix products (gonum mat.Mul):
//
//	ŷ = X·Wᵀ + 1·bᵀ,  centred: ŷ = (X - c·1ᵀ)·Wᵀ + c + 1·bᵀ
//
// with X the windows' inputs (n,T·C) and c each window's last input.
// (Predict computes the same forecast one window at a time; the sums
// run in another order, so the two agree to rounding.)
func (l *Linear) Forecast(dst []float64, s *Split, lo, n int) {
	if s.T != l.T || s.H != l.H || s.C != l.C || len(dst) != n*l.H || lo < 0 || lo+n > s.N {
		panic(fmt.Sprintf("track: Linear.Forecast: split T=%d H=%d C=%d N=%d, model T=%d H=%d C=%d, windows [%d,%d), dst %d",
			s.T, s.H, s.C, s.N, l.T, l.H, l.C, lo, lo+n, len(dst)))
	}
	const block = 512
	tc := l.T * l.C
	w := mat.NewDense(l.H, tc, l.W)
	xb := make([]float64, min(block, n)*tc)
	cs := make([]float64, block)
	for b0 := 0; b0 < n; b0 += block {
		m := min(block, n-b0)
		for i := range m {
			x, _ := s.Window(lo + b0 + i)
			row := xb[i*tc : (i+1)*tc]
			copy(row, x)
			if l.Centred {
				c := x[tc-1]
				for j := range row {
					row[j] -= c
				}
				cs[i] = c
			}
		}
		pred := mat.NewDense(m, l.H, dst[b0*l.H:(b0+m)*l.H])
		pred.Mul(mat.NewDense(m, tc, xb[:m*tc]), w.T())
		for i := range m {
			p := pred.RawRowView(i)
			for h := range p {
				p[h] += l.B[h]
				if l.Centred {
					p[h] += cs[i]
				}
			}
		}
	}
}

// PerSeriesForecast returns the forecasts (N,H) of every window of s
// (series layout), series k by maps[k] (Forecast).
func PerSeriesForecast(maps []*Linear, s *Split) []float64 {
	if len(maps) != s.Series() {
		panic(fmt.Sprintf("track: PerSeriesForecast: %d maps for %d series", len(maps), s.Series()))
	}
	out := make([]float64, s.N*s.H)
	for k, l := range maps {
		sub := s.Sub(k)
		l.Forecast(out[k*sub.N*s.H:(k+1)*sub.N*s.H], &sub, 0, sub.N)
	}
	return out
}

// Univariate returns a copy of s with channel ch as its only input
// channel: the windows a per-channel forecaster sees (DLinear-style
// "individual" linear models fit one such map per channel; FitLinear on
// Univariate(train, target) is that map for the target).
func Univariate(s *Split, ch int) Split {
	s.check("Univariate")
	if ch < 0 || ch >= s.C {
		panic(fmt.Sprintf("track: Univariate: channel %d outside [0,%d)", ch, s.C))
	}
	if s.Per > 0 && s.C == 1 {
		return *s // already the one channel: a view
	}
	if s.Per > 0 {
		// The series layout: channel ch of every row, windows unchanged.
		u := Split{X: make([]float64, len(s.X)/s.C), Y: s.Y, N: s.N, T: s.T, H: s.H, C: 1, Per: s.Per}
		for i := range u.X {
			u.X[i] = s.X[i*s.C+ch]
		}
		return u
	}
	u := Split{X: make([]float64, s.N*s.T), Y: s.Y, N: s.N, T: s.T, H: s.H, C: 1}
	for i := range s.N * s.T {
		u.X[i] = s.X[i*s.C+ch]
	}
	return u
}
