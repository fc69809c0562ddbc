package track

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ideabench/ideabench/internal/recent"
)

// forecasters evaluates the reference forecasters on the test and val
// windows, each fitted in closed form on the train windows of the target
// channel: persistence, seasonal persistence (when the track has a period
// that fits in the context), the least-squares linear map of the window
// (one per-channel map, DLinear-style; with one channel, the linear AR
// forecaster) and the same map on last-value-centred windows (NLinear).
//
// On a track of several series (ds.Series: csv channels "independent"
// or "mixed"; the maps read each series' target column)
// the maps are fitted from the normal equations of the series
// (FitSeries), linear_ar and linear_centred once for all channels
// and again per channel (linear_ar_per_channel, linear_centred_per_channel).
func forecasters(ds *Dataset) (*Forecasters, error) {
	if len(ds.Series) > 0 {
		return seriesForecasters(ds)
	}
	tr := Univariate(&ds.Train, ds.Target)
	va, te := Univariate(&ds.Val, ds.Target), Univariate(&ds.Test, ds.Target)
	lin, err := FitLinear(&tr)
	if err != nil {
		return nil, fmt.Errorf("track: linear reference forecaster: %w", err)
	}
	cen, err := FitLinearCentred(&tr)
	if err != nil {
		return nil, fmt.Errorf("track: centred linear reference forecaster: %w", err)
	}
	lc := cen.MSE(&te)
	f := &Forecasters{Persistence: Persistence(&te, 0), LinearAR: lin.MSE(&te), LinearCentred: &lc,
		Val: &ReferenceVal{Persistence: Persistence(&va, 0), LinearAR: lin.MSE(&va), LinearCentred: cen.MSE(&va)}}
	if p := ds.Period; p >= 1 && p <= te.T {
		s, v := SeasonalPersistence(&te, 0, p), SeasonalPersistence(&va, 0, p)
		f.SeasonalPersistence, f.SeasonalPeriod, f.Val.SeasonalPersistence = &s, p, &v
	}
	if ds.HasNoiseFloor {
		f.NoiseFloor = ds.NoiseFloor
	}
	return f, nil
}

// References is forecasters on a track built at one look-back; on a
// track built at several (the grid tunes Cfg.Context) each reference
// that reads the window's length (the linear maps; seasonal persistence
// needs its period inside the window) is fitted at every look-back and
// takes the one of least val MSE, ties to the shorter, the way the arms
// choose their cfgs: the reference gets the same tuning as the models.
// Forecasters.Contexts records the choices.
//
// ts are the grid's look-backs (Protocol.contexts); the last result is
// kept (refCache), so a run that checks them before training (Run) does
// not fit them again to assemble its report.
func References(ds *Dataset, ts []int) (*Forecasters, error) {
	f, err := refCache.Get(refKey{ds, fmt.Sprint(ts)}, func() (*Forecasters, error) { return fitReferences(ds, ts) })
	if err != nil {
		return nil, err
	}
	return f.Raw(), nil // a copy: the kept value is never a report's
}

// refKey identifies a track's references: the dataset (by identity) and
// the grid's look-backs.
type refKey struct {
	ds *Dataset
	ts string
}

var refCache = recent.Cache[refKey, *Forecasters]{N: 1}

// fitReferences computes references.
func fitReferences(ds *Dataset, ts []int) (*Forecasters, error) {
	if len(ts) <= 1 {
		if len(ts) == 1 {
			ds = ds.At(ts[0])
		}
		return forecasters(ds)
	}
	var best *Forecasters
	for _, t := range ts {
		f, err := forecasters(ds.At(t))
		if err != nil {
			return nil, fmt.Errorf("track: at look-back %d: %w", t, err)
		}
		if best == nil {
			best = f
			best.Contexts = map[string]int{}
			for _, name := range contextual {
				if _, ok := f.ValMSE(name); ok {
					best.Contexts[name] = t
				}
			}
			continue
		}
		for _, name := range contextual {
			v, ok := f.ValMSE(name)
			if !ok {
				continue
			}
			if bv, had := best.ValMSE(name); !had || v < bv {
				best.take(f, name)
				best.Contexts[name] = t
			}
		}
	}
	return best, nil
}

// contextual are the references whose forecast depends on the look-back.
var contextual = []string{"seasonal_persistence", "linear_ar", "linear_centred", "linear_ar_per_channel", "linear_centred_per_channel"}

// take sets the test and val MSE of reference name in f to g's (a
// fresh value, not shared with another).
func (f *Forecasters) take(g *Forecasters, name string) {
	switch name {
	case "seasonal_persistence":
		f.SeasonalPersistence, f.Val.SeasonalPersistence, f.SeasonalPeriod = g.SeasonalPersistence, g.Val.SeasonalPersistence, g.SeasonalPeriod
	case "linear_ar":
		f.LinearAR, f.Val.LinearAR = g.LinearAR, g.Val.LinearAR
	case "linear_centred":
		f.LinearCentred, f.Val.LinearCentred = g.LinearCentred, g.Val.LinearCentred
	case "linear_ar_per_channel":
		f.LinearARPerChannel, f.Val.LinearARPerChannel = g.LinearARPerChannel, g.Val.LinearARPerChannel
	case "linear_centred_per_channel":
		f.LinearCentredPerChannel, f.Val.LinearCentredPerChannel = g.LinearCentredPerChannel, g.Val.LinearCentredPerChannel
	default:
		panic("track: Forecasters.take: unknown reference " + name)
	}
}

// seriesForecasters is forecasters on a track of several univariate
// series (the series layout).
func seriesForecasters(ds *Dataset) (*Forecasters, error) {
	trs, vas, tes := TargetSeries(&ds.Train), TargetSeries(&ds.Val), TargetSeries(&ds.Test)
	tr, va, te := &trs, &vas, &tes
	f := &Forecasters{Persistence: Persistence(te, 0), Val: &ReferenceVal{Persistence: Persistence(va, 0)}}
	for _, centred := range []bool{false, true} {
		shared, err := FitSeries(tr, centred)
		if err != nil {
			return nil, fmt.Errorf("track: linear reference forecaster (shared, centred %v): %w", centred, err)
		}
		per, err := FitPerSeries(tr, centred)
		if err != nil {
			return nil, fmt.Errorf("track: linear reference forecaster (per channel, centred %v): %w", centred, err)
		}
		st, sv := shared.MSE(te), shared.MSE(va)
		pt, pv := PerSeriesMSE(per, te), PerSeriesMSE(per, va)
		if centred {
			f.LinearCentred, f.Val.LinearCentred = &st, sv
			f.LinearCentredPerChannel, f.Val.LinearCentredPerChannel = &pt, &pv
		} else {
			f.LinearAR, f.Val.LinearAR = st, sv
			f.LinearARPerChannel, f.Val.LinearARPerChannel = &pt, &pv
		}
	}
	if p := ds.Period; p >= 1 && p <= te.T {
		s, v := SeasonalPersistence(te, 0, p), SeasonalPersistence(va, 0, p)
		f.SeasonalPersistence, f.SeasonalPeriod, f.Val.SeasonalPersistence = &s, p, &v
	}
	return f, nil
}

// Raw returns a deep copy of f's measured MSEs without the fields that
// judge a baseline against them (Forecasters.judge sets those).
func (f *Forecasters) Raw() *Forecasters {
	out := &Forecasters{Persistence: f.Persistence, LinearAR: f.LinearAR, NoiseFloor: f.NoiseFloor,
		LinearCentred: clonePtr(f.LinearCentred), SeasonalPersistence: clonePtr(f.SeasonalPersistence), SeasonalPeriod: f.SeasonalPeriod,
		LinearARPerChannel: clonePtr(f.LinearARPerChannel), LinearCentredPerChannel: clonePtr(f.LinearCentredPerChannel),
		SES: clonePtr(f.SES), Theta: clonePtr(f.Theta), MASE: maps.Clone(f.MASE), Lambdas: maps.Clone(f.Lambdas),
		Contexts: maps.Clone(f.Contexts), Tokens: slices.Clone(f.Tokens)}
	if f.Val != nil {
		v := *f.Val
		v.Tokens = slices.Clone(v.Tokens)
		v.SeasonalPersistence = clonePtr(v.SeasonalPersistence)
		v.LinearARPerChannel, v.LinearCentredPerChannel = clonePtr(v.LinearARPerChannel), clonePtr(v.LinearCentredPerChannel)
		out.Val = &v
	}
	return out
}

// clonePtr returns a pointer to a copy of *x, nil for nil.
func clonePtr[T any](x *T) *T {
	if x == nil {
		return nil
	}
	v := *x
	return &v
}
