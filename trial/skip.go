package trial

import (
	"fmt"

	"github.com/ideabench/ideabench/internal/recent"

	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// skipInit is the linear map the skip path of model c starts from: the
// least-squares fit (track.FitLinear) from the target channel's T inputs
// to its H targets over the train windows, both on the model's normalized
// scale. With a normalization the last normalized input is a function of
// the others (0 under "last", minus their sum under "revin"), so the fit
// uses the first T-1 and the last weight is 0. Under "last" this is the
// last-value-centred linear map (NLinear), under none the linear_ar
// reference forecaster, so a model with the skip starts as that
// forecaster.
//
// The fit depends on the dataset and the normalization only, so the last
// few are kept (skipCache): the trials of a run share them, one per
// look-back of its grid. (A few entries, so that the cache keeps at most
// a few look-backs of one finished run alive.)
func skipInit(c transformer.Config, ds *track.Dataset) (w, b []float64, err error) {
	fit, err := skipCache.Get(skipKey{ds, c.Norm}, func() (skipFit, error) {
		w, b, err := fitSkip(c, ds)
		return skipFit{w, b}, err
	})
	return fit.w, fit.b, err
}

// skipKey identifies a skip start: the dataset (by identity: a run builds
// one and does not change it) and the normalization.
type skipKey struct {
	ds   *track.Dataset
	norm string
}

// skipFit is a skip start, shared read-only: SetSkip copies it.
type skipFit struct{ w, b []float64 }

// skipCacheLen is how many fits skipCache keeps (and perChannelSkip's
// cache): enough for a grid of four look-backs.
const skipCacheLen = 4

var skipCache = recent.Cache[skipKey, skipFit]{N: skipCacheLen}

// fitSkip computes skipInit's fit.
func fitSkip(c transformer.Config, ds *track.Dataset) (w, b []float64, err error) {
	if ds.Train.Per > 0 {
		tr := track.TargetSeries(&ds.Train)
		// The series layout: the same fits from the series' normal
		// equations, without copying every window.
		var l *track.Linear
		switch c.Norm {
		case "", transformer.NormLast:
			l, err = track.FitSeries(&tr, c.Norm == transformer.NormLast)
		default:
			return nil, nil, fmt.Errorf("trial: the skip path's least-squares start under norm %q needs every window's own statistics; on a track of several series use arch.norm %q or none", c.Norm, transformer.NormLast)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("trial: the skip path's least-squares start: %w", err)
		}
		return l.W, l.B, nil
	}
	tr := track.Univariate(&ds.Train, ds.Target)
	n, t, h := tr.N, tr.T, tr.H
	x, scale, level := tr.X, make([]float64, n), make([]float64, n)
	for i := range scale {
		scale[i] = 1
	}
	if c.Norm != "" {
		x = make([]float64, len(tr.X))
		transformer.NormalizeWindows(c.Norm, x, level, scale, tr.X, n, t, 1)
	}
	k := t // inputs fitted
	if c.Norm != "" {
		k = t - 1
	}
	fit := track.Split{X: make([]float64, n*k), Y: make([]float64, n*(k+h)), N: n, T: k, H: h, C: 1}
	for i := range n {
		fx, fy := fit.Window(i)
		copy(fx, x[i*t:i*t+k])
		copy(fy, fx)
		_, y := tr.Window(i)
		for j := range h {
			fy[k+j] = (y[t+j] - level[i]) / scale[i]
		}
	}
	l, err := track.FitLinear(&fit)
	if err != nil {
		return nil, nil, fmt.Errorf("trial: the skip path's least-squares start: %w", err)
	}
	w = make([]float64, h*t)
	for j := range h {
		copy(w[j*t:j*t+k], l.W[j*k:(j+1)*k])
	}
	return w, l.B, nil
}
