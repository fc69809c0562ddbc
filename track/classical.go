package track

import (
	"errors"
	"fmt"
	"math"
)

// The classical forecasters of one series and the literature's scaled
// error, as the forecasting competitions and the Monash archive
// (Godahewa et al. 2021) score global models against them. Each fits on
// a series' training part y (its observations in time order) and returns
// the next h values.

// NaiveForecast is the naive forecast: the last observation, h times.
func NaiveForecast(y []float64, h int) []float64 {
	checkSeries("NaiveForecast", y, h)
	f := make([]float64, h)
	for i := range f {
		f[i] = y[len(y)-1]
	}
	return f
}

// SeasonalNaiveForecast is the seasonal naive forecast of period m: step
// i (from 1) repeats the observation m·⌈i/m⌉ steps before it,
// y[n − m + (i−1) mod m]. It needs n ≥ m.
func SeasonalNaiveForecast(y []float64, m, h int) ([]float64, error) {
	checkSeries("SeasonalNaiveForecast", y, h)
	if m < 1 || len(y) < m {
		return nil, fmt.Errorf("track: seasonal naive of period %d on %d observations: it needs at least one period", m, len(y))
	}
	f := make([]float64, h)
	for i := range f {
		f[i] = y[len(y)-m+i%m]
	}
	return f, nil
}

// MASEScale is the scale of the mean absolute scaled error (Hyndman and
// Koehler 2006): the in-sample mean absolute error of the seasonal naive
// forecast of period m on the training part y,
//
//	scale = 1/(n−m) · Σ_{t=m}^{n−1} |y_t − y_{t−m}|
//
// as the Monash archive computes it (its R code's mean(abs(diff(y, lag
// = m)))). It needs n > m and a series that moves over a period.
func MASEScale(y []float64, m int) (float64, error) {
	if m < 1 || len(y) <= m {
		return 0, fmt.Errorf("track: MASE scale of period %d on %d observations: it needs more than one period", m, len(y))
	}
	var s float64
	for t := m; t < len(y); t++ {
		s += math.Abs(y[t] - y[t-m])
	}
	s /= float64(len(y) - m)
	if !(s > 0) || math.IsInf(s, 0) {
		return 0, fmt.Errorf("track: MASE scale of period %d is %v: the series does not change over a period, so no error can be scaled by it", m, s)
	}
	return s, nil
}

// MASE is the mean absolute scaled error of forecast f against the
// actual values a: mean |a − f| / scale (MASEScale).
func MASE(a, f []float64, scale float64) float64 {
	if len(a) != len(f) || len(a) == 0 {
		panic(fmt.Sprintf("track: MASE of %d forecasts against %d actual values", len(f), len(a)))
	}
	var s float64
	for i := range a {
		s += math.Abs(a[i] - f[i])
	}
	return s / float64(len(a)) / scale
}

// SES is simple exponential smoothing, ETS(A,N,N), fitted to a series:
//
//	ℓ_t = ℓ_{t−1} + α·(y_t − ℓ_{t−1}),  forecast ŷ_{n+i} = ℓ_{n−1}
//
// from the initial level ℓ_{−1} = L0.
type SES struct {
	Alpha, L0 float64
	// Level is ℓ_{n−1}, the level after the last observation.
	Level float64
	// SSE is the sum of the squared one-step errors y_t − ℓ_{t−1}.
	SSE float64
}

// The bounds of SES's α, those of R's forecast::ets.
const (
	sesAlphaMin = 1e-4
	sesAlphaMax = 0.9999
)

// FitSES fits SES to y by least squares, as R's forecast::ses does
// (ETS(A,N,N) by maximum likelihood, which for additive errors is least
// squares) within α ∈ [1e-4, 0.9999]: for each α the best initial level
// is closed-form, since the one-step errors are linear in it,
//
//	e_t = y_t − c_t − (1−α)^t·ℓ0,  c_0 = 0, c_{t+1} = (1−α)·c_t + α·y_t
//	ℓ0 = Σ (y_t − c_t)(1−α)^t / Σ (1−α)^{2t}
//
// and α is the best of 200 evenly spaced values, refined by golden-section
// search between its neighbours (deterministic, to about 1e-9).
func FitSES(y []float64) SES {
	checkSeries("FitSES", y, 1)
	sse := func(a float64) SES { return sesAt(y, a) }
	const grid = 200
	step := (sesAlphaMax - sesAlphaMin) / (grid - 1)
	best, bk := sse(sesAlphaMin), 0
	for k := 1; k < grid; k++ {
		if s := sse(sesAlphaMin + float64(k)*step); s.SSE < best.SSE {
			best, bk = s, k
		}
	}
	lo := math.Max(sesAlphaMin, sesAlphaMin+float64(bk-1)*step)
	hi := math.Min(sesAlphaMax, sesAlphaMin+float64(bk+1)*step)
	g := (math.Sqrt(5) - 1) / 2
	a, b := hi-g*(hi-lo), lo+g*(hi-lo)
	fa, fb := sse(a), sse(b)
	for hi-lo > 1e-9 {
		if fa.SSE <= fb.SSE {
			hi, b, fb = b, a, fa
			a = hi - g*(hi-lo)
			fa = sse(a)
		} else {
			lo, a, fa = a, b, fb
			b = lo + g*(hi-lo)
			fb = sse(b)
		}
	}
	for _, s := range []SES{fa, fb} {
		if s.SSE < best.SSE {
			best = s
		}
	}
	return best
}

// sesAt is SES at smoothing α with its least-squares initial level.
func sesAt(y []float64, alpha float64) SES {
	d := 1 - alpha
	var num, den, c, w float64
	w = 1
	for _, v := range y {
		num += (v - c) * w
		den += w * w
		c = d*c + alpha*v
		w *= d
	}
	s := SES{Alpha: alpha, L0: num / den}
	l := s.L0
	for _, v := range y {
		e := v - l
		s.SSE += e * e
		l += alpha * e
	}
	s.Level = l
	return s
}

// Forecast is SES's forecast: its last level, h times.
func (s SES) Forecast(h int) []float64 {
	f := make([]float64, h)
	for i := range f {
		f[i] = s.Level
	}
	return f
}

// SeasonalTest reports whether y is seasonal of period m by the test of
// the Theta method's M4 benchmark (and R's forecast::thetaf): with r_k
// the sample autocorrelation at lag k, seasonal when
//
//	|r_m| > 1.645·√((1 + 2·Σ_{k=1}^{m−1} r_k²)/n)
//
// (the 90% two-sided limit). Only for m > 1 and n > 2m and a series that
// is not constant; false otherwise.
func SeasonalTest(y []float64, m int) bool {
	n := len(y)
	if m <= 1 || n <= 2*m {
		return false
	}
	var mean float64
	for _, v := range y {
		mean += v
	}
	mean /= float64(n)
	var den float64
	for _, v := range y {
		den += (v - mean) * (v - mean)
	}
	if den == 0 {
		return false
	}
	r := func(k int) float64 {
		var s float64
		for t := k; t < n; t++ {
			s += (y[t] - mean) * (y[t-k] - mean)
		}
		return s / den
	}
	var s2 float64
	for k := 1; k < m; k++ {
		s2 += r(k) * r(k)
	}
	return math.Abs(r(m)) > 1.6448536269514722*math.Sqrt((1+2*s2)/float64(n))
}

// SeasonalIndices are the seasonal indices of y of period m by classical
// multiplicative decomposition (R's decompose, type "multiplicative"):
// the trend is the centred moving average of order m (2×m for even m),
// each observation over it is averaged by its position t mod m, and the m
// averages are scaled to mean 1. It needs every observation > 0 and n ≥
// 2m.
func SeasonalIndices(y []float64, m int) ([]float64, error) {
	n := len(y)
	if m < 2 || n < 2*m {
		return nil, fmt.Errorf("track: seasonal indices of period %d on %d observations: need two periods", m, n)
	}
	for t, v := range y {
		if !(v > 0) {
			return nil, fmt.Errorf("track: multiplicative seasonal indices need positive observations; observation %d is %v", t, v)
		}
	}
	half := m / 2
	sum := make([]float64, m)
	cnt := make([]int, m)
	for t := half; t < n-half; t++ {
		var tr float64
		if m%2 == 0 {
			tr = (y[t-half] + y[t+half]) / 2
			for k := t - half + 1; k < t+half; k++ {
				tr += y[k]
			}
		} else {
			for k := t - half; k <= t+half; k++ {
				tr += y[k]
			}
		}
		tr /= float64(m)
		sum[t%m] += y[t] / tr
		cnt[t%m]++
	}
	var mean float64
	for j := range sum {
		sum[j] /= float64(cnt[j])
		mean += sum[j]
	}
	mean /= float64(m)
	for j := range sum {
		sum[j] /= mean
	}
	return sum, nil
}

// Theta is the Theta method (Assimakopoulos and Nikolopoulos 2000) as the
// M4 competition's benchmark and R's forecast::thetaf compute it, which
// is SES with drift (Hyndman and Billah 2003): on the series seasonally
// adjusted where SeasonalTest says it is seasonal of period m (divided by
// SeasonalIndices), with SES fitted (FitSES) and b the least-squares
// slope of the adjusted series on time,
//
//	ŷ_{n+i} = ℓ_{n−1} + (b/2)·((i − 1) + (1 − (1−α)^n)/α),  i = 1 … h
//
// then multiplied back by the index of its position. A series with an
// observation ≤ 0 is not adjusted (a multiplicative index needs positive
// values).
func Theta(y []float64, m, h int) []float64 {
	checkSeries("Theta", y, h)
	n := len(y)
	adj := y
	var idx []float64
	if SeasonalTest(y, m) {
		if s, err := SeasonalIndices(y, m); err == nil {
			idx = s
			adj = make([]float64, n)
			for t, v := range y {
				adj[t] = v / s[t%m]
			}
		}
	}
	ses := FitSES(adj)
	b := slope(adj)
	drift := (1 - math.Pow(1-ses.Alpha, float64(n))) / ses.Alpha
	f := make([]float64, h)
	for i := range f {
		f[i] = ses.Level + b/2*(float64(i)+drift)
		if idx != nil {
			f[i] *= idx[(n+i)%m]
		}
	}
	return f
}

// slope is the least-squares slope of y on t = 0 … n−1 (0 for n = 1).
func slope(y []float64) float64 {
	n := float64(len(y))
	if len(y) < 2 {
		return 0
	}
	tm := (n - 1) / 2
	var ym float64
	for _, v := range y {
		ym += v
	}
	ym /= n
	var sxy, sxx float64
	for t, v := range y {
		dt := float64(t) - tm
		sxy += dt * (v - ym)
		sxx += dt * dt
	}
	return sxy / sxx
}

// errNoSeries is the panic of a forecaster given no observations or no
// horizon: a programmer's error, as the callers cut the series.
var errNoSeries = errors.New("track: a forecaster needs at least one observation and a horizon of at least 1")

func checkSeries(who string, y []float64, h int) {
	if len(y) == 0 || h < 1 {
		panic(fmt.Sprintf("%s: %v (%d observations, horizon %d)", who, errNoSeries, len(y), h))
	}
}
