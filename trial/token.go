package trial

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// TrainTokens trains the token model mc (transformer.Config with Vocab
// set) on the train sequences of ds with the given seed, the way
// TrainTrial trains a forecaster: c.Epochs passes over the train
// sequences (or c.EpochWindows of them per epoch) in a seeded order, one
// AdamW step of batch sequences at the rate c.LRAt of the step, the
// model scored on val after every epoch and, with c.Patience > 0, early
// stopping back to the best val epoch's weights.
//
// The metric is the mean cross-entropy (natural log) per labelled
// position, lower is better: Result.Val and Result.Test. Accuracy (the
// share of labelled positions whose arg-max is the label) is beside it
// in Result.ValAcc and Result.TestAcc. The same (mc, batch, ds, cfg,
// seed) gives the same bits.
func TrainTokens(ctx context.Context, mc transformer.Config, batch int, ds *track.TokenDataset, c protocol.Cfg, seed uint64) (*transformer.Model[float32], Result, error) {
	if mc.Vocab != ds.Vocab || mc.T != ds.Train.T {
		return nil, Result{}, fmt.Errorf("trial: the token model (vocab %d, t %d) does not fit the track %s (vocab %d, t %d)", mc.Vocab, mc.T, ds.Name, ds.Vocab, ds.Train.T)
	}
	m, err := transformer.New[float32](mc, batch)
	if err != nil {
		return nil, Result{}, err
	}
	off := streamOffset(c)
	m.Params.Init(rand.New(rand.NewPCG(seed, streamInit+off)))
	shuffle := rand.New(rand.NewPCG(seed, streamShuffle+off))
	opt := transformer.NewAdamW(m.Params, c.WeightDecay)
	opt.Clip = c.Clip
	tr := &ds.Train
	tb := transformer.TokenBatch{Tokens: make([]int32, batch*tr.T), Labels: make([]int32, batch*tr.T), T: tr.T}
	var res Result
	diverged := func(step int) (*transformer.Model[float32], Result, error) {
		res.Diverged, res.DivergedStep = true, step
		res.Val, res.Test = math.Inf(1), math.Inf(1)
		for _, x := range []*float64{&res.StartVal, &res.StartTest, &res.ValAcc, &res.TestAcc} {
			if !finite(*x) {
				*x = 0
			}
		}
		return m, res, ErrDiverged
	}
	res.StartVal, _ = evaluateTokens(m, &ds.Val, &tb)
	res.StartTest, _ = evaluateTokens(m, &ds.Test, &tb)
	if !finite(res.StartVal) || !finite(res.StartTest) {
		return diverged(0)
	}
	// The val accuracy every ValEvery steps (a quarter epoch), for the
	// time to a target: evaluating val reads the model and the batch
	// buffers between steps and changes no bit of the training.
	perEpoch := (epochItems(c, tr.N) + batch - 1) / batch
	res.ValEvery, res.Steps = ValEvery(perEpoch), c.Epochs*perEpoch
	res.ValAccCurve = make([]float64, 0, res.Steps/res.ValEvery)
	steps := 0
	trainBatch := func(idx []int, lr float64) (float64, bool) {
		b := gatherTokens(&tb, tr, idx)
		if b.Labelled() == 0 {
			return 0, false // no position to score: no step
		}
		loss := m.TrainStepTokens(opt, b, lr)
		if steps++; steps%res.ValEvery == 0 && finite(loss) {
			_, acc := evaluateTokens(m, &ds.Val, &tb)
			res.ValAccCurve = append(res.ValAccCurve, acc)
		}
		return loss, true
	}
	val := func() float64 { v, _ := evaluateTokens(m, &ds.Val, &tb); return v }
	step, bad, err := fit(ctx, m, c, batch, tr.N, shuffle, &res, trainBatch, val)
	switch {
	case err != nil:
		return m, Result{}, err
	case bad:
		return diverged(step)
	}
	_, res.ValAcc = evaluateTokens(m, &ds.Val, &tb)
	res.Test, res.TestAcc = evaluateTokens(m, &ds.Test, &tb)
	if !finite(res.Test) {
		return diverged(step)
	}
	if pr, ok := m.Idea().(idea.Prober); ok {
		res.Signature = idea.Measure(probeTokens(m, pr, &ds.Test, &tb))
	}
	return m, res, nil
}

// ValEvery is the number of training steps between two val accuracy
// checkpoints of a token trial (Result.ValAccCurve) whose epoch has
// perEpoch steps: a quarter epoch, at least one step, so that the time
// to a target resolves within an epoch at about a tenth more compute
// (a val pass of the track's 512 sequences against 32 steps of 64).
func ValEvery(perEpoch int) int { return max(1, perEpoch/4) }

// probeTokens feeds the idea's probe every test sequence's state and
// input at each of its site instances, a batch at a time, as evaluate
// does for a forecaster's test windows.
func probeTokens(m *transformer.Model[float32], pr idea.Prober, s *track.TokenSplit, tb *transformer.TokenBatch) idea.Probe {
	c, site := m.Config, m.Idea().Site()
	probe := pr.NewProbe(c.SiteInstances(site), c.SiteShape(site, 0))
	idx := make([]int, 0, m.MaxBatch)
	for lo := 0; lo < s.N; lo += m.MaxBatch {
		idx = idx[:0]
		for i := lo; i < min(lo+m.MaxBatch, s.N); i++ {
			idx = append(idx, i)
		}
		b := gatherTokens(tb, s, idx)
		if b.Labelled() == 0 {
			continue
		}
		m.ForwardTokens(b)
		for l := range c.SiteInstances(site) {
			var theta []float32
			if m.Params.Idea != nil {
				theta = m.Params.Idea[l]
			}
			probe.Add(l, m.IdeaState(l), m.IdeaInput(l), theta, c.SiteShape(site, b.B))
		}
	}
	return probe
}

// gatherTokens copies the sequences idx of s into tb's buffers and
// returns the batch of them.
func gatherTokens(tb *transformer.TokenBatch, s *track.TokenSplit, idx []int) transformer.TokenBatch {
	for b, n := range idx {
		tok, lab := s.Seq(n)
		copy(tb.Tokens[b*s.T:], tok)
		copy(tb.Labels[b*s.T:], lab)
	}
	b := len(idx)
	return transformer.TokenBatch{Tokens: tb.Tokens[:b*s.T], Labels: tb.Labels[:b*s.T], B: b, T: s.T}
}

// evaluateTokens returns the mean cross-entropy and the accuracy over the
// labelled positions of s:
//
//	ce  = 1/L · Σ_(n,t labelled) -log softmax(logits[n,t])[label[n,t]]
//	acc = 1/L · #{(n,t) labelled : argmax logits[n,t] = label[n,t]}
//
// L the number of labelled positions; arg-max ties go to the lowest id.
// A split with no labelled position has no metric: NaN.
func evaluateTokens(m *transformer.Model[float32], s *track.TokenSplit, tb *transformer.TokenBatch) (ce, acc float64) {
	batch := m.MaxBatch
	idx := make([]int, 0, batch)
	var sum, correct float64
	var n int
	for lo := 0; lo < s.N; lo += batch {
		idx = idx[:0]
		for i := lo; i < min(lo+batch, s.N); i++ {
			idx = append(idx, i)
		}
		b := gatherTokens(tb, s, idx)
		if b.Labelled() == 0 {
			continue
		}
		c, a, k := m.Evaluate(b)
		sum += c * float64(k)
		correct += math.Round(a * float64(k)) // Evaluate's count of correct positions
		n += k
	}
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	return sum / float64(n), correct / float64(n)
}
