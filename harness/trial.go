package harness

import (
	"errors"
	"math"
	"math/rand/v2"

	"github.com/ideabench/ideabench/gate"
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
	Val, Test    float64   // last-position MSE on the val and test windows of the kept weights, normalized scale
	EpochLoss    []float64 // mean training loss of each epoch trained
	ValCurve     []float64 // val metric after each epoch trained
	BestEpoch    int       // 1-based epoch whose weights were evaluated: the best val one under early stopping, else the last
	Diverged     bool      // the training loss became NaN or ±Inf
	DivergedStep int       // the step at which it did
	Signature    *Signature
}

// ErrDiverged marks a trial whose loss became non-finite.
var ErrDiverged = errors.New("harness: training diverged")

// RunTrial trains the model of cfg on the dataset's train windows with the
// given seed and evaluates it on val and test. For a gated cfg it also
// reads the mechanism signature on the test windows. The same (protocol,
// cfg, seed) gives the same bits.
func RunTrial(p Protocol, ds *track.Dataset, c Cfg, seed uint64) (Result, error) {
	_, res, err := TrainTrial(p, ds, c, seed)
	return res, err
}

// ModelConfig is the transformer of cfg c on the dataset's windows: the
// protocol's arch, the windows' T, H and channels, the dataset's target
// channel, the cfg's gate.
func (p Protocol) ModelConfig(c Cfg, ds *track.Dataset) transformer.Config {
	s := &ds.Train
	return p.Arch.model(c, s.T, s.H, s.C, ds.Target)
}

// TrainTrial is RunTrial that also returns the trained model (nil when
// the model could not be built). Training runs c.Epochs passes over the
// train windows in a seeded order, one AdamW step per batch at the rate
// c.LRAt of the step, and scores the model on val after every epoch; with
// c.Patience > 0 it stops once that many epochs bring no new best and
// goes back to the best epoch's weights.
func TrainTrial(p Protocol, ds *track.Dataset, c Cfg, seed uint64) (*transformer.Model[float32], Result, error) {
	mc := p.ModelConfig(c, ds)
	batch := p.Arch.Batch
	m, err := transformer.New[float32](mc, batch)
	if err != nil {
		return nil, Result{}, err
	}
	m.Params.Init(rand.New(rand.NewPCG(seed, streamInit)))
	if mc.Skip {
		w, b, err := skipInit(mc, ds)
		if err != nil {
			return nil, Result{}, err
		}
		m.SetSkip(w, b)
	}
	shuffle := rand.New(rand.NewPCG(seed, streamShuffle))
	opt := transformer.NewAdamW(m.Params, c.WeightDecay)
	opt.Clip = c.Clip
	tr := &ds.Train
	x := make([]float32, batch*tr.T*tr.C)
	y := make([]float32, batch*(tr.T+tr.H))
	order := make([]int, tr.N)
	for i := range order {
		order[i] = i
	}
	var res Result
	diverged := func(step int) (*transformer.Model[float32], Result, error) {
		res.Diverged, res.DivergedStep = true, step
		res.Val, res.Test = math.Inf(1), math.Inf(1)
		return m, res, ErrDiverged
	}
	perEpoch := (tr.N + batch - 1) / batch
	total := c.Epochs * perEpoch
	var best []float32 // the best epoch's weights, under early stopping
	step := 0
epochs:
	for epoch := 1; epoch <= c.Epochs; epoch++ {
		shuffle.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		var sum float64
		var nb int
		for lo := 0; lo < tr.N; lo += batch {
			idx := order[lo:min(lo+batch, tr.N)]
			gather(x, y, tr, idx)
			b := len(idx)
			loss := m.TrainStep(opt, x[:b*tr.T*tr.C], y[:b*(tr.T+tr.H)], b, c.LRAt(step, total))
			step++
			if !finite(loss) {
				return diverged(step)
			}
			sum += loss
			nb++
		}
		res.EpochLoss = append(res.EpochLoss, sum/float64(nb))
		val := evaluate(m, &ds.Val, x, y, nil)
		if !finite(val) {
			// The loss stayed finite but the model's forecasts are not.
			return diverged(step)
		}
		res.ValCurve = append(res.ValCurve, val)
		switch {
		case c.Patience == 0:
			res.Val, res.BestEpoch = val, epoch
		case res.BestEpoch == 0 || val < res.Val:
			res.Val, res.BestEpoch = val, epoch
			best = append(best[:0], m.Params.Data...)
		case epoch-res.BestEpoch >= c.Patience:
			break epochs // Patience epochs without a new best
		}
	}
	if best != nil {
		copy(m.Params.Data, best)
	}
	var sig *sigAccum
	if !c.Gate().Identity() {
		sig = newSigAccum(mc.Layers, mc.Tokens())
	}
	res.Test = evaluate(m, &ds.Test, x, y, sig)
	if !finite(res.Test) {
		return diverged(step)
	}
	if sig != nil {
		res.Signature = sig.finish(c.Gate())
		if !res.Signature.finite() {
			// A degenerate pole fit (constant states): no signature
			// rather than a NaN, so the mechanism reads unconfirmed.
			res.Signature = nil
		}
	}
	return m, res, nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// finite reports whether every number of s is finite.
func (s *Signature) finite() bool {
	for _, l := range s.Layers {
		xs := append([]float64{l.InitialGain, l.FinalGain, l.MeanState, l.PredictedSteadyGain, l.FittedStatePole, l.FittedDrive}, l.GainByPosition...)
		for _, x := range append(xs, l.StateByPosition...) {
			if !finite(x) {
				return false
			}
		}
	}
	return true
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
//	mse = 1/(N·H) · Σ_n Σ_h (pred[n,T-1,h] - y[n,T+h])²
//
// and feeds each batch's gate states to sig when it is not nil.
func evaluate(m *transformer.Model[float32], s *track.Split, x, y []float32, sig *sigAccum) float64 {
	batch := m.MaxBatch
	idx := make([]int, 0, batch)
	var sse float64
	for lo := 0; lo < s.N; lo += batch {
		idx = idx[:0]
		for n := lo; n < min(lo+batch, s.N); n++ {
			idx = append(idx, n)
		}
		b := len(idx)
		gather(x, y, s, idx)
		pred := m.Predict(x[:b*s.T*s.C], b)
		sse += transformer.LastPositionSSE(m.Config, pred, y[:b*(s.T+s.H)], b)
		if sig != nil {
			sig.add(m, b)
		}
	}
	return sse / float64(s.N*s.H)
}

// Signature is the gate's observed behaviour in a trained model on the
// test windows, per block.
type Signature struct {
	Layers []LayerSignature
}

// LayerSignature is the mechanism signature of one block's gate.
type LayerSignature struct {
	Layer               int     `json:"layer"`
	InitialGain         float64 `json:"initial_gain"`          // mean over windows of g at position 0
	FinalGain           float64 `json:"final_gain"`            // mean over windows of g at position T-1
	MeanState           float64 `json:"mean_state"`            // mean over windows of s at position T-1
	PredictedSteadyGain float64 `json:"predicted_steady_gain"` // 1/(1+β·mean_state)
	FittedStatePole     float64 `json:"fitted_state_pole"`     // gate.FitPole over all windows and positions
	FittedDrive         float64 `json:"fitted_drive"`          // the drive coefficient of that fit, ≈ 1-ρ
	Confirmed           bool    `json:"confirmed"`

	GainByPosition  []float64 `json:"gain_by_position"`  // mean over windows of g at each position 0..T-1; [0] is initial_gain, [T-1] final_gain
	StateByPosition []float64 `json:"state_by_position"` // mean over windows of s at each position; [T-1] is mean_state
}

// Confirmation tolerances of the mechanism signature. The pole fit on
// float32 states recovers ρ to ~1e-3 (gate's tests), so 0.01 separates a
// fading memory with the designed pole from anything else; 0.02 on the
// gain allows the Jensen gap between mean gain and gain at the mean state
// for the spread of states seen across windows; 0.01 of gain drop is the
// least that says the gate engages at all.
const (
	PoleTol     = 0.01
	SteadyTol   = 0.02
	MinGainDrop = 0.01
)

// Confirm applies the three criteria of the theory to one signature:
//
//	|fitted_state_pole - ρ| ≤ PoleTol                   the state is the designed fading memory
//	|final_gain - predicted_steady_gain| ≤ SteadyTol    the window ends at the steady gain of its state
//	initial_gain - final_gain ≥ MinGainDrop             the gain falls as the memory fills
func Confirm(rho, pole, initial, final, predicted float64) bool {
	return math.Abs(pole-rho) <= PoleTol && math.Abs(final-predicted) <= SteadyTol && initial-final >= MinGainDrop
}

// sigAccum accumulates gate statistics over evaluation batches.
type sigAccum struct {
	n           int
	g0, gT, sT  []float64   // (L) sums over windows
	gPos, sPos  [][]float64 // (L,T) sums over windows of the gain and the state at each position
	sPrev, s, u [][]float64
}

func newSigAccum(layers, t int) *sigAccum {
	a := &sigAccum{g0: make([]float64, layers), gT: make([]float64, layers), sT: make([]float64, layers),
		gPos: make([][]float64, layers), sPos: make([][]float64, layers),
		sPrev: make([][]float64, layers), s: make([][]float64, layers), u: make([][]float64, layers)}
	for l := range layers {
		a.gPos[l], a.sPos[l] = make([]float64, t), make([]float64, t)
	}
	return a
}

func (a *sigAccum) add(m *transformer.Model[float32], b int) {
	c := m.Config
	t, d := c.Tokens(), c.D
	for l := range a.g0 {
		st, in := m.GateState(l), m.GateInput(l)
		for bi := range b {
			// Products rounded before adds (float64(·)): no fused
			// multiply-add, the same bits on every CPU.
			a.g0[l] += 1 / (1 + float64(c.Gate.Beta*float64(st[bi*t])))
			a.gT[l] += 1 / (1 + float64(c.Gate.Beta*float64(st[bi*t+t-1])))
			a.sT[l] += float64(st[bi*t+t-1])
			prev := 0.0
			for ti := range t {
				row := in[(bi*t+ti)*d : (bi*t+ti+1)*d]
				var u float64
				for _, v := range row {
					u += float64(float64(v) * float64(v))
				}
				cur := float64(st[bi*t+ti])
				a.sPos[l][ti] += cur
				a.gPos[l][ti] += 1 / (1 + float64(c.Gate.Beta*cur))
				a.sPrev[l] = append(a.sPrev[l], prev)
				a.s[l] = append(a.s[l], cur)
				a.u[l] = append(a.u[l], u/float64(d))
				prev = cur
			}
		}
	}
	a.n += b
}

func (a *sigAccum) finish(g gate.Params) *Signature {
	sig := &Signature{}
	n := float64(a.n)
	for l := range a.g0 {
		ls := LayerSignature{Layer: l, InitialGain: a.g0[l] / n, FinalGain: a.gT[l] / n, MeanState: a.sT[l] / n}
		for ti := range a.gPos[l] {
			ls.GainByPosition = append(ls.GainByPosition, a.gPos[l][ti]/n)
			ls.StateByPosition = append(ls.StateByPosition, a.sPos[l][ti]/n)
		}
		ls.PredictedSteadyGain = gate.SteadyGain(g.Beta, ls.MeanState)
		pole, drive, err := gate.FitPole(a.sPrev[l], a.s[l], a.u[l])
		if err == nil {
			ls.FittedStatePole, ls.FittedDrive = pole, drive
			ls.Confirmed = Confirm(g.Rho, pole, ls.InitialGain, ls.FinalGain, ls.PredictedSteadyGain)
		}
		sig.Layers = append(sig.Layers, ls)
	}
	return sig
}
