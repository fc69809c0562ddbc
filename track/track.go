package track

import (
	"fmt"
	"math"
	"slices"
)

// Split is one set of N windows. Position t of a window (0 <= t < T)
// forecasts the target channel's next H values; a window holds T+H target
// values so every target lies inside it.
//
// A split has one of two layouts. Packed (Per = 0): each window is its
// own copy, as X and Y below describe. Series (Per > 0): the windows are
// views of N/Per series, each Per+T+H-1 rows long, laid end to end; window
// n = s·Per + i covers rows i … i+T+H-1 of series s. X then holds the
// series' inputs (N/Per, Per+T+H-1, C) and Y their target channel
// (N/Per, Per+T+H-1); both may be one buffer when C = 1. A series split
// of a long file costs its rows, not its windows times T (weather at
// T = 336: 21 channels of 36 887 rows is 6 MB; packed, 6 GB).
type Split struct {
	// X holds the normalized inputs. Packed: window-major, window n,
	// position t, channel c is X[(n*T+t)*C+c] (N,T,C).
	X []float64
	// Y holds the normalized target channel over the whole window:
	// Y[n][0:T] is the target channel of X[n], position t's targets are
	// Y[n][t+1 : t+1+H], and the evaluation targets are Y[n][T : T+H].
	// Packed: (N,T+H).
	Y []float64
	// N is the number of windows.
	N int
	// T is the number of input positions (context length).
	T int
	// H is the forecast horizon.
	H int
	// C is the number of input channels.
	C int
	// Per is the number of windows of each series of the series layout;
	// 0 is the packed layout.
	Per int
}

// Window returns views of window n: its inputs x (T*C) and its target
// channel y (T+H). Writing through them writes the Split (and, in the
// series layout, the windows that share those rows); they are capped, so
// an append cannot overwrite what follows.
func (s *Split) Window(n int) (x, y []float64) {
	s.check("Window")
	if n < 0 || n >= s.N {
		panic(fmt.Sprintf("track: Window(%d) outside [0,%d)", n, s.N))
	}
	tc, th := s.T*s.C, s.T+s.H
	if s.Per > 0 {
		r := (n/s.Per)*s.rows() + n%s.Per // first row of the window
		return s.X[r*s.C : r*s.C+tc : r*s.C+tc], s.Y[r : r+th : r+th]
	}
	return s.X[n*tc : (n+1)*tc : (n+1)*tc], s.Y[n*th : (n+1)*th : (n+1)*th]
}

// rows is the length of each series of the series layout.
func (s *Split) rows() int { return s.Per + s.T + s.H - 1 }

// Series is the number of series of the series layout (1 when packed).
func (s *Split) Series() int {
	if s.Per > 0 {
		return s.N / s.Per
	}
	return 1
}

// Sub returns a view of series k of a series split: its Per windows, in
// the series layout. For a packed split, k must be 0 and Sub returns s.
func (s *Split) Sub(k int) Split {
	s.check("Sub")
	if k < 0 || k >= s.Series() {
		panic(fmt.Sprintf("track: Sub(%d) outside [0,%d)", k, s.Series()))
	}
	if s.Per == 0 {
		return *s
	}
	r := s.rows()
	return Split{X: s.X[k*r*s.C : (k+1)*r*s.C], Y: s.Y[k*r : (k+1)*r], N: s.Per, T: s.T, H: s.H, C: s.C, Per: s.Per}
}

// check panics when the buffers of s disagree with its sizes.
func (s *Split) check(who string) {
	if s.N < 0 || s.T < 1 || s.H < 1 || s.C < 1 || s.Per < 0 {
		panic(fmt.Sprintf("track: %s: split sizes N=%d T=%d H=%d C=%d Per=%d are invalid", who, s.N, s.T, s.H, s.C, s.Per))
	}
	if s.Per > 0 {
		if s.N%s.Per != 0 || len(s.X) != s.Series()*s.rows()*s.C || len(s.Y) != s.Series()*s.rows() {
			panic(fmt.Sprintf("track: %s: len(X)=%d, len(Y)=%d do not match %d series of %d rows (N=%d Per=%d T=%d H=%d C=%d)",
				who, len(s.X), len(s.Y), s.Series(), s.rows(), s.N, s.Per, s.T, s.H, s.C))
		}
		return
	}
	if len(s.X) != s.N*s.T*s.C || len(s.Y) != s.N*(s.T+s.H) {
		panic(fmt.Sprintf("track: %s: len(X)=%d, len(Y)=%d do not match N=%d T=%d H=%d C=%d",
			who, len(s.X), len(s.Y), s.N, s.T, s.H, s.C))
	}
}

// Norm holds the z-normalization of each channel, from the train region
// only, so nothing of val or test leaks into it:
//
//	x_norm = (x - Mean[c]) / Std[c]
type Norm struct {
	// Mean is the population mean of each channel over the train region. (C)
	Mean []float64
	// Std is the population standard deviation of each channel over the
	// train region. (C)
	Std []float64
}

// Dataset is a track's three splits plus what the report states about them.
type Dataset struct {
	// Name identifies the track in the report, e.g. "sequence".
	Name string
	// Train is the split the models and Linear are fitted on; it is cut
	// from the first region of the series.
	Train Split
	// Val is the split hyperparameters are picked on, cut from the region
	// right after Train's.
	Val Split
	// Test is the split the report's metric is computed on, cut from the
	// last region.
	Test Split
	// Norm is the normalization applied to all three splits.
	Norm Norm
	// Target is the index of the target channel in X (0 for the sequence
	// track).
	Target int
	// NoiseFloor is the expected MSE of the generator's optimal forecaster
	// on the normalized scale (last position, H steps); 0 with
	// HasNoiseFloor false when unknown.
	NoiseFloor float64
	// HasNoiseFloor reports whether NoiseFloor is known.
	HasNoiseFloor bool
	// Notes say what about the source data a user should know (a csv
	// file's repeated timestamps or gaps, Table.Notes).
	Notes []string
	// Channels names the input channels in model order: the CSV
	// columns, "x" for the sequence track and csv channels
	// "independent", or "+0", "+1", … for csv channels "mixed" (the
	// forecast column, then the ones after it in file order).
	Channels []string
	// Series names the series of the splits' series layout, in order,
	// when the track forecasts every column (CSVConfig.Channels
	// "independent" or "mixed"): series k forecasts column Series[k];
	// empty otherwise.
	Series []string
	// Other holds the same track at other look-backs (a protocol whose
	// grid tunes the context, harness Cfg.Context), keyed by T: the same
	// rows, regions and normalization, so every look-back forecasts the
	// same val and test targets. Nil when the grid has one look-back.
	Other map[int]*Dataset
	// Tokens is, on a token track, its sequences; the forecasting splits
	// are then empty.
	Tokens *TokenDataset
	// Period is the season, in time steps, of the seasonal-persistence
	// reference forecaster; 0 when the track has none.
	Period int
	// Panel is, on a real panel (the tsf track), the panel the splits
	// were cut from: each series' normalization, in-sample part and MASE
	// scale, for the archive's metric and references; nil otherwise.
	Panel *RealPanel
}

// regionLen is the number of time steps n windows of length t+h span with
// stride 1.
func regionLen(n, t, h int) int { return n + t + h - 1 }

// newDataset runs steps 2 to 4 of the pipeline on series (L,C), which must
// be exactly as long as the three regions together. It does not modify
// series. It fails when a channel is constant or non-finite over the train
// region, since z-normalization would divide by zero.
func newDataset(name string, series []float64, c, target, t, h, nTrain, nVal, nTest int) (*Dataset, error) {
	lTrain, lVal, lTest := regionLen(nTrain, t, h), regionLen(nVal, t, h), regionLen(nTest, t, h)
	if len(series) != (lTrain+lVal+lTest)*c || target < 0 || target >= c {
		panic("track: newDataset: series must be (L,C) with L the sum of the region lengths and 0 <= target < C")
	}
	norm, z, bad := normalize(series, c, lTrain)
	if bad >= 0 {
		return nil, fmt.Errorf("track: %s: channel %d has std %v over the train region; "+
			"drop constant or non-finite channels, or lengthen the train region", name, bad, norm.Std[bad])
	}
	return &Dataset{
		Name:   name,
		Train:  cut(z[:lTrain*c], c, target, nTrain, t, h),
		Val:    cut(z[lTrain*c:(lTrain+lVal)*c], c, target, nVal, t, h),
		Test:   cut(z[(lTrain+lVal)*c:], c, target, nTest, t, h),
		Norm:   norm,
		Target: target,
	}, nil
}

// normalize z-normalizes series (L,C) with the mean and population std of
// each channel over its first rows rows, returning the statistics, the
// normalized copy and the first channel whose std is zero or not finite
// (-1 when none; z is then nil).
func normalize(series []float64, c, rows int) (norm Norm, z []float64, bad int) {
	norm = Norm{Mean: make([]float64, c), Std: make([]float64, c)}
	for ch := range c {
		var sum float64
		for i := range rows {
			sum += series[i*c+ch]
		}
		mean := sum / float64(rows)
		var ss float64
		for i := range rows {
			d := series[i*c+ch] - mean
			ss += float64(d * d)
		}
		std := math.Sqrt(ss / float64(rows))
		norm.Mean[ch], norm.Std[ch] = mean, std
		if !(std > 0) || math.IsInf(std, 0) {
			return norm, nil, ch
		}
	}
	z = make([]float64, len(series))
	for i, v := range series {
		ch := i % c
		z[i] = (v - norm.Mean[ch]) / norm.Std[ch]
	}
	return norm, z, -1
}

// cut copies the n stride-1 windows of region (regionLen(n,t,h),C) into a
// new Split.
func cut(region []float64, c, target, n, t, h int) Split {
	if len(region) != regionLen(n, t, h)*c {
		panic("track: cut: region must be (N+T+H-1,C)")
	}
	s := Split{X: make([]float64, n*t*c), Y: make([]float64, n*(t+h)), N: n, T: t, H: h, C: c}
	for i := range n {
		x, y := s.Window(i)
		copy(x, region[i*c:(i+t)*c])
		for j := range y {
			y[j] = region[(i+j)*c+target]
		}
	}
	return s
}

// synthFields are the fields the synthetic tracks share, with the example
// values their messages suggest; check reports each unusable one through
// bad, shaped "<key> = <value>: <what is wrong>; <fix>".
type synthFields struct {
	windows, examples          [3]int // train, val, test
	unit                       string // what a split counts: "window" or "series"
	t, h, components           int
	exComponents               int
	minPeriod, maxPeriod       float64
	exMin, exMax, arCoef, exAR float64
}

func (f synthFields) check(bad func(format string, args ...any)) {
	for i, name := range []string{"train_windows", "val_windows", "test_windows"} {
		if f.windows[i] < 1 {
			bad("%s = %d: each split needs at least 1 %s; use e.g. %d", name, f.windows[i], f.unit, f.examples[i])
		}
	}
	if f.t < 1 {
		bad("t = %d: the context needs at least 1 position; use e.g. 32", f.t)
	}
	if f.h < 1 {
		bad("h = %d: the horizon needs at least 1 step; use e.g. 8", f.h)
	}
	if f.components < 1 {
		bad("components = %d: a series needs at least 1 sinusoid; use e.g. %d", f.components, f.exComponents)
	}
	// A period under 2 steps aliases onto a longer one (Nyquist), so it
	// would not be the period the config names.
	minOK := f.minPeriod >= 2 && !math.IsInf(f.minPeriod, 0)
	if !minOK {
		bad("min_period = %g: a period must be finite and at least 2 steps (Nyquist); use e.g. %g", f.minPeriod, f.exMin)
	}
	// Against an unusable min_period, max_period is judged alone.
	maxFinite := !math.IsInf(f.maxPeriod, 0)
	switch {
	case !minOK && !(f.maxPeriod >= 2 && maxFinite):
		bad("max_period = %g: a period must be finite and at least 2 steps (Nyquist); use e.g. %g", f.maxPeriod, f.exMax)
	case minOK && !(f.maxPeriod >= f.minPeriod && maxFinite):
		bad("max_period = %g: must be finite and at least min_period = %g; use e.g. %g", f.maxPeriod, f.minPeriod, f.exMax)
	}
	if !(math.Abs(f.arCoef) < 1) {
		bad("ar_coef = %g: must be in (-1,1) for the AR(1) noise to be stationary; use e.g. %g", f.arCoef, f.exAR)
	}
}

// At returns the track at look-back t: d itself for 0 or d's own T,
// else d.Other[t]. A look-back the track was not built at is a
// programmer error.
func (d *Dataset) At(t int) *Dataset {
	if t == 0 || t == d.Train.T || d.Tokens != nil {
		return d
	}
	o, ok := d.Other[t]
	if !ok {
		panic(fmt.Sprintf("track: Dataset.At(%d): %s was built at T = %d and %d others", t, d.Name, d.Train.T, len(d.Other)))
	}
	return o
}

// Contexts lists the look-backs the track was built at, ascending.
func (d *Dataset) Contexts() []int {
	if d.Tokens != nil {
		return []int{d.Tokens.Train.T}
	}
	out := []int{d.Train.T}
	for t := range d.Other {
		out = append(out, t)
	}
	slices.Sort(out)
	return out
}
