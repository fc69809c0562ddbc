package idea

import "fmt"

// Float is the element type of a model: float32 for training, float64 for
// the gradient check.
type Float interface{ ~float32 | ~float64 }

// Site names a hook site of the model (see the package doc).
type Site string

// The sites.
const (
	SiteInput     Site = "input"
	SiteNorm      Site = "norm"
	SiteQK        Site = "qk"
	SiteLogits    Site = "logits"
	SiteHeads     Site = "heads"
	SiteAttention Site = "attention"
	SiteFFN       Site = "ffn"
	SiteMLP       Site = "mlp"
	SiteResidual  Site = "residual"
	SiteHead      Site = "head"
)

// Sites lists every site in the model's order.
var Sites = []Site{SiteInput, SiteNorm, SiteQK, SiteLogits, SiteHeads, SiteAttention, SiteFFN, SiteMLP, SiteResidual, SiteHead}

// PerBlock reports whether the site occurs once per block (qk, logits,
// heads, attention, ffn, mlp, residual) rather than once per model
// (input, head) or at every normalization (norm).
func (s Site) PerBlock() bool {
	return s == SiteQK || s == SiteLogits || s == SiteHeads || s == SiteAttention || s == SiteFFN || s == SiteMLP || s == SiteResidual
}

// Instances is the number of instances of the site in a model of layers
// blocks: one per block at a block site; 2·layers+1 at norm (block l's
// first normalization is instance 2l, its second 2l+1, the final one
// 2·layers); else one.
func (s Site) Instances(layers int) int {
	switch {
	case s == SiteNorm:
		return 2*layers + 1
	case s.PerBlock():
		return layers
	}
	return 1
}

// TokenWise reports whether the idea at the site replaces a layer that
// acts on each token alone (norm: the normalizations; ffn: the MLP), so
// that it sees every token as a window of its own: Shape{B: tokens, N:
// 1, C: D}. It cannot mix tokens, and the model may run it on any subset
// of rows (the last tokens of a forecast, the labelled tokens of a token
// track).
func (s Site) TokenWise() bool { return s == SiteNorm || s == SiteFFN }

// Shape is what an idea sees at its site: B windows of N tokens of C
// channels (C = D at most sites, H at the head, 3D at qk, 2D at heads). Heads is the
// number of attention heads at the sites inside the attention (logits,
// qk; 0 elsewhere), and Out the output's values per token where they are
// not C (the logits site: Heads·N, so that y holds B·Heads·N·N biases;
// the heads site: D, where x is 2D; 0 elsewhere).
type Shape struct{ B, N, C, Heads, Out int }

// Len is B·N·C, the length of an idea's input x.
func (s Shape) Len() int { return s.B * s.N * s.C }

// YLen is the length of an idea's output y: B·N·Out where Out is set
// (the logits site: B·Heads·N·N), Len elsewhere.
func (s Shape) YLen() int {
	if s.Out > 0 {
		return s.B * s.N * s.Out
	}
	return s.Len()
}

// Kind says how a parameter tensor is initialized and whether AdamW decays
// it.
type Kind int

const (
	Weight     Kind = iota // N(0, 0.02²), decayed
	Bias                   // zeros
	Gain                   // ones
	ZeroWeight             // zeros, decayed (a weight that starts at zero)
	Constant               // Tensor.Value, not decayed (a scale that starts where the idea says)
)

// Decayed reports whether AdamW's weight decay applies to tensors of
// kind k.
func (k Kind) Decayed() bool { return k == Weight || k == ZeroWeight }

// Tensor declares one learnable tensor of an idea at one site instance.
type Tensor struct {
	Name  string // e.g. "alpha"; the model prefixes the site and block
	Shape []int
	Kind  Kind
	Value float64 // the start value of a Constant tensor
}

// Size is the number of elements of the tensor.
func (t Tensor) Size() int {
	n := 1
	for _, s := range t.Shape {
		n *= s
	}
	return n
}

// Idea is one setting of a registered idea: its site, its learnable
// tensors and its forward/backward pair.
type Idea interface {
	// Config is the registry name and the parameters that built it.
	Config() Config
	// Site is where the model calls it.
	Site() Site
	// Identity reports whether the idea is the identity at this setting,
	// in which case the model does not call it and is the baseline bit
	// for bit.
	Identity() bool
	// Tensors lists its learnable tensors for one site instance of shape
	// s (the B of s is irrelevant); nil when it has none.
	Tensors(s Shape) []Tensor
	// State is the number of values Forward caches for Backward per
	// window (the state is laid out window by window, so the model can run
	// windows in chunks); Scratch is the scratch one Backward call on s
	// needs.
	State(s Shape) int
	Scratch(s Shape) int
	// Float32 and Float64 are its forward/backward pair in each element
	// type.
	Float32() Op[float32]
	Float64() Op[float64]
}

// Op is an idea's forward/backward pair in one element type. theta is the
// idea's tensors at this site instance, in the order of Tensors,
// concatenated (a view of the model's flat buffer).
//
// At the logits site x is the block's first LayerNorm output (B,N,D), the
// input of its queries, keys and values, and y is an additive bias on
// the attention logits (B,Heads,N,N), key-major: y[b,h,j,i] is added to
// the scaled logit q_i·k_j/√hs of query i on key j before the causal
// softmax. Only j ≤ i is read (the entries above are ignored and dy is 0
// there); dy is the gradient of the logits, and dx joins the gradient of
// the LayerNorm output that the queries, keys and values send back.
type Op[F Float] interface {
	// Forward overwrites y (s.YLen()) and state from x (s.Len()); y
	// never aliases x.
	Forward(y, state, x, theta []F, s Shape)
	// Backward mirrors Forward: it overwrites dx from dy, accumulates the
	// gradient of theta into dtheta, and may overwrite scratch. x and
	// state are Forward's. Each gradient is added into dtheta term by
	// term in row order, so a batch run in chunks (TrainStep) gets the
	// bits of one pass.
	Backward(dx, dtheta, scratch, dy, x, state, theta []F, s Shape)
}

// OpFor returns the Op of i in the element type F.
func OpFor[F Float](i Idea) Op[F] {
	var z F
	switch any(z).(type) {
	case float32:
		return any(i.Float32()).(Op[F])
	case float64:
		return any(i.Float64()).(Op[F])
	}
	panic(fmt.Sprintf("idea: OpFor: element type %T", z))
}

// Stream is an optional interface of an idea that changes how the trial
// is seeded instead of the model: Stream returns the PCG stream offset
// added to the trial's initialization and batch-order streams (the A/A
// control trains the baseline on streams disjoint from the baseline's).
type Stream interface {
	StreamOffset() uint64
}

// Prober is an optional interface of an idea whose theory the report
// checks on a trained model: NewProbe returns an accumulator that the
// harness feeds, batch by batch of the test windows, with the idea's state
// and input at every site instance (IdeaState and IdeaInput of the model).
type Prober interface {
	NewProbe(instances int, s Shape) Probe
}

// Probe accumulates an idea's behaviour over evaluation batches.
type Probe interface {
	// Add feeds site instance l's state and input of one batch of s.B
	// windows, and its tensors theta (nil when it has none).
	Add(l int, state, x, theta []float32, s Shape)
}
