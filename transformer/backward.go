package transformer

import (
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/kernel"
)

// Backward mirrors Forward: from dpred (B,N,H), the gradient of the loss
// with respect to the last Forward's forecasts, it accumulates parameter
// gradients into m.Grads and, when dx is not nil, writes the input
// gradient into dx (B,T,CIn). Steps run in the reverse order of Forward.
func (m *Model[F]) Backward(dx, dpred []F) { m.backward(m.full, dx, dpred) }

// backward is Backward for the pass that forward left in s.
func (m *Model[F]) backward(s *acts[F], dx, dpred []F) {
	c, b := m.Config, s.b
	bt, d, t := b*c.Tokens(), c.D, c.Tokens()
	if !s.train {
		panic("transformer: Backward without a Forward (the last call was Predict)")
	}
	if c.tokenMode() {
		if dx != nil {
			panic("transformer: a token model has no input gradient")
		}
	} else if len(dpred) != bt*c.H {
		panic("transformer: dpred length is not B·N·H of the last Forward")
	}
	if dx != nil && len(dx) != b*c.T*c.CIn {
		panic("transformer: dx length is not B·T·CIn")
	}
	p, g := m.Params, m.Grads
	dres, dln := s.dres[:bt*d], s.dln[:bt*d]

	in, dxe := s.x, dx // the embedding's input and its gradient
	if c.Norm != "" {
		in = s.xn[:b*c.T*c.CIn]
		if dx != nil {
			dxe = s.dxn[:b*c.T*c.CIn]
		}
	}
	// The head, the final LayerNorm and the last block's branches write
	// dres (d of the last block's input through its residual) and datty
	// (d of its attention output); the loop goes on from its attention.
	tail := s.step && c.tailRows() || c.tokenTail()
	if tail && dx != nil {
		panic("transformer: the tail pass (TrainStep) keeps no input gradient")
	}
	var dxs []F // the input gradient through the skip path
	switch {
	case c.tokenMode():
		m.backwardTokenHead(s, dpred)
	case tail:
		m.backwardTail(s, dpred, in)
	default:
		dxs = m.backwardHead(s, dx, dpred, in)
	}
	for l := len(s.blocks) - 1; l >= 0; l-- {
		a, w, gw := &s.blocks[l], &p.Blocks[l], &g.Blocks[l]
		if !tail || l < len(s.blocks)-1 {
			m.backwardBranches(s, l)
		}
		datty, dqkv := s.datty[:bt*d], s.dqkv[:bt*3*d]
		var dbias []F
		if m.site == idea.SiteLogits {
			dbias = s.dlogits[:b*c.Heads*t*t]
		}
		qkv := a.qkv[:bt*3*d]
		if m.site == idea.SiteQK {
			qkv = a.site.y[:bt*3*d] // what the attention read
		}
		attentionBackward(dqkv, s.datt, s.att2, s.kt, datty, a.att, qkv, dbias, b, t, d, c.Heads)
		if m.site == idea.SiteQK {
			m.ideaBackward(s, s.dsite[:bt*3*d], dqkv, a.site, l)
			dqkv = s.dsite[:bt*3*d]
		}
		kernel.LinearBackward(dln, gw.QKVW, gw.QKVB, dqkv, a.ln1[:bt*d], w.QKVW, bt, d, 3*d)
		if m.site == idea.SiteHeads {
			// The gate's path to ln1(h) joins the queries', keys' and
			// values' (backwardBranches left it in s.dsite).
			dz := s.dsite[:bt*2*d]
			for r := range bt {
				add(dln[r*d:][:d], dln[r*d:][:d], dz[r*2*d+d:][:d])
			}
		}
		if dbias != nil {
			// The bias's path to the LayerNorm output joins the queries',
			// keys' and values'.
			m.ideaBackward(s, s.dsite[:bt*d], dbias, a.site, l)
			add(dln, dln, s.dsite[:bt*d])
		}
		m.normBackward(s, 2*l, dres, gw.LN1W, gw.LN1B, dln, a.res, a.ln1Mean, a.ln1Rstd, w.LN1W, bt)
	}
	demb := dres // d of block 0's input
	if m.site == idea.SiteInput {
		m.ideaBackward(s, s.dsite[:bt*d], dres, s.site, 0)
		demb = s.dsite[:bt*d]
	}
	// emb = x·Wᵀ + b + pos (or Tok[ids] + pos): demb is d emb.
	for r0 := 0; r0 < bt && g.Pos != nil; r0 += t { // d pos, window after window
		add(g.Pos, g.Pos, demb[r0*d:(r0+t)*d])
	}
	if c.tokenMode() {
		tokenEmbedBackward(g.Tok, demb, s.tok.ids[:bt], d)
		return
	}
	kernel.LinearBackward(dxe, g.EmbW, g.EmbB, demb, in, p.EmbW, bt, c.PatchLen()*c.CIn, d)
	for i, g := range dxs { // the skip read the target channel
		dxe[i*c.CIn+c.Target] += g
	}
	if c.Norm != "" && dx != nil {
		normInputBackward(c.Norm, dx, dxe, dpred, s.pred[:bt*c.H], in, s.mu, s.sd, b, c.T, t*c.H, c.CIn, c.Target)
	}
}

// backwardHead runs the backward pass of the head, the skip path and the
// final LayerNorm over every token: dres gets d of the last block's
// output. It returns the input gradient through the skip path (B,T) when
// dx is not nil.
func (m *Model[F]) backwardHead(s *acts[F], dx, dpred, in []F) (dxs []F) {
	c, b := m.Config, s.b
	bt, d, t := b*c.Tokens(), c.D, c.Tokens()
	p, g := m.Params, m.Grads
	dres, dln := s.dres[:bt*d], s.dln[:bt*d]
	dhead := dpred
	if c.Norm != "" {
		// The head's gradient now, the input's after the embedding.
		dhead = s.dhead[:bt*c.H]
		normDenormBackward(dhead, dpred, s.sd, b, t*c.H, c.CIn, c.Target)
	}
	if m.site == idea.SiteHead {
		m.ideaBackward(s, s.dsite[:bt*c.H], dhead, s.site, 0)
		dhead = s.dsite[:bt*c.H]
	}
	if c.Skip {
		ds := s.dskip[:b*c.H]
		for bi := range b {
			copy(ds[bi*c.H:(bi+1)*c.H], dhead[(bi*t+t-1)*c.H:])
		}
		if dx != nil {
			dxs = s.dxs[:b*c.T]
		}
		kernel.LinearBackward(dxs, g.SkipW, g.SkipB, ds, s.skipInput(c, in, b), p.SkipW, b, c.T, c.H)
	}
	kernel.LinearBackward(dln, g.HeadW, g.HeadB, dhead, s.lnf[:bt*d], p.HeadW, bt, d, c.H)
	clear(dres)
	m.normBackward(s, 2*c.Layers, dres, g.LNFW, g.LNFB, dln, s.resF, s.lnfM, s.lnfR, p.LNFW, bt)
	return dxs
}

// backwardBranches runs the backward pass of block l's MLP branch, its
// second LayerNorm and its attention projection: from dres, d of the
// block's output, it leaves d of its input through the residual in dres
// and d of the attention output in s.datty.
func (m *Model[F]) backwardBranches(s *acts[F], l int) {
	c, b := m.Config, s.b
	bt, d := b*c.Tokens(), c.D
	a, w, gw := &s.blocks[l], &m.Params.Blocks[l], &m.Grads.Blocks[l]
	dres, dln := s.dres[:bt*d], s.dln[:bt*d]
	if m.site == idea.SiteResidual {
		// h_out = f(res2 + mlp): dres becomes d of f's input.
		m.ideaBackward(s, s.dsite[:bt*d], dres, a.site, l)
		copy(dres, s.dsite[:bt*d])
	}
	// h_out = res2 + fc2(gelu(fc1(ln2(res2)))): dres is d h_out.
	// d fc1 = (dres·W2)⊙gelu', the product in the Gemm's epilogue.
	dmlp := dres // d of fc2's output
	if m.site == idea.SiteMLP {
		m.ideaBackward(s, s.dsite[:bt*d], dres, a.site, l)
		dmlp = s.dsite[:bt*d]
	}
	m.mlpBackward(s, dln, dmlp, l, bt)
	m.normBackward(s, 2*l+1, dres, gw.LN2W, gw.LN2B, dln, a.res2, a.ln2Mean, a.ln2Rstd, w.LN2W, bt)
	// res2 = res + f(proj(attn(ln1(res)))): dres is now d res2.
	dproj := dres // d proj = d res2
	if m.site == idea.SiteAttention {
		dproj = s.dproj[:bt*d]
		m.ideaBackward(s, dproj, dres, a.site, l)
	}
	projIn := a.atty[:bt*d]
	if m.site == idea.SiteHeads {
		projIn = a.site.y[:bt*d]
	}
	kernel.LinearBackward(s.datty[:bt*d], gw.ProjW, gw.ProjB, dproj, projIn, w.ProjW, bt, d, d)
	if m.site == idea.SiteHeads {
		// s.datty is d of the idea's output: its input's gradient splits
		// into the heads' outputs' (back into s.datty) and ln1(h)'s,
		// left in s.dsite for the LayerNorm's backward pass.
		dx := s.dsite[:bt*2*d]
		m.ideaBackward(s, dx, s.datty[:bt*d], a.site, l)
		for r := range bt {
			copy(s.datty[r*d:][:d], dx[r*2*d:][:d])
		}
	}
}

// mlpBackward mirrors mlpAdd's branch on rows rows of block l: dln
// (rows,D) is overwritten with d of the second normalization's output
// from dout, d of the branch's output; the gradients of fc2 and fc1 (or
// of the idea at the ffn site) accumulate.
func (m *Model[F]) mlpBackward(s *acts[F], dln, dout []F, l, rows int) {
	if m.site == idea.SiteFFN {
		m.ffnBackward(s, dln, dout, l, rows)
		return
	}
	d := m.Config.D
	a, w, gw := &s.blocks[l], &m.Params.Blocks[l], &m.Grads.Blocks[l]
	// d fc1 = (dout·W2)⊙gelu', the product in the Gemm's epilogue.
	dfc := s.dfc[:rows*4*d]
	kernel.LinearBackwardScaled(dfc, gw.FC2W, gw.FC2B, dout[:rows*d], a.gelu[:rows*4*d], w.FC2W, a.geluGrad[:rows*4*d], rows, 4*d, d)
	kernel.LinearBackward(dln[:rows*d], gw.FC1W, gw.FC1B, dfc, a.ln2[:rows*d], w.FC1W, rows, d, 4*d)
}

// ideaBackward mirrors ideaForward at site instance l of the pass in s:
// dx (overwritten) from dy, the idea's tensor gradients accumulated into
// m.Grads.
func (m *Model[F]) ideaBackward(s *acts[F], dx, dy []F, a siteActs[F], l int) {
	sh := m.Config.SiteShape(m.site, s.b)
	m.op.Backward(dx, m.ideaGrad(l), s.scratch, dy, a.x[:sh.Len()], a.state[:sh.B*m.idea.State(sh)], m.ideaTheta(l), sh)
}
