package transformer

import (
	"fmt"
	"math"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/kernel"
	"github.com/ideabench/ideabench/internal/vmath"
)

// Token mode (Config.Vocab > 0): the model reads token ids and is trained
// with the cross-entropy of the next token's label at the few labelled
// positions of each sequence (synthetic recall tasks such as MQAR). The
// blocks and the idea sites are the forecaster's; the embedding is a
// table look-up and the vocabulary head runs on the labelled rows only,
// gathered after the last block, so a step costs the blocks plus
// labelled·D·Vocab multiply-adds instead of B·T·D·Vocab.

// TokenBatch is a batch of B token sequences of T positions. Position t
// sees the tokens 0…t of its sequence and predicts Labels[t]; a label of
// -1 leaves the position unlabelled (no loss, no head).
type TokenBatch struct {
	Tokens []int32 // (B,T) token ids in [0, Vocab)
	Labels []int32 // (B,T) the id position t predicts, or -1
	B, T   int
}

// Unlabelled is the label of a position without a target.
const Unlabelled = -1

// Labelled is the number of labelled positions of the batch.
func (b TokenBatch) Labelled() int {
	n := 0
	for _, l := range b.Labels {
		if l >= 0 {
			n++
		}
	}
	return n
}

// Validate reports why the batch cannot feed a model of vocabulary
// vocab: lengths other than B·T, an id outside [0, vocab), a label
// outside [0, vocab) other than Unlabelled.
func (b TokenBatch) Validate(vocab int) error {
	if b.B <= 0 || b.T <= 0 {
		return fmt.Errorf("transformer: token batch B = %d, T = %d: both must be >= 1", b.B, b.T)
	}
	if len(b.Tokens) != b.B*b.T || len(b.Labels) != b.B*b.T {
		return fmt.Errorf("transformer: token batch has %d tokens and %d labels, want B·T = %d of each", len(b.Tokens), len(b.Labels), b.B*b.T)
	}
	for i, id := range b.Tokens {
		if id < 0 || int(id) >= vocab {
			return fmt.Errorf("transformer: token %d at sequence %d position %d outside [0, vocab = %d)", id, i/b.T, i%b.T, vocab)
		}
	}
	for i, l := range b.Labels {
		if l != Unlabelled && (l < 0 || int(l) >= vocab) {
			return fmt.Errorf("transformer: label %d at sequence %d position %d outside [0, vocab = %d) and not %d (unlabelled)", l, i/b.T, i%b.T, vocab, Unlabelled)
		}
	}
	return nil
}

// validateTokens is Validate for a token config: the blocks' sizes, no
// forecaster field, and no idea at the head, which token mode runs on
// the labelled rows only.
func (c Config) validateTokens() []error {
	errs := positive(c.blockDims())
	errs = append(errs, c.validateHeads()...)
	for _, f := range []struct {
		name string
		set  bool
	}{
		{"c_in", c.CIn != 0}, {"H", c.H != 0}, {"patch", c.Patch != 0}, {"norm", c.Norm != ""},
		{"target", c.Target != 0}, {"skip", c.Skip}, {"loss", c.Loss != ""},
	} {
		if f.set {
			errs = append(errs, fmt.Errorf("transformer: %s is set with vocab = %d: a token model reads ids and predicts labels; leave %s unset (zero)", f.name, c.Vocab, f.name))
		}
	}
	ie := c.validateIdea()
	errs = append(errs, ie...)
	if len(ie) == 0 {
		if i := c.active(); i != nil && i.Site() == idea.SiteHead {
			errs = append(errs, fmt.Errorf("transformer: idea %q sits at the head, which a token model (vocab = %d) runs at its labelled positions only; pick an idea at another site", i.Config().Name, c.Vocab))
		}
	}
	return errs
}

// tokenActs is a pass's token-mode state: its input ids and its labelled
// rows, gathered for the final LayerNorm and the head.
type tokenActs[F Float] struct {
	ids    []int32 // (B,T) input of the last pass, not owned
	rows   []int32 // (M) the labelled rows b·T+t of the pass, increasing
	labels []int32 // (M) their labels

	// Grown to M rows on first need (growRows).
	h, ln      []F // (M,D) the last block's output at the rows, its final LayerNorm
	mean, rstd []F // (M)
	logits     []F // (M,V)
	dlogits    []F // (M,V) the loss gradient of logits (the softmax's scratch first)
	dln, dh    []F // (M,D) gradients of ln and h
	// The tail (tokenTail): the last block's input and attention output
	// at the rows, and the latter's gradient.
	hin, atty, datt []F // (M,D)
}

func newTokenActs[F Float](c Config, n int) tokenActs[F] {
	return tokenActs[F]{rows: make([]int32, 0, n*c.T), labels: make([]int32, 0, n*c.T)}
}

// set makes ids (B,T) the pass's input and the positions of labels (B,T)
// with a label its rows.
func (k *tokenActs[F]) set(ids, labels []int32) {
	k.ids, k.rows, k.labels = ids, k.rows[:0], k.labels[:0]
	for i, l := range labels {
		if l >= 0 {
			k.rows = append(k.rows, int32(i))
			k.labels = append(k.labels, l)
		}
	}
}

// growRows makes room for m rows of width d and v.
func (k *tokenActs[F]) growRows(m, d, v int) {
	if len(k.mean) >= m {
		return
	}
	k.h, k.ln, k.dln, k.dh = make([]F, m*d), make([]F, m*d), make([]F, m*d), make([]F, m*d)
	k.hin, k.atty, k.datt = make([]F, m*d), make([]F, m*d), make([]F, m*d)
	k.mean, k.rstd = make([]F, m), make([]F, m)
	k.logits, k.dlogits = make([]F, m*v), make([]F, m*v)
}

// tokenEmbed overwrites emb (B·T,D) with the rows of the token table tok
// (V,D) at ids (B·T).
func tokenEmbed[F Float](emb, tok []F, ids []int32, d int) {
	for i, id := range ids {
		copy(emb[i*d:(i+1)*d], tok[int(id)*d:][:d])
	}
}

// tokenEmbedBackward mirrors tokenEmbed: dtok (V,D) += demb (B·T,D) row by
// row, in increasing row order.
func tokenEmbedBackward[F Float](dtok, demb []F, ids []int32, d int) {
	for i, id := range ids {
		r := dtok[int(id)*d:][:d]
		add(r, r, demb[i*d:(i+1)*d])
	}
}

// tokenTail reports whether a token model runs its last block's
// projection and MLP on the labelled rows only, as tail.go does on the
// last token: nothing after the last attention mixes positions, unless
// an idea at a block site does (the gate scans them). noTail turns it
// off for the tests.
func (c Config) tokenTail() bool {
	if noTail || !c.tokenMode() {
		return false
	}
	return tailSafe(c.active())
}

// gatherRows copies the rows of src (B·T,W) at rows (M) into dst (M,W).
func gatherRows[F Float](dst, src []F, rows []int32, w int) {
	for i, r := range rows {
		copy(dst[i*w:(i+1)*w], src[int(r)*w:][:w])
	}
}

// scatterRows is gatherRows' mirror: dst (B·T,W) gets src (M,W) in rows
// and zeros elsewhere.
func scatterRows[F Float](dst, src []F, rows []int32, w int) {
	clear(dst)
	for i, r := range rows {
		copy(dst[int(r)*w:][:w], src[i*w:(i+1)*w])
	}
}

// forwardTokenHead runs the final LayerNorm and the vocabulary head on the
// labelled rows of h (B·T,D), the last block's output: gathered into
// s.tok.h (M,D), it returns the logits (M,V), a view into s.
func (m *Model[F]) forwardTokenHead(s *acts[F], h []F) []F {
	c, k := m.Config, &s.tok
	k.growRows(len(k.rows), c.D, c.Vocab)
	gatherRows(k.h, h, k.rows, c.D)
	return m.tokenLogits(s)
}

// forwardTokenTail runs the last block from its projection on, and the
// head, on the labelled rows only: h (B·T,D) is the block's input, its
// attention output is in the block's atty. The rows' results use the
// first M rows of the block's buffers.
func (m *Model[F]) forwardTokenTail(s *acts[F], h []F, b int, train bool) []F {
	c, p, wt, k := m.Config, m.Params, m.wt, &s.tok
	l, d, n := c.Layers-1, c.D, len(k.rows)
	a, w := &s.blocks[l], &p.Blocks[l]
	k.growRows(n, d, c.Vocab)
	gatherRows(k.atty, a.atty[:b*c.T*d], k.rows, d)
	gatherRows(k.hin, h, k.rows, d)
	res2 := a.res2[:n*d]
	kernel.LinearTAdd(res2, k.atty[:n*d], wt.proj[l], w.ProjB, k.hin[:n*d], n, d, d)
	m.mlpAdd(s, a, k.h, res2, l, n, train)
	return m.tokenLogits(s)
}

// tokenLogits runs the final LayerNorm and the head on s.tok.h (M,D) and
// returns the logits (M,V), a view into s.
func (m *Model[F]) tokenLogits(s *acts[F]) []F {
	c, p, k := m.Config, m.Params, &s.tok
	d, v, n := c.D, c.Vocab, len(k.rows)
	if n == 0 {
		return k.logits[:0]
	}
	m.normForward(s, 2*c.Layers, k.ln, k.mean, k.rstd, k.h, p.LNFW, p.LNFB, n)
	logits := k.logits[:n*v]
	kernel.LinearT(logits, k.ln[:n*d], m.wt.head, p.HeadB, n, d, v)
	return logits
}

// backwardTokenHead mirrors forwardTokenHead: from dlogits (M,V) it
// accumulates the head's and the final LayerNorm's gradients and
// overwrites s.dres (B·T,D) with d of the last block's output, zero but
// in the labelled rows; with the tail (tokenTail) it runs on through the
// last block's MLP and projection, and leaves in s.dres and s.datty d of
// the block's input (through the residual) and of its attention output,
// where backward's loop goes on.
func (m *Model[F]) backwardTokenHead(s *acts[F], dlogits []F) {
	c, p, g, k := m.Config, m.Params, m.Grads, &s.tok
	d, v, n := c.D, c.Vocab, len(k.rows)
	if len(dlogits) != n*v {
		panic(fmt.Sprintf("transformer: dlogits has length %d, want M·Vocab = %d·%d of the last pass", len(dlogits), n, v))
	}
	bt := s.b * c.T
	dln, dh := k.dln[:n*d], k.dh[:n*d]
	if n > 0 {
		kernel.LinearBackward(dln, g.HeadW, g.HeadB, dlogits, k.ln[:n*d], p.HeadW, n, d, v)
		clear(dh)
		m.normBackward(s, 2*c.Layers, dh, g.LNFW, g.LNFB, dln, k.h, k.mean, k.rstd, p.LNFW, n)
	}
	if !c.tokenTail() {
		scatterRows(s.dres[:bt*d], dh, k.rows, d)
		return
	}
	// The tail: dh is d of the last block's output at the rows.
	l := c.Layers - 1
	a, w, gw := &s.blocks[l], &p.Blocks[l], &g.Blocks[l]
	if n > 0 {
		m.mlpBackward(s, dln, dh, l, n)
		m.normBackward(s, 2*l+1, dh, gw.LN2W, gw.LN2B, dln, a.res2, a.ln2Mean, a.ln2Rstd, w.LN2W, n)
		kernel.LinearBackward(k.datt[:n*d], gw.ProjW, gw.ProjB, dh, k.atty[:n*d], w.ProjW, n, d, d)
	}
	scatterRows(s.dres[:bt*d], dh, k.rows, d)
	scatterRows(s.datty[:bt*d], k.datt[:n*d], k.rows, d)
}

// checkTokens panics unless batch fits a token model's forward pass.
func (m *Model[F]) checkTokens(batch TokenBatch, limit bool) {
	c := m.Config
	if !c.tokenMode() {
		panic("transformer: token batch given to a forecaster (Config.Vocab = 0)")
	}
	if err := batch.Validate(c.Vocab); err != nil {
		panic(err.Error())
	}
	if batch.T != c.T {
		panic(fmt.Sprintf("transformer: token batch T = %d, the model's T = %d", batch.T, c.T))
	}
	if limit && batch.B > m.MaxBatch {
		panic(fmt.Sprintf("transformer: batch %d outside [1,%d]", batch.B, m.MaxBatch))
	}
}

// ForwardTokens runs a token model on batch and returns the logits
// (M,Vocab) of its M labelled positions, in sequence then position order,
// a view into the model valid until the next pass. The model keeps
// batch's slices (not copies) and what else BackwardTokens needs. With f
// the idea at its site (the identity elsewhere):
//
//	h = f_input(tok_embed[ids] + pos)                  (B,T,D)
//	per block: as Forward
//	logits = head(ln_f(h[labelled]))                   (M,Vocab)
func (m *Model[F]) ForwardTokens(batch TokenBatch) []F {
	m.checkTokens(batch, true)
	m.wt.pack(m.Config, m.Params)
	m.full.tok.set(batch.Tokens, batch.Labels)
	return m.forward(m.full, nil, batch.B, true)
}

// BackwardTokens mirrors ForwardTokens: from dlogits (M,Vocab), the loss
// gradient of its logits, it accumulates parameter gradients into
// m.Grads.
func (m *Model[F]) BackwardTokens(dlogits []F) { m.backward(m.full, nil, dlogits) }

// TrainStepTokens runs one optimization step of a token model on batch:
// forward, CrossEntropy over its labelled positions, gradients zeroed then
// accumulated, one Adam update with learning rate lr. It returns the mean
// cross-entropy before the update. As TrainStep, it runs the sequences
// Config.TrainWindows at a time with the bits of one ForwardTokens,
// CrossEntropy and BackwardTokens over the whole batch. It panics on a
// batch without labels (TokenBatch.Validate reports the other faults).
func (m *Model[F]) TrainStepTokens(opt *Adam[F], batch TokenBatch, lr float64) float64 {
	return m.trainStepTokens(opt, batch, lr, m.Config.pipelined())
}

// trainStepTokens is TrainStepTokens, its chunks pipelined
// (trainPipelined) when pipe is set and there are two or more.
func (m *Model[F]) trainStepTokens(opt *Adam[F], batch TokenBatch, lr float64, pipe bool) float64 {
	m.checkTokens(batch, true)
	n := batch.Labelled()
	if n == 0 {
		panic("transformer: TrainStepTokens: the batch has no labelled position")
	}
	in := stepInput[F]{tokens: batch.Tokens, labels: batch.Labels, scale: 1 / float64(n)}
	sum := m.accumulate(in, batch.B, pipe)
	opt.Step(m.Params.Data, m.Grads.Data, lr)
	return sum * in.scale
}

// chunkTokenLoss is chunkLoss for a token model: the cross-entropy sum of
// sequences [b0, b0+cb) of in, its gradient of the logits (in s).
func (m *Model[F]) chunkTokenLoss(s *acts[F], in stepInput[F], b0, cb int, sum float64) ([]F, float64) {
	t := m.Config.T
	s.tok.set(in.tokens[b0*t:(b0+cb)*t], in.labels[b0*t:(b0+cb)*t])
	logits := m.forward(s, nil, cb, true)
	dl := s.tok.dlogits[:len(logits)]
	sum, _ = crossEntropySum(dl, logits, s.tok.labels, m.Config.Vocab, in.scale, sum)
	return dl, sum
}

// Evaluate returns the mean cross-entropy (natural log) and the accuracy
// (argmax, ties to the lowest id) of a token model over the n labelled
// positions of batch, which may hold more than MaxBatch sequences: it
// runs them TrainChunk at a time, without the work kept only for the
// backward pass. With no labelled position ce and acc are NaN.
func (m *Model[F]) Evaluate(batch TokenBatch) (ce, acc float64, n int) {
	m.checkTokens(batch, false)
	c, s := m.Config, m.chunk
	m.wt.pack(c, m.Params)
	var sum float64
	var correct int
	for b0 := 0; b0 < batch.B; b0 += s.n {
		cb := min(s.n, batch.B-b0)
		s.tok.set(batch.Tokens[b0*c.T:(b0+cb)*c.T], batch.Labels[b0*c.T:(b0+cb)*c.T])
		logits := m.forward(s, nil, cb, false)
		var k int
		sum, k = crossEntropySum(s.tok.dlogits[:len(logits)], logits, s.tok.labels, c.Vocab, 0, sum)
		correct += k
	}
	n = batch.Labelled()
	scale := 1 / float64(n)
	return sum * scale, float64(correct) * scale, n
}

// CrossEntropy returns the mean cross-entropy (natural log) of logits
// (M,V) against labels (M) in [0, V), and overwrites dlogits (M,V) with
// its gradient. Each row is shifted by its maximum before exp, so no
// logit overflows:
//
//	ce    = 1/M · Σ_i (max_i + log Σ_j exp(z_ij − max_i) − z_i,y_i)
//	dlogits = 1/M · (softmax(z_i) − onehot(y_i))
//
// The exponentials run in F (vmath.Exp for float32: its clamp below −87
// adds at most V·e⁻⁸⁷ to a sum of at least 1); the row sums, the logs
// and the mean in float64.
func CrossEntropy[F Float](dlogits, logits []F, labels []int32, v int) float64 {
	m := len(labels)
	if m == 0 || len(logits) != m*v || len(dlogits) != len(logits) {
		panic(fmt.Sprintf("transformer: CrossEntropy: logits %d and dlogits %d for %d labels of vocab %d, want (M,V) with M >= 1", len(logits), len(dlogits), m, v))
	}
	scale := 1 / float64(m)
	sum, _ := crossEntropySum(dlogits, logits, labels, v, scale, 0)
	return sum * scale // TrainStepTokens's bits
}

// crossEntropySum adds the cross-entropy of each row of logits (M,V)
// against labels (M) to sum, in row order, and returns it with the number
// of rows whose argmax (the lowest index among equal maxima) is the
// label; dlogits (M,V) gets scale·(softmax − onehot).
func crossEntropySum[F Float](dlogits, logits []F, labels []int32, v int, scale, sum float64) (float64, int) {
	correct := 0
	for i, y := range labels {
		row, e := logits[i*v:][:v], dlogits[i*v:][:v]
		mx, arg := row[0], 0
		for j, z := range row {
			if z > mx {
				mx, arg = z, j
			}
		}
		if arg == int(y) {
			correct++
		}
		for j, z := range row {
			e[j] = z - mx
		}
		if e32, ok := any(e).([]float32); ok {
			vmath.Exp(e32, e32)
		} else {
			for j, z := range e {
				e[j] = F(math.Exp(float64(z)))
			}
		}
		var z float64
		for _, x := range e {
			z += float64(x)
		}
		sum += (float64(mx) - float64(row[y])) + math.Log(z)
		for j, x := range e {
			p := float64(x) / z
			if j == int(y) {
				p--
			}
			e[j] = F(p * scale)
		}
	}
	return sum, correct
}
