package transformer

import "github.com/ideabench/ideabench/internal/kernel"

// The tail of a training step with loss "last". Its loss reads one
// forecast a window, the last token's, and nothing after the last block's
// attention mixes tokens: the projection, the MLP, the final LayerNorm and
// the head work row by row. So TrainStep runs them on the last token of
// each window only, (B,D) instead of (B·N,D), and the last block's
// attention and everything before it on every token (their keys and
// values feed the last token). At the multivariate shape (21 tokens) that
// is about 40% of the step's multiply-adds.
//
// The bits are those of the full pass: every row-wise product and
// LayerNorm computes a row as it does among all rows, and the gradients
// the full pass sums over the other tokens' rows are exact zeros there
// (their loss gradient is 0), which leave a float sum unchanged
// (TestTailKeepsBits).
//
// An idea at a block site or at the head mixes tokens after the last
// attention (the gate scans them), so a model with one runs the full
// pass; one at the input site is before the blocks and keeps the tail.

// tailRows reports whether TrainStep's passes run the tail on the last
// token only (see above). noTail turns it off for the tests.
func (c Config) tailRows() bool {
	if noTail || !c.lastOnly() {
		return false
	}
	return tailSafe(c.active())
}

var noTail bool

// tailActs is the tail's (B,·) scratch: the last tokens' gathered rows
// and their gradients.
type tailActs[F Float] struct {
	h, atty    []F // (B,D) the last block's input and attention output
	dres, datt []F // (B,D) their gradients
	pred       []F // (B,H) the forecast, then its gradient
}

func newTailActs[F Float](c Config, n int) tailActs[F] {
	d := n * c.D
	return tailActs[F]{h: make([]F, d), atty: make([]F, d), dres: make([]F, d), datt: make([]F, d), pred: make([]F, n*c.H)}
}

// gatherLast copies the last row of each of b windows of t rows of width
// w in src (B,T,W) into dst (B,W).
func gatherLast[F Float](dst, src []F, b, t, w int) {
	for bi := range b {
		copy(dst[bi*w:(bi+1)*w], src[(bi*t+t-1)*w:])
	}
}

// scatterLast is gatherLast's mirror: dst (B,T,W) gets src (B,W) in each
// window's last row and zeros elsewhere.
func scatterLast[F Float](dst, src []F, b, t, w int) {
	clear(dst[:b*t*w])
	for bi := range b {
		copy(dst[(bi*t+t-1)*w:][:w], src[bi*w:(bi+1)*w])
	}
}

// forwardTail runs the model from the last block's projection on, on
// each window's last token: h (B·N,D) is the last block's input, in the
// embedding's input. It writes the forecasts into the last token's rows
// of s.pred (the other rows keep the zeros they were made with) and
// returns s.pred.
func (m *Model[F]) forwardTail(s *acts[F], h, in []F, b int) []F {
	c, p, wt := m.Config, m.Params, m.wt
	l := c.Layers - 1
	a, w := &s.blocks[l], &p.Blocks[l]
	d, t := c.D, c.Tokens()
	ta := &s.tail
	gatherLast(ta.atty[:b*d], a.atty[:b*t*d], b, t, d)
	gatherLast(ta.h[:b*d], h, b, t, d)
	res2 := a.res2[:b*d]
	kernel.LinearTAdd(res2, ta.atty[:b*d], wt.proj[l], w.ProjB, ta.h[:b*d], b, d, d)
	out := s.resF[:b*d]
	m.mlpAdd(s, a, out, res2, l, b, true)
	m.normForward(s, 2*c.Layers, s.lnf, s.lnfM, s.lnfR, out, p.LNFW, p.LNFB, b)
	hx := ta.pred[:b*c.H]
	kernel.LinearT(hx, s.lnf[:b*d], wt.head, p.HeadB, b, d, c.H)
	if c.Skip {
		sk := s.skip[:b*c.H]
		kernel.LinearT(sk, s.skipInput(c, in, b), wt.skip, p.SkipB, b, c.T, c.H)
		add(hx, hx, sk)
	}
	if c.Norm != "" {
		normDenorm(hx, s.mu[:b*c.CIn], s.sd[:b*c.CIn], b, c.H, c.CIn, c.Target)
	}
	pred := s.pred[:b*t*c.H]
	for bi := range b {
		copy(pred[(bi*t+t-1)*c.H:][:c.H], hx[bi*c.H:])
	}
	return pred
}

// backwardTail mirrors forwardTail: from dpred (B,N,H), zero but in the
// last tokens' rows, it accumulates the tail's parameter gradients and
// leaves in s.dres and s.datty (B·N,D) the gradients of the last block's
// input (through the residual) and of its attention output, zero but in
// the last tokens' rows, where the full pass's loop goes on.
func (m *Model[F]) backwardTail(s *acts[F], dpred, in []F) {
	c, b := m.Config, s.b
	l := c.Layers - 1
	p, g := m.Params, m.Grads
	a, w, gw := &s.blocks[l], &p.Blocks[l], &g.Blocks[l]
	d, t := c.D, c.Tokens()
	ta := &s.tail
	dh := ta.pred[:b*c.H]
	gatherLast(dh, dpred, b, t, c.H)
	if c.Norm != "" {
		normDenormBackward(dh, dh, s.sd, b, c.H, c.CIn, c.Target)
	}
	if c.Skip {
		kernel.LinearBackward(nil, g.SkipW, g.SkipB, dh, s.skipInput(c, in, b), p.SkipW, b, c.T, c.H)
	}
	dln, dres := s.dln[:b*d], ta.dres[:b*d]
	kernel.LinearBackward(dln, g.HeadW, g.HeadB, dh, s.lnf[:b*d], p.HeadW, b, d, c.H)
	clear(dres)
	m.normBackward(s, 2*c.Layers, dres, g.LNFW, g.LNFB, dln, s.resF, s.lnfM, s.lnfR, p.LNFW, b)
	m.mlpBackward(s, dln, dres, l, b)
	m.normBackward(s, 2*l+1, dres, gw.LN2W, gw.LN2B, dln, a.res2, a.ln2Mean, a.ln2Rstd, w.LN2W, b)
	kernel.LinearBackward(ta.datt[:b*d], gw.ProjW, gw.ProjB, dres, ta.atty[:b*d], w.ProjW, b, d, d)
	scatterLast(s.dres, dres, b, t, d)
	scatterLast(s.datty, ta.datt[:b*d], b, t, d)
}
