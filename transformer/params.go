package transformer

import (
	"fmt"
	"math/rand/v2"

	"github.com/ideabench/ideabench/idea"
)

// Block holds the parameter views of one block, each a sub-slice of the
// flat buffer. Weights are (out,in) as PyTorch's nn.Linear stores them.
type Block[F Float] struct {
	LN1W, LN1B   []F // (D) first LayerNorm gain and bias
	QKVW, QKVB   []F // (3D,D), (3D) fused query/key/value projection
	ProjW, ProjB []F // (D,D), (D) attention output projection
	LN2W, LN2B   []F // (D) second LayerNorm gain and bias
	FC1W, FC1B   []F // (4D,D), (4D) MLP expansion
	FC2W, FC2B   []F // (D,4D), (D) MLP contraction
}

// Params is one flat buffer with named views: Adam is one loop over Data,
// and a checkpoint writes each view under its Name.
type Params[F Float] struct {
	Data   []F        // every parameter, in the order of Tensors
	EmbW   []F        // (D,P·CIn) input embedding weight, P = PatchLen (nil in token mode)
	EmbB   []F        // (D) input embedding bias (nil in token mode)
	Tok    []F        // (Vocab,D) token embedding (token mode; nil otherwise)
	Pos    []F        // (N,D) learned positional embedding, N = Tokens (nil with positions "none")
	Blocks []Block[F] // (L)
	LNFW   []F        // (D) final LayerNorm gain
	LNFB   []F        // (D) final LayerNorm bias
	HeadW  []F        // (H,D) forecast head weight; (Vocab,D) in token mode
	HeadB  []F        // (H) forecast head bias; (Vocab) in token mode
	SkipW  []F        // (H,T) linear skip weight (Config.Skip; nil without)
	SkipB  []F        // (H) linear skip bias (Config.Skip; nil without)
	// Idea holds the idea's tensors at each of its site instances (one
	// per block at a block site, one otherwise), each the concatenation
	// of its tensors in the idea's order; nil without learnable tensors.
	Idea [][]F
	// Tensors names every view in buffer order.
	Tensors []TensorInfo
}

// TensorInfo names one view of the flat buffer.
type TensorInfo struct {
	Name   string  // PyTorch-style name, e.g. "blocks.0.attn.qkv.weight"
	Shape  []int   // as PyTorch stores it
	Offset int     // first element in the flat buffer
	Kind   Kind    // how it is initialized
	Value  float64 // the start value of a Constant tensor (an idea's)
}

// Size is the number of elements of the view.
func (t TensorInfo) Size() int {
	n := 1
	for _, s := range t.Shape {
		n *= s
	}
	return n
}

// Kind says how a tensor is initialized and whether AdamW decays it
// (idea.Kind, shared with the ideas' tensors).
type Kind = idea.Kind

// The kinds.
const (
	Weight     = idea.Weight     // N(0, 0.02²), decayed
	Bias       = idea.Bias       // zeros
	Gain       = idea.Gain       // ones (LayerNorm weight)
	ZeroWeight = idea.ZeroWeight // zeros, decayed (a weight that starts at zero)
	Constant   = idea.Constant   // TensorInfo.Value, not decayed
)

// layout lists the tensors of a config in buffer order.
func layout(c Config) []TensorInfo {
	var ts []TensorInfo
	off := 0
	add := func(name string, k Kind, shape ...int) {
		t := TensorInfo{Name: name, Shape: shape, Offset: off, Kind: k}
		off += t.Size()
		ts = append(ts, t)
	}
	d := c.D
	if c.tokenMode() {
		add("tok_embed.weight", Weight, c.Vocab, d)
	} else {
		add("embed.weight", Weight, d, c.PatchLen()*c.CIn)
		add("embed.bias", Bias, d)
	}
	if c.learnedPositions() {
		add("pos_embed", Weight, c.Tokens(), d)
	}
	for l := range c.Layers {
		p := fmt.Sprintf("blocks.%d.", l)
		add(p+"ln1.weight", Gain, d)
		add(p+"ln1.bias", Bias, d)
		add(p+"attn.qkv.weight", Weight, 3*d, d)
		add(p+"attn.qkv.bias", Bias, 3*d)
		add(p+"attn.proj.weight", Weight, d, d)
		add(p+"attn.proj.bias", Bias, d)
		add(p+"ln2.weight", Gain, d)
		add(p+"ln2.bias", Bias, d)
		add(p+"mlp.fc1.weight", Weight, 4*d, d)
		add(p+"mlp.fc1.bias", Bias, 4*d)
		add(p+"mlp.fc2.weight", Weight, d, 4*d)
		add(p+"mlp.fc2.bias", Bias, d)
	}
	add("ln_f.weight", Gain, d)
	add("ln_f.bias", Bias, d)
	head := Weight
	if c.Skip {
		head = ZeroWeight // the model starts as its skip path
	}
	add("head.weight", head, c.outputs(), d)
	add("head.bias", Bias, c.outputs())
	if c.Skip {
		add("skip.weight", Weight, c.H, c.T)
		add("skip.bias", Bias, c.H)
	}
	if i := c.active(); i != nil {
		for _, prefix := range ideaPrefixes(c, i) {
			for _, t := range i.Tensors(c.SiteShape(i.Site(), 1)) {
				add(prefix+t.Name, t.Kind, t.Shape...)
				ts[len(ts)-1].Value = t.Value
			}
		}
	}
	return ts
}

// ideaPrefixes returns the tensor-name prefix of each site instance of
// idea i: "blocks.{l}.{site}.{name}." per block at a block site;
// "blocks.{l}.norm1.{name}.", "blocks.{l}.norm2.{name}." and
// "norm_f.{name}." at the norm site; else "{site}.{name}.".
func ideaPrefixes(c Config, i idea.Idea) []string {
	name := i.Config().Name
	var out []string
	switch {
	case i.Site() == idea.SiteNorm:
		for l := range c.Layers {
			out = append(out, fmt.Sprintf("blocks.%d.norm1.%s.", l, name), fmt.Sprintf("blocks.%d.norm2.%s.", l, name))
		}
		return append(out, fmt.Sprintf("norm_f.%s.", name))
	case !i.Site().PerBlock():
		return []string{fmt.Sprintf("%s.%s.", i.Site(), name)}
	}
	for l := range c.Layers {
		out = append(out, fmt.Sprintf("blocks.%d.%s.%s.", l, i.Site(), name))
	}
	return out
}

// SiteShape is the shape an idea sees at site on b windows: (B,N,D), or
// (B,N,H) at the head; at a token-wise site (norm, ffn) the B·N tokens
// as windows of one token, (B·N,1,D).
func (c Config) SiteShape(site idea.Site, b int) idea.Shape {
	switch site {
	case idea.SiteNorm, idea.SiteFFN:
		return RowShape(b*c.Tokens(), c.D)
	case idea.SiteHead:
		return idea.Shape{B: b, N: c.Tokens(), C: c.H}
	case idea.SiteLogits:
		return idea.Shape{B: b, N: c.Tokens(), C: c.D, Heads: c.Heads, Out: c.Heads * c.Tokens()}
	case idea.SiteQK:
		return idea.Shape{B: b, N: c.Tokens(), C: 3 * c.D, Heads: c.Heads}
	case idea.SiteHeads:
		return idea.Shape{B: b, N: c.Tokens(), C: 2 * c.D, Heads: c.Heads, Out: c.D}
	}
	return idea.Shape{B: b, N: c.Tokens(), C: c.D}
}

// RowShape is the shape of rows tokens at a token-wise site
// (idea.Site.TokenWise): rows windows of one token of d channels.
func RowShape(rows, d int) idea.Shape { return idea.Shape{B: rows, N: 1, C: d} }

// SiteInstances is the number of instances of site in the model
// (idea.Site.Instances).
func (c Config) SiteInstances(site idea.Site) int { return site.Instances(c.Layers) }

// NumParams is the number of scalar parameters of a config.
func (c Config) NumParams() int {
	ts := layout(c)
	last := ts[len(ts)-1]
	return last.Offset + last.Size()
}

// NewParams returns zeroed parameters for c with views into one buffer.
func NewParams[F Float](c Config) *Params[F] {
	ts := layout(c)
	p := &Params[F]{Data: make([]F, c.NumParams()), Tensors: ts}
	i := 0
	next := func() []F {
		t := ts[i]
		i++
		return p.Data[t.Offset : t.Offset+t.Size() : t.Offset+t.Size()]
	}
	if c.tokenMode() {
		p.Tok = next()
	} else {
		p.EmbW, p.EmbB = next(), next()
	}
	if c.learnedPositions() {
		p.Pos = next()
	}
	p.Blocks = make([]Block[F], c.Layers)
	for l := range p.Blocks {
		b := &p.Blocks[l]
		b.LN1W, b.LN1B = next(), next()
		b.QKVW, b.QKVB = next(), next()
		b.ProjW, b.ProjB = next(), next()
		b.LN2W, b.LN2B = next(), next()
		b.FC1W, b.FC1B = next(), next()
		b.FC2W, b.FC2B = next(), next()
	}
	p.LNFW, p.LNFB = next(), next()
	p.HeadW, p.HeadB = next(), next()
	if c.Skip {
		p.SkipW, p.SkipB = next(), next()
	}
	if in := c.active(); in != nil {
		per := len(in.Tensors(c.SiteShape(in.Site(), 1)))
		for range ideaPrefixes(c, in) {
			if per == 0 {
				p.Idea = append(p.Idea, nil)
				continue
			}
			first := ts[i]
			for range per {
				next()
			}
			end := ts[i-1].Offset + ts[i-1].Size()
			p.Idea = append(p.Idea, p.Data[first.Offset:end:end])
		}
	}
	return p
}

// View returns the named tensor's slice of the buffer.
func (p *Params[F]) View(t TensorInfo) []F {
	return p.Data[t.Offset : t.Offset+t.Size()]
}

// InitStd is the standard deviation of weight and positional
// initialization (GPT-2's 0.02).
const InitStd = 0.02

// Init overwrites p: weights and positional embedding N(0, InitStd²),
// biases 0, LayerNorm gains 1, an idea's constants their value. Draws run
// over Tensors in buffer order, so a seed fixes every bit.
func (p *Params[F]) Init(r *rand.Rand) {
	for _, t := range p.Tensors {
		v := p.View(t)
		for i := range v {
			switch t.Kind {
			case Weight:
				v[i] = F(r.NormFloat64() * InitStd)
			case Bias, ZeroWeight:
				v[i] = 0
			case Gain:
				v[i] = 1
			case Constant:
				v[i] = F(t.Value)
			}
		}
	}
}
