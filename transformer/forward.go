package transformer

import (
	"fmt"

	"github.com/ideabench/ideabench/gate"
	"github.com/ideabench/ideabench/internal/kernel"
)

// Float is the element type of a model: float32 for training, float64 for
// the gradient check.
type Float = kernel.Float

// blockActs caches what one block's backward pass needs.
type blockActs[F Float] struct {
	res       []F // (B,T,D) block input; block 0's holds the embedding
	ln1       []F // (B,T,D)
	ln1Mean   []F // (B,T)
	ln1Rstd   []F // (B,T)
	qkv       []F // (B,T,3D)
	att       []F // (B,NH,T,T) softmax probabilities, lower triangle
	atty      []F // (B,T,D) concatenated head outputs
	proj      []F // (B,T,D) attention branch output a, the gate's input
	gateState []F // (B,T) gate state s
	gated     []F // (B,T,D) gate output a/(1+β·s)
	res2      []F // (B,T,D) res + gated
	ln2       []F // (B,T,D)
	ln2Mean   []F // (B,T)
	ln2Rstd   []F // (B,T)
	geluGrad  []F // (B,T,4D) gelu' at the MLP pre-activation (which it holds until GELU runs)
	gelu      []F // (B,T,4D)
	fc2       []F // (B,T,D)
}

// Model is transformer_tiny with its parameters, gradients and the
// activation cache of the last Forward call, sized for up to MaxBatch
// windows. A Model is not safe for concurrent use; run one per goroutine.
type Model[F Float] struct {
	Config   Config
	MaxBatch int
	Params   *Params[F] // trained weights
	Grads    *Params[F] // gradients, same layout; Backward accumulates here

	b      int  // batch of the last Forward or Predict
	train  bool // the last call was Forward, so Backward may run
	x      []F  // (B,T,CIn) input of the last Forward, not owned
	blocks []blockActs[F]
	resF   []F // (B,T,D) output of the last block
	lnf    []F // (B,T,D)
	lnfM   []F // (B,T)
	lnfR   []F // (B,T)
	pred   []F // (B,T,H)

	// Backward scratch.
	dres  []F // (B,T,D) gradient of the residual stream
	dln   []F // (B,T,D)
	dqkv  []F // (B,T,3D)
	datty []F // (B,T,D)
	dproj []F // (B,T,D)
	dfc   []F // (B,T,4D)
	dgelu []F // (B,T,4D)
	datt  []F // (T,T) attention score gradients
	kt    []F // (hs,T) packed Kᵀ or Vᵀ of one head
	dgs   []F // (T) gate reverse-scan scratch
	lnG   []F // (B,T) LayerNorm backward row means of g
	lnGX  []F // (B,T) LayerNorm backward row means of g·x̂
	dpred []F // (B,T,H)
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
	m := &Model[F]{Config: c, MaxBatch: maxBatch, Params: NewParams[F](c), Grads: NewParams[F](c)}
	bt, d, t := maxBatch*c.T, c.D, c.T
	mk := func(n int) []F { return make([]F, n) }
	m.blocks = make([]blockActs[F], c.Layers)
	for l := range m.blocks {
		m.blocks[l] = blockActs[F]{
			res: mk(bt * d), ln1: mk(bt * d), ln1Mean: mk(bt), ln1Rstd: mk(bt),
			qkv: mk(bt * 3 * d), att: mk(maxBatch * c.Heads * t * t), atty: mk(bt * d),
			proj: mk(bt * d), gateState: mk(bt), gated: mk(bt * d), res2: mk(bt * d),
			ln2: mk(bt * d), ln2Mean: mk(bt), ln2Rstd: mk(bt),
			geluGrad: mk(bt * 4 * d), gelu: mk(bt * 4 * d), fc2: mk(bt * d),
		}
	}
	m.resF, m.lnf, m.lnfM, m.lnfR, m.pred = mk(bt*d), mk(bt*d), mk(bt), mk(bt), mk(bt*c.H)
	m.dres, m.dln, m.dqkv, m.datty, m.dproj = mk(bt*d), mk(bt*d), mk(bt*3*d), mk(bt*d), mk(bt*d)
	m.dfc, m.dgelu, m.datt, m.dgs, m.dpred = mk(bt*4*d), mk(bt*4*d), mk(t*t), mk(t), mk(bt*c.H)
	m.kt = mk(d / c.Heads * t)
	m.lnG, m.lnGX = mk(bt), mk(bt)
	return m, nil
}

// Forward runs the model on b windows x (B,T,CIn) and returns the forecasts
// pred (B,T,H), a view into the model valid until the next Forward or
// Predict. The model keeps x (not a copy) and what else Backward needs.
// Per block:
//
//	h = h + gate(proj(attn(ln1(h))))
//	h = h + fc2(gelu(fc1(ln2(h))))
func (m *Model[F]) Forward(x []F, b int) []F { return m.forward(x, b, true) }

// Predict is Forward for evaluation: the same forecasts, bit for bit, without
// the work kept only for Backward (GELU's derivative). Backward may not
// follow it. GateState and GateInput describe it as they do Forward.
func (m *Model[F]) Predict(x []F, b int) []F { return m.forward(x, b, false) }

func (m *Model[F]) forward(x []F, b int, train bool) []F {
	c := m.Config
	if b <= 0 || b > m.MaxBatch {
		panic(fmt.Sprintf("transformer: batch %d outside [1,%d]", b, m.MaxBatch))
	}
	if len(x) != b*c.T*c.CIn {
		panic("transformer: input length is not B·T·CIn")
	}
	m.b, m.x, m.train = b, x, train
	p := m.Params
	bt, d, t := b*c.T, c.D, c.T

	emb := m.blocks[0].res[:bt*d]
	kernel.Linear(emb, x, p.EmbW, p.EmbB, bt, c.CIn, d)
	for r := range bt {
		kernel.Axpy(emb[r*d:r*d+d], 1, p.Pos[(r%t)*d:(r%t)*d+d])
	}
	h := emb
	for l := range m.blocks {
		a, w := &m.blocks[l], &p.Blocks[l]
		layerNormForward(a.ln1[:bt*d], a.ln1Mean[:bt], a.ln1Rstd[:bt], h, w.LN1W, w.LN1B, bt, d)
		kernel.Linear(a.qkv[:bt*3*d], a.ln1[:bt*d], w.QKVW, w.QKVB, bt, d, 3*d)
		attentionForward(a.atty[:bt*d], a.att, m.kt, a.qkv[:bt*3*d], b, t, d, c.Heads)
		kernel.Linear(a.proj[:bt*d], a.atty[:bt*d], w.ProjW, w.ProjB, bt, d, d)
		gate.Forward(a.gated[:bt*d], a.gateState[:bt], a.proj[:bt*d], b, t, d, c.Gate)
		res2 := a.res2[:bt*d]
		for i, v := range h {
			res2[i] = v + a.gated[i]
		}
		layerNormForward(a.ln2[:bt*d], a.ln2Mean[:bt], a.ln2Rstd[:bt], res2, w.LN2W, w.LN2B, bt, d)
		kernel.Linear(a.geluGrad[:bt*4*d], a.ln2[:bt*d], w.FC1W, w.FC1B, bt, d, 4*d)
		if train {
			geluForward(a.gelu[:bt*4*d], a.geluGrad[:bt*4*d], a.geluGrad[:bt*4*d])
		} else {
			geluValue(a.gelu[:bt*4*d], a.geluGrad[:bt*4*d])
		}
		kernel.Linear(a.fc2[:bt*d], a.gelu[:bt*4*d], w.FC2W, w.FC2B, bt, 4*d, d)
		out := m.resF[:bt*d]
		if l+1 < len(m.blocks) {
			out = m.blocks[l+1].res[:bt*d]
		}
		for i, v := range res2 {
			out[i] = v + a.fc2[i]
		}
		h = out
	}
	layerNormForward(m.lnf[:bt*d], m.lnfM[:bt], m.lnfR[:bt], h, p.LNFW, p.LNFB, bt, d)
	pred := m.pred[:bt*c.H]
	kernel.Linear(pred, m.lnf[:bt*d], p.HeadW, p.HeadB, bt, d, c.H)
	return pred
}

// GateState returns block l's gate state s (B,T) of the last Forward or
// Predict.
func (m *Model[F]) GateState(l int) []F {
	return m.blocks[l].gateState[:m.b*m.Config.T]
}

// GateInput returns block l's gate input a (B,T,D) of the last Forward or
// Predict:
// the attention branch after its output projection.
func (m *Model[F]) GateInput(l int) []F {
	return m.blocks[l].proj[:m.b*m.Config.T*m.Config.D]
}
