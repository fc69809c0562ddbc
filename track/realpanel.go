package track

import (
	"fmt"
	"slices"
	"strings"
)

// A real panel is many short real series and one global model over all
// of them, cut by the Monash archive's protocol (Godahewa et al. 2021):
// each series' last H values are its test targets, and the H before them
// its validation targets.

// RealPanelConfig is the task on a .tsf file.
type RealPanelConfig struct {
	// T is the look-back in steps.
	T int
	// H is the horizon; 0 takes the file's @horizon.
	H int
	// Period is the lag of the MASE scale and of the seasonal naive
	// forecast; 0 takes the archive's for the file's @frequency
	// (MASEPeriod).
	Period int
}

// RealPanel is a real panel's windows and what scoring them needs.
type RealPanel struct {
	// Dataset holds the windows, packed, one channel: Train every window
	// whose inputs and targets lie in a series' training part, Val and
	// Test one window a series, series k's at index k. Its Norm is the
	// identity: each series is z-normalized by its own training part
	// (Mean, Std), so every window is on its series' scale.
	*Dataset
	// Names are the series' names (their first attribute), in file
	// order.
	Names []string
	// Mean and Std are each series' normalization, over its training
	// part (everything before its validation targets).
	Mean, Std []float64
	// InSample is each series' in-sample part, normalized: everything
	// before its test targets (its training part and validation
	// targets), which the classical references are fitted on and the
	// MASE scale is taken over, as the archive does.
	InSample [][]float64
	// Lag is each series' lag of the MASE scale and the seasonal naive
	// forecast: the Dataset's Period, or 1 for a series not longer than
	// the archive's period, as the archive scales it.
	Lag []int
	// TrainStart holds where each series' training windows begin in
	// Train: series k's are [TrainStart[k], TrainStart[k+1]). (series+1)
	TrainStart []int
	// Scale is each series' MASE scale (MASEScale of InSample at its
	// Lag), on the normalized scale: a scaled error is the same on either
	// scale.
	Scale []float64
}

// maseSeasonality is the Monash archive's seasonality of each frequency
// for its MASE: the largest of its seasonal periods (its R code takes
// max(seasonality) as diff's lag, which truncates it: weekly 365.25/7
// gives 52).
var maseSeasonality = map[string]float64{
	"4_seconds": 7889400, "minutely": 525960, "10_minutes": 52596, "15_minutes": 35064,
	"half_hourly": 17532, "hourly": 8766, "daily": 7, "weekly": 365.25 / 7,
	"monthly": 12, "quarterly": 4, "yearly": 1,
}

// MASEPeriod is the archive's MASE lag for a @frequency: its largest
// seasonal period, truncated (weekly 52, daily 7, monthly 12, quarterly
// 4, yearly 1, hourly 8766); 1 for a file without a frequency, as the
// archive's evaluation takes it (its experiments/fixed_horizon_functions.R
// sets the seasonality to 1 where the loaded frequency is NULL), so a
// file without @frequency is scaled by the lag-1 naive forecast and
// NewRealPanel notes it.
func MASEPeriod(frequency string) (int, error) {
	if frequency == "" {
		return 1, nil
	}
	s, ok := maseSeasonality[strings.ToLower(frequency)]
	if !ok {
		return 0, fmt.Errorf("track: @frequency %q has no seasonality in the archive's table; give the period (4_seconds, minutely, 10_minutes, 15_minutes, half_hourly, hourly, daily, weekly, monthly, quarterly or yearly are known)", frequency)
	}
	return int(s), nil
}

// NewRealPanel cuts the series of f into a real panel: series k of
// length L has its test targets y[L−H, L), its validation targets
// y[L−2H, L−H), and its training part y[0, L−2H). Its training windows
// are every T inputs and H targets inside the training part (L−3H−T+1 of
// them, none when it is too short), its validation window the T inputs
// before its validation targets, its test window the T before its test
// targets. Errors name the file, the series and its line, and the fix: a
// series with missing values, one too short for its validation window
// (L < 2H+T), a training part that does not vary, a MASE scale of zero,
// and a file without a horizon or a training window. Its Notes, which
// the report's data notes and summary show, carry f's own (an @-line of
// no known tag), a horizon other than the file's @horizon (or a file
// without one), a file without @frequency when c gives no period (MASE
// then at lag 1), and the series scaled at lag 1 for being short.
func NewRealPanel(f *TSF, c RealPanelConfig) (*RealPanel, error) {
	h, t := c.H, c.T
	if h == 0 {
		h = f.Horizon
	}
	if h < 1 {
		return nil, fmt.Errorf("track: %s has no @horizon; give the horizon", f.Name)
	}
	if t < 1 {
		return nil, fmt.Errorf("track: look-back %d: must be at least 1", t)
	}
	period := c.Period
	if period == 0 {
		var err error
		if period, err = MASEPeriod(f.Frequency); err != nil {
			return nil, fmt.Errorf("%w (%s)", err, f.Name)
		}
	}
	// The archive scales a series not longer than a season by the naive
	// forecast's error (its R code falls back to lag 1, series by
	// series, where the seasonal differences are empty): so does the
	// panel, for the archive's period; a period the user gave must fit.
	var short []string
	if c.Period == 0 && period > 1 {
		for _, s := range f.Series {
			if len(s.Values)-h <= period {
				short = append(short, fmt.Sprintf("%q (line %d)", f.SeriesName(s), s.Line))
			}
		}
	}
	// What the report's data notes say: the file's own notes, then what
	// makes the run another task than the archive's on this file.
	notes := slices.Clone(f.Notes)
	switch {
	case f.Horizon == 0:
		notes = append(notes, fmt.Sprintf("%s has no @horizon: the horizon %d is the run's own, not the archive's", f.Name, h))
	case h != f.Horizon:
		notes = append(notes, fmt.Sprintf("%s: the run's horizon is %d, not the file's @horizon %d: the run uses another horizon than the archive's, so its MASE is no score of the archive's task and the archive's published MASE is not shown beside it", f.Name, h, f.Horizon))
	}
	if f.Frequency == "" && c.Period == 0 {
		notes = append(notes, fmt.Sprintf("%s: no @frequency: MASE's scale is the lag-1 naive forecast (the archive's evaluation takes seasonality 1 for a file without one); give the period (tsf.period) for a seasonal scale", f.Name))
	}
	if len(short) > 0 {
		list := strings.Join(short[:min(len(short), 5)], ", ")
		if len(short) > 5 {
			list += fmt.Sprintf(" and %d more", len(short)-5)
		}
		notes = append(notes, fmt.Sprintf("%s: %d series have no more in-sample values than the season of %d (%s): their MASE scale and seasonal naive forecast take lag 1, as the archive does", f.Name, len(short), period, list))
	}
	p := &RealPanel{Dataset: &Dataset{
		Name: "realpanel", Norm: Norm{Mean: []float64{0}, Std: []float64{1}}, Channels: []string{"x"}, Period: period, Notes: notes,
	}}
	p.Dataset.Panel = p
	for _, sp := range []*Split{&p.Train, &p.Val, &p.Test} {
		*sp = Split{T: t, H: h, C: 1}
	}
	for _, s := range f.Series {
		name := f.SeriesName(s)
		at := fmt.Sprintf("%s:%d: series %q", f.Name, s.Line, name)
		y := s.Values
		if m := s.Missing(); m > 0 {
			return nil, fmt.Errorf("track: %s has %d missing values; a real panel needs complete series: fill or drop them", at, m)
		}
		n := len(y) - h // the in-sample part
		if n-h-t < 0 {
			return nil, fmt.Errorf("track: %s has %d values, fewer than the %d of a validation and a test horizon of %d after a look-back of %d; shorten the look-back or drop the series", at, len(y), 2*h+t, h, t)
		}
		// z-normalized by its training part, as newDataset normalizes
		// a csv file's channels.
		norm, z, bad := normalize(y, 1, n-h)
		if bad >= 0 {
			return nil, fmt.Errorf("track: %s does not vary over its %d training values, so it cannot be normalized; drop the series", at, n-h)
		}
		mean, std := norm.Mean[0], norm.Std[0]
		lag := seriesLag(n, period, c.Period)
		scale, err := MASEScale(z[:n], lag)
		if err != nil {
			return nil, fmt.Errorf("%w (%s)", err, at)
		}
		p.TrainStart = append(p.TrainStart, p.Train.N)
		for i := 0; i+t+h <= n-h; i++ {
			p.Train.add(z[i : i+t+h])
		}
		p.Val.add(z[n-h-t : n])
		p.Test.add(z[n-t : n+h])
		p.Names = append(p.Names, name)
		p.Mean, p.Std = append(p.Mean, mean), append(p.Std, std)
		p.InSample = append(p.InSample, z[:n:n])
		p.Scale, p.Lag = append(p.Scale, scale), append(p.Lag, lag)
	}
	p.TrainStart = append(p.TrainStart, p.Train.N)
	if p.Train.N == 0 {
		return nil, fmt.Errorf("track: %s: no series has a training window of %d inputs and %d targets before its validation targets; shorten the look-back", f.Name, t, h)
	}
	return p, nil
}

// seriesLag is the MASE and seasonal naive lag of a series of n
// in-sample values: the period, or 1 where the series is not longer
// than the archive's period (given 0: the period is the archive's).
func seriesLag(n, period, given int) int {
	if given == 0 && n <= period {
		return 1
	}
	return period
}

// add appends the window w (T+H values: T inputs, then H targets) to a
// packed one-channel split.
func (s *Split) add(w []float64) {
	s.X = append(s.X, w[:s.T]...)
	s.Y = append(s.Y, w...)
	s.N++
}

// MeanMASE is the archive's score of test forecasts pred (N,H), one
// window a series in order, on the normalized scale: the mean over the
// series of each one's MASE.
func (p *RealPanel) MeanMASE(pred []float64) float64 {
	h := p.Test.H
	if len(pred) != p.Test.N*h {
		panic(fmt.Sprintf("track: MeanMASE of %d forecasts for %d series of horizon %d", len(pred), p.Test.N, h))
	}
	var s float64
	for k := range p.Test.N {
		_, y := p.Test.Window(k)
		s += MASE(y[p.Test.T:], pred[k*h:(k+1)*h], p.Scale[k])
	}
	return s / float64(p.Test.N)
}

// AddReferences adds to f, the reference forecasters of the panel's
// windows (References), what the archive scores: SES and Theta
// (Classical), and every reference's mean MASE (MeanMASE): persistence
// (the naive forecast), seasonal persistence (the seasonal naive one,
// when f has it), the linear maps fitted again on the train windows as
// f's were (at the panel's look-back), ses and theta; and the linear
// maps fitted once per series (PerSeriesMaps) as the per-channel maps,
// with the ridge strength each chose in f.Lambdas.
func (p *RealPanel) AddReferences(f *Forecasters) error {
	te := &p.Test
	c := p.Classical()
	ses, theta := c["ses"].MSE, c["theta"].MSE
	f.SES, f.Theta = &ses, &theta
	f.MASE = map[string]float64{"persistence": c["naive"].MASE, "ses": c["ses"].MASE, "theta": c["theta"].MASE}
	if f.SeasonalPersistence != nil && f.SeasonalPeriod == p.Period {
		f.MASE["seasonal_persistence"] = c["seasonal_naive"].MASE
	}
	for _, m := range []struct {
		name string
		fit  func(*Split) (*Linear, error)
	}{{"linear_ar", FitLinear}, {"linear_centred", FitLinearCentred}} {
		if t, ok := f.Contexts[m.name]; ok && t != te.T {
			continue // fitted at another look-back than the panel's
		}
		l, err := m.fit(&p.Train)
		if err != nil {
			return fmt.Errorf("track: %s reference forecaster: %w", m.name, err)
		}
		pred := make([]float64, te.N*te.H)
		l.Forecast(pred, te, 0, te.N)
		f.MASE[m.name] = p.MeanMASE(pred)
	}
	for _, m := range []struct {
		name         string
		centred      bool
		test, valMSE **float64
	}{{"linear_ar_per_channel", false, &f.LinearARPerChannel, &f.Val.LinearARPerChannel},
		{"linear_centred_per_channel", true, &f.LinearCentredPerChannel, &f.Val.LinearCentredPerChannel}} {
		val, test, l, err := p.PerSeriesMaps(m.centred)
		if err != nil {
			return err
		}
		tm, vm := LastPositionMSE(test, te), LastPositionMSE(val, &p.Val)
		*m.test, *m.valMSE = &tm, &vm
		f.MASE[m.name] = p.MeanMASE(test)
		if f.Lambdas == nil {
			f.Lambdas = map[string]float64{}
		}
		f.Lambdas[m.name] = l
	}
	return nil
}

// ClassicalScores are a classical reference's test scores on a real
// panel: the mean MASE over the series and the MSE on the normalized
// scale (the track's metric).
type ClassicalScores struct{ MASE, MSE float64 }

// Classical fits each classical reference to every series' in-sample
// part, on the series' own scale (Theta's multiplicative seasonal
// indices need its positive values), and scores its forecasts of the
// test targets: "naive", "seasonal_naive" (at Period; every in-sample
// part is longer than a period, as its MASE scale needs), "ses" and
// "theta" (at Period).
func (p *RealPanel) Classical() map[string]ClassicalScores {
	h := p.Test.H
	preds := map[string][]float64{}
	for k, z := range p.InSample {
		mean, std := p.Mean[k], p.Std[k]
		y := make([]float64, len(z))
		for i, v := range z {
			y[i] = v*std + mean
		}
		add := func(name string, f []float64) {
			for _, v := range f {
				preds[name] = append(preds[name], (v-mean)/std)
			}
		}
		add("naive", NaiveForecast(y, h))
		sn, err := SeasonalNaiveForecast(y, p.Lag[k], h)
		if err != nil {
			panic(fmt.Sprintf("track: Classical: %v (NewRealPanel checks every in-sample part is longer than its lag)", err))
		}
		add("seasonal_naive", sn)
		add("ses", FitSES(y).Forecast(h))
		add("theta", Theta(y, p.Period, h))
	}
	out := map[string]ClassicalScores{}
	for name, pred := range preds {
		out[name] = ClassicalScores{MASE: p.MeanMASE(pred), MSE: LastPositionMSE(pred, &p.Test)}
	}
	return out
}
