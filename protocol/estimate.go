package protocol

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/ideabench/ideabench/track"
)

// Estimate is what a protocol's trials need, estimated before any trains,
// so that a protocol beyond the machine is refused with the numbers
// instead of dying of memory or running for years.
type Estimate struct {
	Trials int // trials to train (at most, for a sequential design)
	// TrialBytes is the memory of the largest trial's model, optimizer and
	// batch activations (transformer.Config.MemoryBytes); DataBytes that
	// of the track's windows (track.Split: float64, (N,T,C) and (N,T+H)).
	TrialBytes, DataBytes float64
	// MinFLOPs and MaxFLOPs bound the work of every trial, training and
	// evaluation (transformer.Config.StepFLOPs a step, a third of
	// FLOPsPerStep a window evaluated): at least until early
	// stopping can first stop, patience+1 epochs (and a sequential design's
	// first look), at most every epoch (and every look).
	MinFLOPs, MaxFLOPs float64
	// LookBack names the fields of the models' look-back, which a refusal
	// of their memory asks to lower: "mqar.t", and on a track cut at
	// several look-backs "csv.t or a cfg's context".
	LookBack string
}

// PeakFLOPS is the rate per worker that the time estimate assumes: above
// the fused multiply-add peak of one core measured on the fastest
// development machine (230 GFLOP/s, AVX-512), which no training step
// reaches, so the times are lower bounds on any machine measured so far.
const PeakFLOPS = 250e9

// Seconds is the wall-clock time of flops on workers workers at
// PeakFLOPS each (a lower bound).
func (e Estimate) Seconds(flops float64, workers int) float64 {
	return flops / (PeakFLOPS * float64(max(1, min(workers, e.Trials))))
}

// Limits bound what Run and Control start; zero fields are not checked.
type Limits struct {
	// MaxBytes is the memory at hand: the data and one trial per worker
	// must fit.
	MaxBytes float64
	// MaxSeconds is the wall-clock time allowed: every epoch of every
	// trial (MaxFLOPs), even at PeakFLOPS per worker, must fit. Early
	// stopping may end a trial sooner, which the estimate cannot know.
	MaxSeconds float64
}

// ErrBeyondLimits marks a protocol refused by its estimate (Check).
var ErrBeyondLimits = errors.New("beyond the limits")

// Check refuses an estimate that cannot fit within l on workers workers,
// saying why with the numbers and what to change; the error wraps
// ErrBeyondLimits.
func (e Estimate) Check(l Limits, workers int) error {
	w := max(1, min(workers, e.Trials))
	if need := e.DataBytes + float64(w)*e.TrialBytes; l.MaxBytes > 0 && need > l.MaxBytes {
		return fmt.Errorf("protocol: %w: the protocol needs about %s of memory (data %s, and %s per trial for %d trials at once) but %s is available; shrink arch (d, heads, layers, batch), the look-back (%s) or the track's windows, or run fewer --workers",
			ErrBeyondLimits, bytesText(need), bytesText(e.DataBytes), bytesText(e.TrialBytes), w, bytesText(l.MaxBytes), cmp.Or(e.LookBack, "the track's t"))
	}
	if s := e.Seconds(e.MaxFLOPs, workers); l.MaxSeconds > 0 && s > l.MaxSeconds {
		return fmt.Errorf("protocol: %w: the protocol's %d trials may do %.3g FLOPs (every epoch; at least %.3g if early stopping ends each as soon as it can): up to %s on %d workers even at %.0f GFLOP/s each (at least %s), over the limit of %s; lower epochs, the windows, the grid or the seeds, or raise the limit (--max-hours) to run it anyway",
			ErrBeyondLimits, e.Trials, e.MaxFLOPs, e.MinFLOPs, durationText(s), w, PeakFLOPS/1e9, durationText(e.Seconds(e.MinFLOPs, workers)), durationText(l.MaxSeconds))
	}
	return nil
}

// Text says the estimate in words, for a dry run: its trials, their
// memory at once on workers, and their FLOPs with the time they take at
// PeakFLOPS (a lower bound of the wall time).
func (e Estimate) Text(workers int) string {
	w := max(1, min(workers, e.Trials))
	return fmt.Sprintf("%d trials; memory about %s (data %s, and %s per trial for %d at once); %.3g to %.3g FLOPs, at least %s to %s on %d workers even at %.0f GFLOP/s each",
		e.Trials, bytesText(e.DataBytes+float64(w)*e.TrialBytes), bytesText(e.DataBytes), bytesText(e.TrialBytes), w,
		e.MinFLOPs, e.MaxFLOPs, durationText(e.Seconds(e.MinFLOPs, workers)), durationText(e.Seconds(e.MaxFLOPs, workers)), w, PeakFLOPS/1e9)
}

// bytesText is b in GiB or MiB.
func bytesText(b float64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.3g GiB", b/(1<<30))
	}
	return fmt.Sprintf("%.3g MiB", b/(1<<20))
}

// durationText is s seconds in the largest unit that reads well.
func durationText(s float64) string {
	switch {
	case s >= 365*24*3600:
		return fmt.Sprintf("%.3g years", s/(365*24*3600))
	case s >= 48*3600:
		return fmt.Sprintf("%.3g days", s/(24*3600))
	case s >= 3600:
		return fmt.Sprintf("%.3g hours", s/3600)
	case s >= 1:
		return time.Duration(s * float64(time.Second)).Round(time.Second).String()
	}
	return fmt.Sprintf("%.3g s", s)
}

// splitBytes is the memory of n windows of t inputs of c channels and
// horizon h as a track.Split holds them.
func splitBytes(n, t, h, c int) float64 {
	return 8 * float64(n) * float64(t*c+t+h)
}

// dataEstimate is the memory of a generated track's windows, read from
// its block before it is generated (track.Kind.GeneratedBytes); 0 for a
// track read from a file, whose file bounds it.
func (p Protocol) dataEstimate() float64 {
	if k, ok := track.LookupKind(p.Track); ok {
		return k.GeneratedBytes(&p.Blocks)
	}
	return 0
}

// lookBack is Estimate.LookBack of p.
func (p Protocol) lookBack() string {
	if k, ok := p.Kind(); ok && k.LookBacks() {
		return p.Track + ".t or a cfg's context"
	}
	return p.Track + ".t"
}

// EstimateBefore is the part of Estimate that p alone fixes, before its
// track is drawn or read: the memory of a generated track's windows
// (DataBytes, track.Kind.GeneratedBytes; 0 for a track read from a file)
// and of the largest cfg's model (TrialBytes) at its look-back and the
// track's horizon, with one input channel and, on a token track, one
// token id: the fewest a track can have, as only the data say how many
// there are, so that TrialBytes is a lower bound of Estimate's. The
// FLOPs, which need the windows' count, are 0. trials is as for
// Estimate.
func (p Protocol) EstimateBefore(trials int, cost Coster) Estimate {
	e := Estimate{Trials: trials, DataBytes: p.dataEstimate(), LookBack: p.lookBack()}
	t, h := p.window()
	z := TrainSize{H: h, Channels: 1, Windows: 1}
	if k, ok := p.Kind(); ok && k.Tokens() {
		z = TrainSize{Vocab: 1, Windows: 1}
	}
	for _, c := range append(append(append([]Cfg(nil), p.Baseline...), p.Idea...), ideaGrids(p)...) {
		z.Context = cmp.Or(c.Context, t)
		e.TrialBytes = max(e.TrialBytes, cost(c, z).Bytes)
	}
	return e
}

// CheckBefore refuses, before any data is drawn or read, a protocol
// that its settings alone show cannot fit within l with workers trials
// at once: a generated track's windows beyond l.MaxBytes (DataWithin's
// refusal, naming the block's fields), then those windows beside the
// largest cfg's model on each worker (EstimateBefore, Check), so that a
// track of a billion positions is refused before its first token is
// drawn. The error wraps ErrBeyondLimits; Estimate checks again, the
// time included, once the data are built.
func (p Protocol) CheckBefore(l Limits, workers, trials int, cost Coster) error {
	if err := p.generatedLimit(l.MaxBytes); err != nil {
		return err
	}
	return p.EstimateBefore(trials, cost).Check(l, workers)
}

// Estimate estimates the trials of p on the dataset ds (see Estimate),
// each cfg's model by the cost model cost; trials is how many run
// (len(p.Trials()), or more for a control experiment's blocks).
func (p Protocol) Estimate(ds *track.Dataset, trials int, cost Coster) Estimate {
	e := Estimate{Trials: trials, LookBack: p.lookBack()}
	if td := ds.Tokens; td != nil {
		// A token and a label of int32 per position.
		e.DataBytes = 8 * float64((td.Train.N+td.Val.N+td.Test.N)*td.Train.T)
	}
	for _, t := range ds.Contexts() {
		if ds.Tokens != nil {
			break
		}
		at := ds.At(t)
		for _, s := range []*track.Split{&at.Train, &at.Val, &at.Test} {
			if s.Per > 0 {
				// The series layout holds rows, not windows; X and Y
				// are one buffer for univariate series.
				n := len(s.X) + len(s.Y)
				if len(s.X) > 0 && &s.X[0] == &s.Y[0] {
					n = len(s.X)
				}
				e.DataBytes += 8 * float64(n)
				continue
			}
			e.DataBytes += splitBytes(s.N, s.T, s.H, s.C)
		}
		if p.Arch.Skip && p.Arch.SkipStart != "" && at.Train.Per > 0 {
			// perChannelSkip's offsets of every val and test window.
			e.DataBytes += 8 * float64((at.Val.N+at.Test.N)*at.Val.H)
		}
	}
	perSeed := len(p.Trials()) / max(1, len(p.Seeds))
	minTrials, maxTrials := float64(trials), float64(trials)
	if s := p.Sequential; s != nil {
		maxTrials = float64(perSeed * s.MaxSeeds)
		e.Trials = perSeed * s.MaxSeeds
	}
	var minPer, maxPer float64 // FLOPs of the cheapest and the dearest cfg
	first := true
	sizes := TrainSizes(ds)
	for _, c := range append(append(append([]Cfg(nil), p.Baseline...), p.Idea...), ideaGrids(p)...) {
		ds := ds.At(c.Context)
		z := sizes[0]
		for _, s := range sizes {
			if ds.Tokens == nil && s.Context == ds.Train.T {
				z = s
			}
		}
		mc := cost(c, z)
		e.TrialBytes = max(e.TrialBytes, mc.Bytes)
		nWin := ds.Train.N
		evalN := [2]float64{float64(ds.Val.N), float64(ds.Test.N)} // val and test windows
		if td := ds.Tokens; td != nil {
			nWin, evalN = td.Train.N, [2]float64{float64(td.Val.N), float64(td.Test.N)}
		}
		if c.EpochWindows > 0 {
			nWin = min(nWin, c.EpochWindows)
		}
		steps := math.Ceil(float64(nWin) / float64(p.Arch.Batch))
		step, window := mc.Step, mc.Window
		epoch := steps*step + evalN[0]*window
		least := float64(c.Epochs)
		if c.Patience > 0 {
			least = math.Min(least, float64(c.Patience+1))
		}
		lo := least*epoch + evalN[1]*window
		hi := float64(c.Epochs)*epoch + evalN[1]*window
		if first || lo < minPer {
			minPer = lo
		}
		maxPer = math.Max(maxPer, hi)
		first = false
	}
	e.MinFLOPs, e.MaxFLOPs = minTrials*minPer, maxTrials*maxPer
	return e
}

// ideaGrids returns the cfgs of the further idea arms.
func ideaGrids(p Protocol) []Cfg {
	var out []Cfg
	for _, a := range p.Ideas {
		out = append(out, a.Grid...)
	}
	return out
}
