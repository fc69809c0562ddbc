package transformer

import (
	"fmt"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/kernel"
	"github.com/ideabench/ideabench/internal/vmath"
)

// Float is the element type of a model: float32 for training, float64 for
// the gradient check.
type Float = kernel.Float

// blockActs caches what one block's backward pass needs.
type blockActs[F Float] struct {
	res      []F // (B,T,D) block input; block 0's holds the embedding
	ln1      []F // (B,T,D)
	ln1Mean  []F // (B,T)
	ln1Rstd  []F // (B,T)
	qkv      []F // (B,T,3D)
	att      []F // (B,NH,T,T) softmax probabilities, lower triangle
	atty     []F // (B,T,D) concatenated head outputs
	proj     []F // (B,T,D) attention branch output
	site     siteActs[F]
	res2     []F // (B,T,D) res + the attention branch (after an idea there)
	ln2      []F // (B,T,D)
	ln2Mean  []F // (B,T)
	ln2Rstd  []F // (B,T)
	geluGrad []F // (B,T,4D) gelu' at the MLP pre-activation (which it holds until GELU runs)
	gelu     []F // (B,T,4D)
}

// siteActs holds one site instance of the idea: its input x and output y
// (B,T,C) and the state its Forward caches for Backward, window by
// window. At the attention site x is the block's proj.
type siteActs[F Float] struct {
	x, y, state []F
}

// acts is one set of activations and backward scratch, with room for up
// to n windows: the model keeps one for MaxBatch (Forward, Predict,
// Backward) and one for Config.TrainWindows (TrainStep).
type acts[F Float] struct {
	n      int  // windows it has room for
	b      int  // windows of the last forward pass
	train  bool // the last pass was a training one, so backward may run
	step   bool // a TrainStep buffer: the attention projection is not kept
	x      []F  // (B,T,CIn) input of the last pass, not owned
	xn     []F  // (B,T,CIn) Norm: the input normalized per window
	mu, sd []F  // (B,CIn) Norm: each window's channel levels and scales
	blocks []blockActs[F]
	resF   []F           // (B,T,D) output of the last block
	lnf    []F           // (B,T,D)
	lnfM   []F           // (B,T)
	lnfR   []F           // (B,T)
	pred   []F           // (B,T,H)
	site   siteActs[F]   // the idea at the input or head site
	norms  []siteActs[F] // the idea at the norm site: each normalization's

	// Backward scratch.
	dres  []F // (B,T,D) gradient of the residual stream
	dln   []F // (B,T,D)
	dqkv  []F // (B,T,3D)
	datty []F // (B,T,D)
	dproj []F // (B,T,D)
	dfc   []F // (B,T,4D)
	datt  []F // (NH,T,T) attention score gradients of one window
	att2  []F // (NH,T,T) 8-wide heads: one window's Pᵀ or dSᵀ, heads interleaved two by two
	kt    []F // (NH,hs,T) packed Qᵀ or dOᵀ of one window's heads
	dgs   []F // (T) gate reverse-scan scratch
	lnG   []F // (B,T) LayerNorm backward row means of g
	lnGX  []F // (B,T) LayerNorm backward row means of g·x̂
	dpred []F // (B,T,H)
	dhead []F // (B,T,H) Norm: gradient of the head's output
	dxn   []F // (B,T,CIn) Norm: gradient of the normalized input

	skip  []F // (B,H) Skip: the linear path's forecast
	xs    []F // (B,T) Skip with CIn > 1: the target channel's inputs
	dskip []F // (B,H) Skip: its gradient
	dxs   []F // (B,T) Skip: the input gradient through it

	dsite   []F // (B,T,C) the idea: gradient of its input
	scratch []F // the idea's backward scratch
	dlogits []F // (B,NH,T,T) an idea at the logits site: the gradient of its bias, key-major

	tail tailActs[F]  // loss "last": TrainStep's tail on the last tokens (tail.go)
	tok  tokenActs[F] // token mode: the input ids and the labelled rows' head (token.go)
}

// In the activations T is the token count N (Config.Tokens).
func newActs[F Float](c Config, n int) *acts[F] {
	bt, d, t := n*c.Tokens(), c.D, c.Tokens()
	mk := func(k int) []F { return make([]F, k) }
	s := &acts[F]{n: n, blocks: make([]blockActs[F], c.Layers)}
	in := c.active()
	var sh idea.Shape
	newSite := func() siteActs[F] {
		return siteActs[F]{x: mk(sh.Len()), y: mk(sh.YLen()), state: mk(sh.B * in.State(sh))}
	}
	if in != nil {
		sh = c.SiteShape(in.Site(), n)
		s.dsite, s.scratch = mk(sh.Len()), mk(in.Scratch(sh))
		if in.Site() == idea.SiteLogits {
			s.dlogits = mk(sh.YLen())
		}
	}
	for l := range s.blocks {
		s.blocks[l] = blockActs[F]{
			res: mk(bt * d), ln1: mk(bt * d), ln1Mean: mk(bt), ln1Rstd: mk(bt),
			qkv: mk(bt * 3 * d), att: mk(n * c.Heads * t * t), atty: mk(bt * d),
			proj: mk(bt * d), res2: mk(bt * d),
			ln2: mk(bt * d), ln2Mean: mk(bt), ln2Rstd: mk(bt),
			geluGrad: mk(bt * 4 * d), gelu: mk(bt * 4 * d),
		}
		if in != nil && in.Site().PerBlock() {
			s.blocks[l].site = newSite()
			switch in.Site() {
			case idea.SiteAttention:
				s.blocks[l].site.x = s.blocks[l].proj // the branch output is the idea's input
			case idea.SiteQK:
				s.blocks[l].site.x = s.blocks[l].qkv // the queries, keys and values are
			case idea.SiteFFN:
				s.blocks[l].site.x = s.blocks[l].ln2 // the MLP's input
			}
		}
	}
	s.resF, s.lnf, s.lnfM, s.lnfR, s.pred = mk(bt*d), mk(bt*d), mk(bt), mk(bt), mk(bt*c.H)
	switch {
	case in != nil && in.Site() == idea.SiteNorm:
		// Each normalization's state; its input and output are the
		// residual stream's and the LayerNorm's buffers.
		s.norms = make([]siteActs[F], 2*c.Layers+1)
		for i := range s.norms {
			s.norms[i].state = mk(sh.B * in.State(sh))
		}
		for l, a := range s.blocks {
			s.norms[2*l].x, s.norms[2*l].y = a.res, a.ln1
			s.norms[2*l+1].x, s.norms[2*l+1].y = a.res2, a.ln2
		}
		s.norms[2*c.Layers].x, s.norms[2*c.Layers].y = s.resF, s.lnf
	case in != nil && !in.Site().PerBlock():
		s.site = newSite()
	}
	s.dres, s.dln, s.dqkv, s.datty, s.dproj = mk(bt*d), mk(bt*d), mk(bt*3*d), mk(bt*d), mk(bt*d)
	s.dfc, s.datt, s.dpred = mk(bt*4*d), mk(c.Heads*t*t), mk(bt*c.H)
	s.kt = mk(d * t)
	if pairKernel[F](t, d/c.Heads, c.Heads) {
		s.att2 = mk(c.Heads * t * t)
	}
	s.lnG, s.lnGX = mk(bt), mk(bt)
	if c.Norm != "" {
		s.xn, s.dxn, s.mu, s.sd, s.dhead = mk(n*c.T*c.CIn), mk(n*c.T*c.CIn), mk(n*c.CIn), mk(n*c.CIn), mk(bt*c.H)
	}
	if c.lastOnly() {
		s.tail = newTailActs[F](c, n)
	}
	if c.tokenMode() {
		s.tok = newTokenActs[F](c, n)
	}
	if c.Skip {
		s.skip, s.dskip, s.dxs = mk(n*c.H), mk(n*c.H), mk(n*c.T)
		if c.CIn > 1 {
			s.xs = mk(n * c.T)
		}
	}
	return s
}

// view returns the activations of windows [b0, b0+cb) of s as an acts of
// their own: the same memory, so forward passes over consecutive views
// fill s as one pass over all their windows would. Backward scratch is
// shared.
func (s *acts[F]) view(c Config, b0, cb int) *acts[F] {
	t := c.Tokens()
	r0, r1 := b0*t, (b0+cb)*t
	d := c.D
	rows := func(x []F, w int) []F { return x[r0*w : r1*w] }
	v := *s
	v.n, v.blocks = cb, make([]blockActs[F], len(s.blocks))
	win := func(x []F, w int) []F { return x[b0*w : (b0+cb)*w] }
	if c.Norm != "" {
		v.xn, v.mu, v.sd = win(s.xn, c.T*c.CIn), win(s.mu, c.CIn), win(s.sd, c.CIn)
	}
	if c.Skip {
		v.skip = win(s.skip, c.H)
		if c.CIn > 1 {
			v.xs = win(s.xs, c.T)
		}
	}
	// A site's row width and per-window state size follow from its
	// buffers, sized for s.n windows of t tokens.
	siteView := func(a siteActs[F]) siteActs[F] {
		if a.x == nil {
			return a
		}
		return siteActs[F]{x: rows(a.x, len(a.x)/(s.n*t)), y: rows(a.y, len(a.y)/(s.n*t)), state: win(a.state, len(a.state)/s.n)}
	}
	for l, a := range s.blocks {
		v.blocks[l] = blockActs[F]{
			res: rows(a.res, d), ln1: rows(a.ln1, d), ln1Mean: rows(a.ln1Mean, 1), ln1Rstd: rows(a.ln1Rstd, 1),
			qkv: rows(a.qkv, 3*d), att: a.att[b0*c.Heads*t*t : (b0+cb)*c.Heads*t*t], atty: rows(a.atty, d),
			proj: rows(a.proj, d), site: siteView(a.site), res2: rows(a.res2, d),
			ln2: rows(a.ln2, d), ln2Mean: rows(a.ln2Mean, 1), ln2Rstd: rows(a.ln2Rstd, 1),
			geluGrad: rows(a.geluGrad, 4*d), gelu: rows(a.gelu, 4*d),
		}
	}
	v.site = siteView(s.site)
	if s.norms != nil {
		v.norms = make([]siteActs[F], len(s.norms))
		for i, a := range s.norms {
			v.norms[i] = siteView(a)
		}
	}
	v.resF, v.lnf, v.lnfM, v.lnfR, v.pred = rows(s.resF, d), rows(s.lnf, d), rows(s.lnfM, 1), rows(s.lnfR, 1), rows(s.pred, c.H)
	return &v
}

// TrainChunk is the most windows TrainStep runs forward and backward at a
// time (Config.TrainWindows picks how many). A step's gradients are sums
// over its rows in increasing order, which chunks keep (each Gemm,
// LayerNorm and positional gradient accumulates from the previous chunk's
// value), so the chunk size changes no bit.
const TrainChunk = 8

// chunkBytes is the activation budget of one TrainStep chunk: about the
// core's L2 cache, so that an activation written by one layer is still
// there when the next reads it and when the backward pass comes back to
// it.
const chunkBytes = 768 << 10

// TrainWindows is how many windows TrainStep runs forward and backward at
// a time: as many as keep the chunk's float32 activations (actFloats per
// window) within chunkBytes, at least 1 and at most TrainChunk. The
// default model runs 4 (about 0.7 MB), the ETT shape (T = 96, d = 64) 1.
// Measured on one core, batch 32, medians of interleaved runs: the ETT
// step took 19.8 ms with 8 windows a chunk, 16 with 2 and 14.6 with 1;
// the default 1.33 ms with 8 and 1.26 with 4. With products split among
// goroutines (SetThreads above 1), a step too small to pipeline
// (pipelined) and an MLP product (rows·D·4D) large enough to be split at
// TrainChunk windows (kernel.ParMinFlops), it is TrainChunk.
func (c Config) TrainWindows() int {
	rows := float64(TrainChunk * c.Tokens())
	if kernel.Threads() > 1 && !c.pipelined() && 2*rows*float64(c.D)*float64(4*c.D) >= kernel.ParMinFlops {
		return TrainChunk
	}
	return max(1, min(TrainChunk, chunkBytes/(4*c.actFloats())))
}

// pipeMinFlops is the least training work per window (Config.FLOPsPerStep)
// for which TrainStep pipelines its chunks on two goroutines. Below it
// the hand-off between cores costs more than the overlap saves. Measured
// on two cores, batch 32: the large shape of BenchmarkTrainStepShapes
// (372 MFLOP a window) took 55-65 ms a step pipelined against 74-80 on
// one thread and 81 with its products split instead; the ett shape (66
// MFLOP) 14.3 against 13.6-13.9, the default (5 MFLOP) 1.72 against
// 1.22. With more than two threads each stage may also split its larger
// products among them.
const pipeMinFlops = 1 << 27

// pipelined reports whether TrainStep runs its chunks as a forward and a
// backward stage on two goroutines (trainPipelined): with SetThreads
// above 1 and at least pipeMinFlops of work a window.
func (c Config) pipelined() bool {
	return kernel.Threads() > 1 && c.FLOPsPerStep(1) >= pipeMinFlops
}

// actFloats is about how many activations TrainStep keeps per window:
// per block the residual stream, LayerNorms, q|k|v, attention output and
// projection (1+1+3+1+1+1+1 rows of d), GELU and its derivative (2 rows
// of 4d) and the heads' (T,T) probabilities; the idea's site and the
// per-row statistics are left out.
func (c Config) actFloats() int {
	t, d := c.Tokens(), c.D
	return c.Layers * (17*t*d + c.Heads*t*t)
}

// packedW holds the linear weights transposed, (In,Out), the layout Gemm
// streams: Forward packs them once per call, TrainStep once per step.
type packedW[F Float] struct {
	emb, head, skip     []F
	qkv, proj, fc1, fc2 [][]F // (L)
}

func newPackedW[F Float](c Config) *packedW[F] {
	d := c.D
	w := &packedW[F]{emb: make([]F, c.PatchLen()*c.CIn*d), head: make([]F, d*c.outputs())}
	if c.Skip {
		w.skip = make([]F, c.T*c.H)
	}
	for range c.Layers {
		w.qkv = append(w.qkv, make([]F, d*3*d))
		w.proj = append(w.proj, make([]F, d*d))
		w.fc1 = append(w.fc1, make([]F, d*4*d))
		w.fc2 = append(w.fc2, make([]F, 4*d*d))
	}
	return w
}

// pack transposes p's linear weights into w.
func (w *packedW[F]) pack(c Config, p *Params[F]) {
	d := c.D
	if !c.tokenMode() {
		packWeight(w.emb, p.EmbW, d, c.PatchLen()*c.CIn)
	}
	packWeight(w.head, p.HeadW, c.outputs(), d)
	if c.Skip {
		packWeight(w.skip, p.SkipW, c.H, c.T)
	}
	for l := range p.Blocks {
		b := &p.Blocks[l]
		packWeight(w.qkv[l], b.QKVW, 3*d, d)
		packWeight(w.proj[l], b.ProjW, d, d)
		packWeight(w.fc1[l], b.FC1W, 4*d, d)
		packWeight(w.fc2[l], b.FC2W, d, 4*d)
	}
}

// packWeight is kernel.PackT (wt (In,Out) from w (Out,In)); float32 on
// the 16x16 grid (the blocks' weights) runs vmath.Transpose, which moves
// 16x16 blocks through registers.
func packWeight[F Float](wt, w []F, outF, in int) {
	if w32, ok := any(w).([]float32); ok && outF%16 == 0 && in%16 == 0 {
		vmath.Transpose(any(wt).([]float32), w32, outF, in)
		return
	}
	kernel.PackT(wt, w, outF, in)
}

// Model is transformer_tiny with its parameters, gradients and the
// activation cache of the last Forward call, sized for up to MaxBatch
// windows. A Model is not safe for concurrent use; run one per goroutine.
type Model[F Float] struct {
	Config   Config
	MaxBatch int
	Params   *Params[F] // trained weights
	Grads    *Params[F] // gradients, same layout; Backward accumulates here

	full   *acts[F]   // Forward, Predict and Backward
	chunk  *acts[F]   // TrainStep, room for TrainChunk windows
	chunk2 *acts[F]   // the second buffer of TrainStep's pipeline (threads > 1), made when first needed
	chunks []*acts[F] // views of full, TrainChunk windows each (Predict)
	wt     *packedW[F]

	idea idea.Idea  // the idea the model calls; nil for none or its identity
	op   idea.Op[F] // its forward/backward pair
	site idea.Site  // its site
}

// New returns a model for c with zeroed parameters and room for maxBatch
// windows per call.
func New[F Float](c Config, maxBatch int) (*Model[F], error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if maxBatch <= 0 {
		return nil, fmt.Errorf("transformer: batch = %d must be positive", maxBatch)
	}
	m := &Model[F]{Config: c, MaxBatch: maxBatch, Params: NewParams[F](c), Grads: NewParams[F](c),
		full: newActs[F](c, maxBatch), chunk: newActs[F](c, min(maxBatch, TrainChunk)), wt: newPackedW[F](c)}
	m.chunk.step = true
	if m.idea = c.active(); m.idea != nil {
		m.op, m.site = idea.OpFor[F](m.idea), m.idea.Site()
	}
	for b0 := 0; b0 < maxBatch; b0 += TrainChunk {
		m.chunks = append(m.chunks, m.full.view(c, b0, min(TrainChunk, maxBatch-b0)))
	}
	return m, nil
}

// Forward runs the model on b windows x (B,T,CIn) and returns the forecasts
// pred (B,N,H), N = Tokens, a view into the model valid until the next
// Forward or Predict: token n forecasts the H target values after its last
// input position (n+1)·P-1. The model keeps x (not a copy) and what else
// Backward needs. With f the idea at its site (the identity elsewhere):
//
//	h = f_input(embed(x) + pos)
//	per block:  h = h + f_attention(proj(attn(ln1(h))))
//	            h = h + f_mlp(fc2(gelu(fc1(ln2(h)))))
//	            h = f_residual(h)
//	pred = f_head(head(ln_f(h)) [+ skip])
func (m *Model[F]) Forward(x []F, b int) []F {
	m.checkBatch(x, b)
	m.wt.pack(m.Config, m.Params)
	return m.forward(m.full, x, b, true)
}

// Predict is Forward for evaluation: the same forecasts, bit for bit, without
// the work kept only for Backward (GELU's derivative), TrainChunk windows
// at a time (every forward quantity is per window). Backward may not
// follow it. IdeaState and IdeaInput describe it as they do Forward.
func (m *Model[F]) Predict(x []F, b int) []F {
	m.checkBatch(x, b)
	c := m.Config
	m.wt.pack(c, m.Params)
	xw := c.T * c.CIn
	for i, v := range m.chunks {
		b0 := i * TrainChunk
		if b0 >= b {
			break
		}
		cb := min(v.n, b-b0)
		m.forward(v, x[b0*xw:(b0+cb)*xw], cb, false)
	}
	m.full.b, m.full.x, m.full.train = b, x, false
	return m.full.pred[:b*c.Tokens()*c.H]
}

func (m *Model[F]) checkBatch(x []F, b int) {
	if m.Config.tokenMode() {
		panic("transformer: a token model (Config.Vocab > 0) takes a TokenBatch: ForwardTokens, TrainStepTokens, Evaluate")
	}
	if b <= 0 || b > m.MaxBatch {
		panic(fmt.Sprintf("transformer: batch %d outside [1,%d]", b, m.MaxBatch))
	}
	if len(x) != b*m.Config.T*m.Config.CIn {
		panic("transformer: input length is not B·T·CIn")
	}
}

// forward runs the model on b windows into s, with the weights packed in
// m.wt; b is at most s.n.
func (m *Model[F]) forward(s *acts[F], x []F, b int, train bool) []F {
	c := m.Config
	s.b, s.x, s.train = b, x, train
	p, wt := m.Params, m.wt
	bt, d, t := b*c.Tokens(), c.D, c.Tokens()

	in := x
	if c.Norm != "" {
		in = s.xn[:len(x)]
		normForward(c.Norm, in, s.mu[:b*c.CIn], s.sd[:b*c.CIn], x, b, c.T, c.CIn)
	}
	emb := s.blocks[0].res[:bt*d]
	if m.site == idea.SiteInput {
		emb = s.site.x[:bt*d]
	}
	if c.tokenMode() {
		tokenEmbed(emb, p.Tok, s.tok.ids[:bt], d)
	} else {
		// A token's input is its P positions' channels, contiguous in
		// x: (B,T,CIn) read as (B·N, P·CIn).
		kernel.LinearT(emb, in, wt.emb, p.EmbB, bt, c.PatchLen()*c.CIn, d)
	}
	for r0 := 0; r0 < bt && p.Pos != nil; r0 += t { // + pos, one window at a time
		add(emb[r0*d:(r0+t)*d], emb[r0*d:(r0+t)*d], p.Pos)
	}
	if m.site == idea.SiteInput {
		m.ideaForward(s.blocks[0].res[:bt*d], s.site, 0, b)
	}
	h := s.blocks[0].res[:bt*d]
	for l := range s.blocks {
		a, w := &s.blocks[l], &p.Blocks[l]
		m.normForward(s, 2*l, a.ln1, a.ln1Mean, a.ln1Rstd, h, w.LN1W, w.LN1B, bt)
		kernel.LinearT(a.qkv[:bt*3*d], a.ln1[:bt*d], wt.qkv[l], w.QKVB, bt, d, 3*d)
		qkv := a.qkv[:bt*3*d]
		if m.site == idea.SiteQK {
			// The attention reads the idea's queries, keys and values.
			qkv = a.site.y[:bt*3*d]
			m.ideaForward(qkv, a.site, l, b)
		}
		var bias []F
		if m.site == idea.SiteLogits {
			// The logits' bias from the LayerNorm output, the idea's input.
			copy(a.site.x[:bt*d], a.ln1[:bt*d])
			bias = a.site.y[:b*c.Heads*t*t]
			m.ideaForward(bias, a.site, l, b)
		}
		attentionForward(a.atty[:bt*d], a.att, s.kt, qkv, bias, b, t, d, c.Heads)
		projIn := a.atty[:bt*d] // the output projection's input
		if m.site == idea.SiteHeads {
			// The idea sees each token's heads' outputs beside ln1(h).
			x := a.site.x[:bt*2*d]
			for r := range bt {
				copy(x[r*2*d:][:d], a.atty[r*d:][:d])
				copy(x[r*2*d+d:][:d], a.ln1[r*d:][:d])
			}
			projIn = a.site.y[:bt*d]
			m.ideaForward(projIn, a.site, l, b)
		}
		if l == len(s.blocks)-1 {
			switch {
			case s.step && c.tailRows():
				return m.forwardTail(s, h, in, b)
			case c.tokenTail():
				return m.forwardTokenTail(s, h, b, train)
			}
		}
		res2 := a.res2[:bt*d]
		switch {
		case m.site == idea.SiteAttention:
			kernel.LinearT(a.proj[:bt*d], projIn, wt.proj[l], w.ProjB, bt, d, d)
			m.ideaForward(a.site.y[:bt*d], a.site, l, b)
			add(res2, h, a.site.y[:bt*d])
		case s.step:
			// TrainStep keeps no proj: res2 = proj + h in the Gemm's
			// epilogue, the bits of add(res2, h, proj).
			kernel.LinearTAdd(res2, projIn, wt.proj[l], w.ProjB, h, bt, d, d)
		default:
			kernel.LinearT(a.proj[:bt*d], projIn, wt.proj[l], w.ProjB, bt, d, d)
			add(res2, h, a.proj[:bt*d])
		}
		m.mlpHidden(s, a, res2, l, bt, train)
		out := s.resF[:bt*d]
		if l+1 < len(s.blocks) {
			out = s.blocks[l+1].res[:bt*d]
		}
		switch m.site {
		case idea.SiteFFN: // out = res2 + f(ln2)
			m.ffnForward(a, out, res2, l, bt)
		case idea.SiteMLP: // out = res2 + f(fc2(gelu))
			kernel.LinearT(a.site.x[:bt*d], a.gelu[:bt*4*d], wt.fc2[l], w.FC2B, bt, 4*d, d)
			m.ideaForward(a.site.y[:bt*d], a.site, l, b)
			add(out, res2, a.site.y[:bt*d])
		case idea.SiteResidual: // out = f(res2 + fc2(gelu))
			kernel.LinearTAdd(a.site.x[:bt*d], a.gelu[:bt*4*d], wt.fc2[l], w.FC2B, res2, bt, 4*d, d)
			m.ideaForward(out, a.site, l, b)
		default:
			// out = res2 + fc2(gelu), the residual added in the Gemm's
			// epilogue.
			kernel.LinearTAdd(out, a.gelu[:bt*4*d], wt.fc2[l], w.FC2B, res2, bt, 4*d, d)
		}
		h = out
	}
	if c.tokenMode() {
		return m.forwardTokenHead(s, h)
	}
	m.normForward(s, 2*c.Layers, s.lnf, s.lnfM, s.lnfR, h, p.LNFW, p.LNFB, bt)
	pred := s.pred[:bt*c.H]
	hx := pred // the head's output, the head idea's input
	if m.site == idea.SiteHead {
		hx = s.site.x[:bt*c.H]
	}
	kernel.LinearT(hx, s.lnf[:bt*d], wt.head, p.HeadB, bt, d, c.H)
	if c.Skip {
		// The last token's forecast += skip(target channel's window), on
		// the normalized scale.
		sk := s.skip[:b*c.H]
		kernel.LinearT(sk, s.skipInput(c, in, b), wt.skip, p.SkipB, b, c.T, c.H)
		for bi := range b {
			last := hx[(bi*t+t-1)*c.H:][:c.H]
			add(last, last, sk[bi*c.H:][:c.H])
		}
	}
	if m.site == idea.SiteHead {
		m.ideaForward(pred, s.site, 0, b)
	}
	if c.Norm != "" {
		normDenorm(pred, s.mu[:b*c.CIn], s.sd[:b*c.CIn], b, t*c.H, c.CIn, c.Target)
	}
	return pred
}

// mlpAdd runs block l's MLP branch on the first rows rows of res2 and
// adds it: out = res2 + mlp(norm2(res2)), (rows,D), through the idea at
// the ffn site where one sits; the tails' MLP.
func (m *Model[F]) mlpAdd(s *acts[F], a *blockActs[F], out, res2 []F, l, rows int, train bool) {
	d := m.Config.D
	m.mlpHidden(s, a, res2, l, rows, train)
	if m.site == idea.SiteFFN {
		m.ffnForward(a, out, res2, l, rows)
		return
	}
	kernel.LinearTAdd(out[:rows*d], a.gelu[:rows*4*d], m.wt.fc2[l], m.Params.Blocks[l].FC2B, res2[:rows*d], rows, 4*d, d)
}

// mlpHidden runs block l's second normalization, fc1 and GELU on the
// first rows rows of a from res2 (rows,D): a.ln2, a.gelu (rows,4D) and,
// for a training pass, gelu' in a.geluGrad. With an idea at the ffn site
// it runs the normalization alone (ffnForward goes on).
func (m *Model[F]) mlpHidden(s *acts[F], a *blockActs[F], res2 []F, l, rows int, train bool) {
	d, w := m.Config.D, &m.Params.Blocks[l]
	m.normForward(s, 2*l+1, a.ln2, a.ln2Mean, a.ln2Rstd, res2, w.LN2W, w.LN2B, rows)
	if m.site == idea.SiteFFN {
		return
	}
	kernel.LinearT(a.geluGrad[:rows*4*d], a.ln2[:rows*d], m.wt.fc1[l], w.FC1B, rows, d, 4*d)
	if train {
		geluForward(a.gelu[:rows*4*d], a.geluGrad[:rows*4*d], a.geluGrad[:rows*4*d])
	} else {
		geluValue(a.gelu[:rows*4*d], a.geluGrad[:rows*4*d])
	}
}

// SetSkip sets the skip path to the linear map w (H,T), b (H), on the
// model's normalized scale; it panics without Config.Skip.
func (m *Model[F]) SetSkip(w, b []float64) {
	c := m.Config
	if !c.Skip || len(w) != c.H*c.T || len(b) != c.H {
		panic(fmt.Sprintf("transformer: SetSkip: skip %v, got w %d and b %d values for H = %d, T = %d", c.Skip, len(w), len(b), c.H, c.T))
	}
	for i, v := range w {
		m.Params.SkipW[i] = F(v)
	}
	for i, v := range b {
		m.Params.SkipB[i] = F(v)
	}
}

// skipInput returns the skip path's input (B,T): the target channel of
// in (B,T,CIn), in itself when it is the only channel.
func (s *acts[F]) skipInput(c Config, in []F, b int) []F {
	if c.CIn == 1 {
		return in[:b*c.T]
	}
	xs := s.xs[:b*c.T]
	for i := range xs {
		xs[i] = in[i*c.CIn+c.Target]
	}
	return xs
}

// ideaForward runs the idea at site instance l on b windows: y from
// a.x, its state into a.state.
func (m *Model[F]) ideaForward(y []F, a siteActs[F], l, b int) {
	sh := m.Config.SiteShape(m.site, b)
	m.op.Forward(y, a.state[:sh.B*m.idea.State(sh)], a.x[:sh.Len()], m.ideaTheta(l), sh)
}

// ideaTheta is the idea's tensors at site instance l (nil without any).
func (m *Model[F]) ideaTheta(l int) []F {
	if m.Params.Idea == nil {
		return nil
	}
	return m.Params.Idea[l]
}

// siteActs returns the activations of site instance l in s.
func (m *Model[F]) siteActs(s *acts[F], l int) siteActs[F] {
	switch {
	case m.site == idea.SiteNorm:
		return s.norms[l]
	case m.site.PerBlock():
		return s.blocks[l].site
	}
	return s.site
}

// Idea returns the idea the model calls, nil for none or one at its
// identity setting.
func (m *Model[F]) Idea() idea.Idea { return m.idea }

// IdeaState returns the state (B, idea.State) of the idea at site
// instance l (a block at a block site, else 0) of the last Forward or
// Predict; nil without an idea. At a token-wise site (norm, ffn) the
// rows a tail ran on (the last block's, the final normalization's) hold
// the gathered rows, not every token in order: no shipped idea there
// has a probe, and one that has must read a pass without the tail.
func (m *Model[F]) IdeaState(l int) []F {
	if m.idea == nil {
		return nil
	}
	sh := m.Config.SiteShape(m.site, m.full.b)
	return m.siteActs(m.full, l).state[:sh.B*m.idea.State(sh)]
}

// IdeaInput returns the input (B,N,C) of the idea at site instance l of
// the last Forward or Predict: at the attention site the branch output
// after its projection. nil without an idea.
func (m *Model[F]) IdeaInput(l int) []F {
	if m.idea == nil {
		return nil
	}
	return m.siteActs(m.full, l).x[:m.Config.SiteShape(m.site, m.full.b).Len()]
}

// SetThreads lets each large product of every model split its rows among
// n goroutines (kernel.SetThreads) and returns the previous setting. No
// bit of any result changes.
func SetThreads(n int) int { return kernel.SetThreads(n) }
