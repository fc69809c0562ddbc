package trial

import (
	"fmt"
	"sync"

	"github.com/ideabench/ideabench/internal/recent"
	"github.com/ideabench/ideabench/protocol"

	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// perChannel is the fixed part of a model whose skip path starts per
// channel (Arch.SkipStart "per_channel", or "val" when val prefers it): one
// closed-form map per series (track.FitPerSeries, centred under norm
// "last"), whose forecast the model's is added to. The model's own
// output at its start (head and shared skip at zero) is the window's
// last input under norm "last" and 0 without a norm, so the offset added
// is
//
//	o(x) = L_k(x) - last(x)   (norm "last")
//	o(x) = L_k(x)             (no norm)
//
// for a window x of series k, and the model trains on y - o(x): the
// forecast o(x) + model(x) starts as L_k(x), the per-channel reference.
type perChannel struct {
	maps    []*track.Linear
	centred bool
	// val and test hold the offsets of every val and test window (N,H),
	// computed once (once), when a model first starts per channel: the
	// model is scored on them every epoch.
	val, test []float64
	once      sync.Once
	// valMSE and sharedValMSE are the val MSE of the per-channel maps
	// and of the shared fit: skip_start "val" takes the lower.
	valMSE, sharedValMSE float64
}

// offset overwrites dst (H) with o of window n of s (series layout),
// from the target channel's T inputs (the window's y[:T]).
func (pc *perChannel) offset(dst []float64, s *track.Split, n int) {
	_, y := s.Window(n)
	x := y[:s.T]
	pc.maps[n/s.Per].Predict(dst, x)
	if pc.centred {
		last := x[len(x)-1]
		for h := range dst {
			dst[h] -= last
		}
	}
}

// offsets returns o of every window of s (N,H).
func (pc *perChannel) offsets(s *track.Split) []float64 {
	u := track.TargetSeries(s)
	out := track.PerSeriesForecast(pc.maps, &u)
	if pc.centred {
		for n := range s.N {
			_, y := s.Window(n)
			last := y[s.T-1]
			for h := range s.H {
				out[n*s.H+h] -= last
			}
		}
	}
	return out
}

// of returns the offsets of split s of ds: val or test.
func (pc *perChannel) of(ds *track.Dataset, s *track.Split) []float64 {
	switch s {
	case &ds.Val:
		return pc.val
	case &ds.Test:
		return pc.test
	}
	panic("trial: perChannel.of: not the dataset's val or test split")
}

// perChannelSkip is the perChannel of model c on ds, nil when its skip
// path starts at the shared fit: Arch.SkipStart "" or, on a track of one
// series, "val"; under "val" on several series, nil unless the
// per-channel maps' val MSE is below the shared fit's (the references
// linear_centred_per_channel and linear_centred under norm "last",
// linear_ar_per_channel and linear_ar without; a tie keeps the shared
// fit). The trials of a run share it (cached as skipInit's fits).
func perChannelSkip(p protocol.Protocol, c transformer.Config, ds *track.Dataset) (*perChannel, error) {
	mode := p.Arch.SkipStart
	several := ds.Train.Per > 0
	switch {
	case mode == "" || !c.Skip:
		return nil, nil
	case mode == protocol.SkipStartVal && !several:
		return nil, nil
	case !several:
		return nil, fmt.Errorf("trial: arch.skip_start %q needs a track of several series (csv channels %q or %q)", mode, track.ChannelsIndependent, track.ChannelsMixed)
	}
	pc, err := pcCache.Get(skipKey{ds, c.Norm}, func() (*perChannel, error) {
		centred := c.Norm == transformer.NormLast
		tr, va := track.TargetSeries(&ds.Train), track.TargetSeries(&ds.Val)
		maps, err := track.FitPerSeries(&tr, centred)
		if err != nil {
			return nil, fmt.Errorf("trial: the per-channel skip maps: %w", err)
		}
		shared, err := track.FitSeries(&tr, centred)
		if err != nil {
			return nil, fmt.Errorf("trial: the shared skip map: %w", err)
		}
		pc := &perChannel{maps: maps, centred: centred}
		pc.valMSE, pc.sharedValMSE = track.PerSeriesMSE(maps, &va), shared.MSE(&va)
		return pc, nil
	})
	if err != nil {
		return nil, err
	}
	if mode == protocol.SkipStartVal && !(pc.valMSE < pc.sharedValMSE) {
		return nil, nil
	}
	// The offsets only once a model starts per channel: a "val" start
	// that keeps the shared fit never holds them.
	pc.once.Do(func() { pc.val, pc.test = pc.offsets(&ds.Val), pc.offsets(&ds.Test) })
	return pc, nil
}

var pcCache = recent.Cache[skipKey, *perChannel]{N: skipCacheLen}
