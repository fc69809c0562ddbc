package transformer

import "github.com/ideabench/ideabench/idea"

// The token-wise sites (idea.Site.TokenWise): an idea at norm replaces
// every LayerNorm, one at ffn every block's MLP. Each runs on rows rows
// of (rows,D) as RowShape(rows, D), so the full pass, the tail on the
// last tokens and the token head's labelled rows call them alike.

// normForward runs normalization instance i (block l's first 2l, its
// second 2l+1, the final 2·Layers) on rows rows: out from inp, (rows,D)
// each, by the LayerNorm of gain w and bias b (mean and rstd kept for
// backward) or, with an idea at the norm site, by the idea (its state in
// instance i's).
func (m *Model[F]) normForward(s *acts[F], i int, out, mean, rstd, inp, w, b []F, rows int) {
	d := m.Config.D
	if m.site != idea.SiteNorm {
		layerNormForward(out[:rows*d], mean[:rows], rstd[:rows], inp[:rows*d], w, b, rows, d)
		return
	}
	sh := RowShape(rows, d)
	m.op.Forward(out[:rows*d], s.norms[i].state[:rows*m.idea.State(sh)], inp[:rows*d], m.ideaTheta(i), sh)
}

// normBackward mirrors normForward: it adds d inp into dinp (rows,D)
// from dout, the gradient of out, and accumulates the LayerNorm's
// gradients into dw and db, or the idea's into instance i's.
func (m *Model[F]) normBackward(s *acts[F], i int, dinp, dw, db, dout, inp, mean, rstd, w []F, rows int) {
	d := m.Config.D
	if m.site != idea.SiteNorm {
		layerNormBackward(dinp[:rows*d], dw, db, dout[:rows*d], inp[:rows*d], mean[:rows], rstd[:rows], w, s.lnG[:rows], s.lnGX[:rows], rows, d)
		return
	}
	sh := RowShape(rows, d)
	dx := s.dsite[:rows*d]
	m.op.Backward(dx, m.ideaGrad(i), s.scratch, dout[:rows*d], inp[:rows*d], s.norms[i].state[:rows*m.idea.State(sh)], m.ideaTheta(i), sh)
	add(dinp[:rows*d], dinp[:rows*d], dx)
}

// ffnForward runs the idea at the ffn site of block l on rows rows of
// the block's second normalization's output (a.ln2) and adds its output
// to res2: out = res2 + f(ln2), (rows,D).
func (m *Model[F]) ffnForward(a *blockActs[F], out, res2 []F, l, rows int) {
	d := m.Config.D
	sh := RowShape(rows, d)
	y := a.site.y[:rows*d]
	m.op.Forward(y, a.site.state[:rows*m.idea.State(sh)], a.ln2[:rows*d], m.ideaTheta(l), sh)
	add(out[:rows*d], res2[:rows*d], y)
}

// ffnBackward mirrors ffnForward: dln (rows,D) is overwritten with d
// ln2 from dout, d out; the idea's gradients accumulate into block l's.
func (m *Model[F]) ffnBackward(s *acts[F], dln, dout []F, l, rows int) {
	d := m.Config.D
	a := &s.blocks[l]
	sh := RowShape(rows, d)
	m.op.Backward(dln[:rows*d], m.ideaGrad(l), s.scratch, dout[:rows*d], a.ln2[:rows*d], a.site.state[:rows*m.idea.State(sh)], m.ideaTheta(l), sh)
}

// ideaGrad is the gradient of the idea's tensors at site instance l (nil
// without any).
func (m *Model[F]) ideaGrad(l int) []F {
	if m.Grads.Idea == nil {
		return nil
	}
	return m.Grads.Idea[l]
}

// tailSafe reports whether the tails (the last block from its projection
// on, at the last tokens or the labelled ones) may run with an idea at
// site: none there, or one before the last attention's output, or a
// token-wise one.
func tailSafe(in idea.Idea) bool {
	if in == nil {
		return true
	}
	switch s := in.Site(); {
	case s == idea.SiteInput, s == idea.SiteQK, s == idea.SiteLogits, s.TokenWise():
		return true
	}
	return false
}
