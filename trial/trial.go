package trial

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ideabench/ideabench/protocol"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// PCG streams of a trial's two generators: one seed fixes init and batch
// order, each from its own stream.
const (
	streamInit    = 1
	streamShuffle = 2
)

// Result is what one trial produced.
type Result struct {
	// Val and Test are the track's metric of the kept weights on the
	// val and test splits, lower is better: on a forecasting track the
	// last position's MSE on the normalized scale, on a token track the
	// mean cross-entropy per labelled position (track.Kind's metric).
	Val, Test float64
	EpochLoss []float64 // mean training loss of each epoch trained
	ValCurve  []float64 // val metric after each epoch trained
	// StartVal and StartTest are the val and test metrics of the model
	// before training (Informativeness: how far training moved it); the
	// starting model is a candidate under early stopping.
	StartVal, StartTest float64
	// LinearTest, with the skip path (Arch.Skip), is the test metric of
	// the trained model's skip path alone (the head's output zeroed): the
	// ablation of everything nonlinear; 0 without a skip path.
	LinearTest   float64
	BestEpoch    int  // epoch whose weights were evaluated: the best val one under early stopping (0: the start), else the last
	Diverged     bool // the training loss became NaN or ±Inf
	DivergedStep int  // the step at which it did
	Signature    *idea.Measured

	// ValAcc and TestAcc are, on a token track (TrainTokens), the
	// accuracy beside the metric (Val and Test are then cross-entropy
	// per labelled position) of the kept weights; 0 on a forecasting
	// track.
	ValAcc, TestAcc float64
	// ValAccCurve is, on a token track, the val accuracy after every
	// ValEvery training steps (checkpoint k at step k·ValEvery), for the
	// time to a target accuracy: how fast an arm learns, beside where it
	// ends. Steps is the number of steps the cfg trains at most (its
	// epochs of batches), the budget a time is censored at. Nil and 0 on
	// a forecasting track and in records of builds before them.
	ValAccCurve []float64
	ValEvery    int
	Steps       int

	// TestMASE is, on a real panel (the tsf track), the test score in
	// the Monash archive's metric beside the MSE: the mean over the
	// series of each one's MASE (track.RealPanel.MeanMASE); 0 elsewhere.
	TestMASE float64

	// Forecasts is the SHA-256 of an external trial's val and test
	// forecasts (their float64 bits, little-endian, val first); empty for
	// the built-in model.
	Forecasts string
}

// ErrDiverged marks a trial whose loss became non-finite.
var ErrDiverged = errors.New("trial: training diverged")

// RunTrial trains the model of cfg on the dataset's train windows with the
// given seed and evaluates it on val and test. For a gated cfg it also
// reads the mechanism signature on the test windows. The same (protocol,
// cfg, seed) gives the same bits.
func RunTrial(ctx context.Context, p protocol.Protocol, ds *track.Dataset, c protocol.Cfg, seed uint64) (Result, error) {
	_, res, err := TrainTrial(ctx, p, ds, c, seed)
	return res, err
}

// TrainTrial is RunTrial that also returns the trained model (nil when
// the model could not be built). Training runs c.Epochs passes over the
// train windows (or c.EpochWindows of them per epoch) in a seeded order, one AdamW step per batch at the rate
// c.LRAt of the step, and scores the model on val after every epoch; with
// c.Patience > 0 it stops once that many epochs bring no new best and
// goes back to the best epoch's weights; a token track trains as
// TrainTokens says. When ctx is cancelled it stops
// within a training step and returns an error wrapping ErrInterrupted.
func TrainTrial(ctx context.Context, p protocol.Protocol, ds *track.Dataset, c protocol.Cfg, seed uint64) (*transformer.Model[float32], Result, error) {
	if ds.Tokens != nil {
		return TrainTokens(ctx, ModelConfig(p, c, ds), p.Arch.Batch, ds.Tokens, c, seed)
	}
	ds = ds.At(c.Context) // the track at the cfg's look-back
	mc := ModelConfig(p, c, ds)
	batch := p.Arch.Batch
	m, err := transformer.New[float32](mc, batch)
	if err != nil {
		return nil, Result{}, err
	}
	off := streamOffset(c)
	m.Params.Init(rand.New(rand.NewPCG(seed, streamInit+off)))
	pc, err := perChannelSkip(p, mc, ds)
	if err != nil {
		return nil, Result{}, err
	}
	switch {
	case pc != nil:
		// The per-channel maps are the start; the shared skip path
		// starts at zero.
		m.SetSkip(make([]float64, mc.H*mc.T), make([]float64, mc.H))
	case mc.Skip:
		w, b, err := skipInit(mc, ds)
		if err != nil {
			return nil, Result{}, err
		}
		m.SetSkip(w, b)
	}
	// offs are the per-channel offsets of the val and test windows (nil
	// without).
	offs := func(s *track.Split) []float64 {
		if pc == nil {
			return nil
		}
		return pc.of(ds, s)
	}
	trainOff := make([]float64, ds.Train.H)
	shuffle := rand.New(rand.NewPCG(seed, streamShuffle+off))
	opt := transformer.NewAdamW(m.Params, c.WeightDecay)
	opt.Clip = c.Clip
	tr := &ds.Train
	x := make([]float32, batch*tr.T*tr.C)
	y := make([]float32, batch*(tr.T+tr.H))
	var res Result
	diverged := func(step int) (*transformer.Model[float32], Result, error) {
		res.Diverged, res.DivergedStep = true, step
		res.Val, res.Test = math.Inf(1), math.Inf(1)
		// A record holds finite numbers only: what was not measured, or
		// not finite, is 0 (Derive leaves a diverged trial out of the gaps
		// these feed).
		res.TestMASE = 0 // a diverged trial's is derive's substitute
		for _, x := range []*float64{&res.StartVal, &res.StartTest, &res.LinearTest} {
			if !finite(*x) {
				*x = 0
			}
		}
		return m, res, ErrDiverged
	}
	res.StartVal, res.StartTest = evaluate(m, &ds.Val, x, y, nil, offs(&ds.Val)), evaluate(m, &ds.Test, x, y, nil, offs(&ds.Test))
	if !finite(res.StartVal) || !finite(res.StartTest) {
		return diverged(0)
	}
	trainBatch := func(idx []int, lr float64) (float64, bool) {
		gather(x, y, tr, idx)
		if pc != nil {
			// The model trains on the residual of the per-channel map.
			th := tr.T + tr.H
			for bi, n := range idx {
				pc.offset(trainOff, tr, n)
				_, wy := tr.Window(n)
				for h, o := range trainOff {
					y[bi*th+tr.T+h] = float32(wy[tr.T+h] - o)
				}
			}
		}
		b := len(idx)
		return m.TrainStep(opt, x[:b*tr.T*tr.C], y[:b*(tr.T+tr.H)], b, lr), true
	}
	val := func() float64 { return evaluate(m, &ds.Val, x, y, nil, offs(&ds.Val)) }
	step, bad, err := fit(ctx, m, c, batch, tr.N, shuffle, &res, trainBatch, val)
	switch {
	case err != nil:
		return m, Result{}, err
	case bad:
		// The loss, or the model's val forecasts, were not finite.
		return diverged(step)
	}
	var probe idea.Probe
	if pr, ok := m.Idea().(idea.Prober); ok {
		site := m.Idea().Site()
		probe = pr.NewProbe(mc.SiteInstances(site), mc.SiteShape(site, 0))
	}
	var scale []float64
	if ds.Panel != nil {
		scale = ds.Panel.Scale
	}
	res.Test, res.TestMASE = evaluateMASE(m, &ds.Test, x, y, probe, offs(&ds.Test), scale)
	if !finite(res.Test) || !finite(res.TestMASE) {
		return diverged(step)
	}
	if mc.Skip {
		// The skip path alone: the head's output zeroed, then restored.
		p := m.Params
		head := append(append([]float32(nil), p.HeadW...), p.HeadB...)
		clear(p.HeadW)
		clear(p.HeadB)
		res.LinearTest = evaluate(m, &ds.Test, x, y, nil, offs(&ds.Test))
		copy(p.HeadW, head)
		copy(p.HeadB, head[len(p.HeadW):])
		if !finite(res.LinearTest) {
			return diverged(step)
		}
	}
	res.Signature = idea.Measure(probe)
	return m, res, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// fit is the training loop of both trainers (TrainTrial, TrainTokens):
// c.Epochs passes over n train items (or c.EpochWindows of them per
// epoch) in the seeded order of shuffle, trainBatch taking one step on
// each batch of item indices at the rate c.LRAt of the step and
// returning its loss (trained false when the batch has nothing to score:
// no step), and val scoring the model after every epoch. With
// c.Patience > 0 the start (res.StartVal) is a candidate, training stops
// once Patience epochs bring no new best, and the best epoch's weights
// are restored. It sets res.EpochLoss, ValCurve, Val and BestEpoch and
// returns the steps taken; bad is true when a loss or a val score was
// not finite (the caller reports the divergence at that step), and err
// wraps ErrInterrupted when ctx is done.
func fit(ctx context.Context, m *transformer.Model[float32], c protocol.Cfg, batch, n int, shuffle *rand.Rand, res *Result,
	trainBatch func(idx []int, lr float64) (loss float64, trained bool), val func() float64) (step int, bad bool, err error) {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	nItems := epochItems(c, n)
	perEpoch := (nItems + batch - 1) / batch
	total := c.Epochs * perEpoch
	var best []float32 // the best epoch's weights, under early stopping
	if c.Patience > 0 {
		// The starting model is a candidate: with the skip path it is the
		// least-squares fit, which training must beat on val to replace.
		res.Val, res.BestEpoch = res.StartVal, 0
		best = append(best, m.Params.Data...)
	}
	done := ctx.Done()
epochs:
	for epoch := 1; epoch <= c.Epochs; epoch++ {
		shuffle.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var sum float64
		var nb int
		for lo := 0; lo < nItems; lo += batch {
			select {
			case <-done:
				return step, false, fmt.Errorf("trial: %w at step %d of %d: %w", ErrInterrupted, step, total, context.Cause(ctx))
			default:
			}
			loss, trained := trainBatch(order[lo:min(lo+batch, nItems)], c.LRAt(step, total))
			if !trained {
				continue
			}
			step++
			if !finite(loss) {
				return step, true, nil
			}
			sum += loss
			nb++
		}
		res.EpochLoss = append(res.EpochLoss, sum/float64(max(nb, 1)))
		v := val()
		if !finite(v) {
			return step, true, nil
		}
		res.ValCurve = append(res.ValCurve, v)
		switch {
		case c.Patience == 0:
			res.Val, res.BestEpoch = v, epoch
		case v < res.Val:
			res.Val, res.BestEpoch = v, epoch
			best = append(best[:0], m.Params.Data...)
		case epoch-res.BestEpoch >= c.Patience:
			break epochs // Patience epochs without a new best
		}
	}
	if best != nil {
		copy(m.Params.Data, best)
	}
	return step, false, nil
}

// epochItems is the number of the n train items (windows, sequences)
// an epoch of c trains: c.EpochWindows of them when it is set and
// smaller, else all.
func epochItems(c protocol.Cfg, n int) int {
	if c.EpochWindows > 0 && c.EpochWindows < n {
		return c.EpochWindows
	}
	return n
}

// streamOffset is the offset a cfg's idea adds to the trial's PCG streams
// (idea.Stream: the A/A control); 0 for every other idea.
func streamOffset(c protocol.Cfg) uint64 {
	ic := c.IdeaConfig()
	if ic.IsZero() {
		return 0
	}
	if i, err := idea.New(ic); err == nil {
		if s, ok := i.(idea.Stream); ok {
			return s.StreamOffset()
		}
	}
	return 0
}

// gather copies the windows idx of s into x (B,T,C) and y (B,T+H) as float32.
func gather(x, y []float32, s *track.Split, idx []int) {
	tc, th := s.T*s.C, s.T+s.H
	for b, n := range idx {
		wx, wy := s.Window(n)
		for i, v := range wx {
			x[b*tc+i] = float32(v)
		}
		for i, v := range wy {
			y[b*th+i] = float32(v)
		}
	}
}

// evaluate returns the last-position MSE over the split:
//
//	mse = 1/(N·H) · Σ_n Σ_h (pred[n,T-1,h] + off[n,h] - y[n,T+h])²
//
// with off the per-channel maps' offsets (perChannel; nil: 0), and feeds
// each batch's idea state and input to probe when it is not nil.
func evaluate(m *transformer.Model[float32], s *track.Split, x, y []float32, probe idea.Probe, off []float64) float64 {
	mse, _ := evaluateMASE(m, s, x, y, probe, off, nil)
	return mse
}

// evaluateMASE is evaluate that also returns, when scale (N) is not
// nil, the mean over the windows of each one's MASE (track.MASE at
// scale[n], the archive's score of a real panel):
//
//	mase = 1/N · Σ_n 1/(H·scale[n]) · Σ_h |pred[n,T-1,h] + off[n,h] - y[n,T+h]|
func evaluateMASE(m *transformer.Model[float32], s *track.Split, x, y []float32, probe idea.Probe, off, scale []float64) (mse, mase float64) {
	if scale != nil && len(scale) != s.N {
		panic(fmt.Sprintf("trial: evaluateMASE: %d scales for %d windows", len(scale), s.N))
	}
	batch := m.MaxBatch
	idx := make([]int, 0, batch)
	var fc []float64 // one window's forecast, with off; nil: none needed
	if off != nil || scale != nil {
		fc = make([]float64, s.H)
	}
	var sse, sumMASE float64
	for lo := 0; lo < s.N; lo += batch {
		idx = idx[:0]
		for n := lo; n < min(lo+batch, s.N); n++ {
			idx = append(idx, n)
		}
		b := len(idx)
		gather(x, y, s, idx)
		pred := m.Predict(x[:b*s.T*s.C], b)
		if off == nil {
			sse += transformer.LastPositionSSE(m.Config, pred, y[:b*(s.T+s.H)], b)
		}
		if fc != nil {
			// Each window's forecast, with off, for the squared error
			// (with off) and the MASE (with scale).
			nt := m.Config.Tokens()
			for bi, n := range idx {
				p := pred[(bi*nt+nt-1)*s.H:][:s.H]
				for h := range fc {
					fc[h] = float64(p[h])
					if off != nil {
						fc[h] += off[n*s.H+h]
					}
				}
				_, wy := s.Window(n)
				if off != nil {
					sse = track.SquaredError(sse, fc, wy[s.T:])
				}
				if scale != nil {
					sumMASE += track.MASE(wy[s.T:], fc, scale[n])
				}
			}
		}
		if probe != nil {
			site := m.Idea().Site()
			for l := range m.Config.SiteInstances(site) {
				var theta []float32
				if m.Params.Idea != nil {
					theta = m.Params.Idea[l]
				}
				probe.Add(l, m.IdeaState(l), m.IdeaInput(l), theta, m.Config.SiteShape(site, b))
			}
		}
	}
	if scale != nil {
		mase = sumMASE / float64(s.N)
	}
	return sse / float64(s.N*s.H), mase
}

// ErrInterrupted marks a run stopped by its context; every trial that
// finished before is in the store.
var ErrInterrupted = errors.New("run interrupted")
