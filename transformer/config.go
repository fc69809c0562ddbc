package transformer

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/ideabench/ideabench/internal/archname"

	"github.com/ideabench/ideabench/idea"
)

// Config is the architecture of one transformer_tiny model.
type Config struct {
	D      int `json:"d"`      // model width d
	Heads  int `json:"heads"`  // attention heads; must divide D
	Layers int `json:"layers"` // number of blocks L
	T      int `json:"t"`      // context length (positions)
	H      int `json:"h"`      // forecast horizon: each position predicts the next H values
	CIn    int `json:"c_in"`   // input channels per position
	// Idea is the architectural idea plugged in at its site (package
	// idea); zero, or an idea at its identity setting, is the baseline.
	Idea idea.Config `json:"idea,omitzero"`

	// Patch is the number of consecutive input positions one token
	// embeds (PatchTST-style, non-overlapping, stride Patch); 0 or 1 is one
	// token per position. It must divide T.
	Patch int `json:"patch,omitempty"`
	// Norm is the per-window instance normalization: "" none, "revin"
	// (each window's channels by their own mean and std, Kim et al. 2022)
	// or "last" (minus each channel's last input, NLinear's); the forecast
	// is taken back with the target channel's statistics (see norm.go).
	Norm string `json:"norm,omitempty"`
	// Target is the index of the forecast channel among the CIn inputs:
	// Norm takes the forecast back with its statistics, Skip reads it.
	Target int `json:"target,omitempty"`
	// Skip adds a linear map of the target channel's T (normalized)
	// inputs to the H steps to the last token's forecast: a
	// DLinear/NLinear-style path beside the transformer. The head's weight
	// then starts at zero, so a model whose skip starts at a fitted
	// linear map (SetSkip) starts as that forecaster.
	Skip bool `json:"skip,omitempty"`
	// Loss names the tokens whose forecasts the training loss scores:
	// "" or "all" every token (each forecasts the H values after its
	// last input), "last" only the last token, the one evaluated. Norm
	// needs "last": a window's statistics include the inputs that earlier
	// tokens forecast.
	Loss string `json:"loss,omitempty"`

	// Vocab, when positive, selects token mode (token.go): the input is
	// a sequence of token ids in [0, Vocab), embedded by a (Vocab,D)
	// table, and the head maps each labelled position to Vocab logits.
	// CIn, H, Patch, Norm, Target, Skip and Loss must then be unset.
	Vocab int `json:"vocab,omitempty"`
	// Positions is the position embedding: "" or "learned" a learned
	// absolute (T,D) table added to the embedding, "none" none (the
	// causal mask alone tells positions apart).
	Positions string `json:"positions,omitempty"`
}

// Positions values (package archname's).
const (
	PositionsLearned = archname.PositionsLearned
	PositionsNone    = archname.PositionsNone
)

// tokenMode reports whether c is a token model (Vocab > 0).
func (c Config) tokenMode() bool { return c.Vocab > 0 }

// learnedPositions reports whether c adds a learned position embedding.
func (c Config) learnedPositions() bool { return c.Positions != PositionsNone }

// outputs is the width of the head: Vocab in token mode, else H.
func (c Config) outputs() int {
	if c.tokenMode() {
		return c.Vocab
	}
	return c.H
}

// Loss values (package archname's).
const (
	LossAll  = archname.LossAll
	LossLast = archname.LossLast
)

// PatchLen is the number of input positions per token: Patch, or 1.
func (c Config) PatchLen() int { return max(c.Patch, 1) }

// Tokens is the number of tokens N = T/PatchLen the blocks run over.
func (c Config) Tokens() int { return c.T / c.PatchLen() }

// lastOnly reports whether the training loss scores the last token only.
func (c Config) lastOnly() bool { return c.Loss == LossLast }

// DefaultConfig is the reference architecture: d=32, 4 heads, L=2, T=32,
// H=8, one input channel, no gate.
func DefaultConfig() Config {
	return Config{D: 32, Heads: 4, Layers: 2, T: 32, H: 8, CIn: 1}
}

// Validate reports every invalid field, joined into one error, each naming
// the field and the fix.
func (c Config) Validate() error {
	var errs []error
	if c.Vocab < 0 {
		errs = append(errs, fmt.Errorf("transformer: vocab = %d: must be >= 0 (0: the forecaster, > 0: token mode); use e.g. 256", c.Vocab))
	}
	switch c.Positions {
	case "", PositionsLearned, PositionsNone:
	default:
		errs = append(errs, fmt.Errorf("transformer: positions = %q: unknown; use %q or %q", c.Positions, PositionsLearned, PositionsNone))
	}
	if c.tokenMode() {
		return errors.Join(append(errs, c.validateTokens()...)...)
	}
	errs = append(errs, positive(append(c.blockDims(), dim{"H", c.H, 8}, dim{"c_in", c.CIn, 1}))...)
	errs = append(errs, c.validateHeads()...)
	if c.Patch < 0 {
		errs = append(errs, fmt.Errorf("transformer: patch = %d: must be >= 0 (0 or 1: one token per position); use e.g. 8", c.Patch))
	} else if c.T > 0 && c.T%c.PatchLen() != 0 {
		errs = append(errs, fmt.Errorf("transformer: patch = %d does not divide T = %d; pick a divisor of T", c.Patch, c.T))
	}
	if c.CIn > 0 && (c.Target < 0 || c.Target >= c.CIn) {
		errs = append(errs, fmt.Errorf("transformer: target = %d outside [0, c_in = %d); give the forecast channel's index among the inputs", c.Target, c.CIn))
	}
	switch c.Norm {
	case "", NormRevIN, NormLast:
	default:
		errs = append(errs, fmt.Errorf("transformer: norm = %q: unknown; use %q, %q or none", c.Norm, NormRevIN, NormLast))
	}
	switch c.Loss {
	case "", LossAll:
		if c.Norm != "" {
			errs = append(errs, fmt.Errorf("transformer: norm %q needs loss %q: the window statistics see the inputs earlier tokens forecast", c.Norm, LossLast))
		}
	case LossLast:
	default:
		errs = append(errs, fmt.Errorf("transformer: loss = %q: unknown; use %q or %q", c.Loss, LossAll, LossLast))
	}
	return errors.Join(append(errs, c.validateIdea()...)...)
}

// dim is a size field of Config with an example value for the fix.
type dim struct {
	name       string
	v, example int
}

// blockDims are the sizes every model needs: d, heads, layers and T.
func (c Config) blockDims() []dim {
	return []dim{{"d", c.D, 32}, {"heads", c.Heads, 4}, {"layers", c.Layers, 2}, {"T", c.T, 32}}
}

// positive reports each of dims that is not at least 1.
func positive(dims []dim) []error {
	var errs []error
	for _, f := range dims {
		if f.v <= 0 {
			errs = append(errs, fmt.Errorf("transformer: %s = %d: must be >= 1; use e.g. %d", f.name, f.v, f.example))
		}
	}
	return errs
}

// validateHeads checks that the heads divide d.
func (c Config) validateHeads() []error {
	if c.D > 0 && c.Heads > 0 && c.D%c.Heads != 0 {
		return []error{fmt.Errorf("transformer: heads = %d does not divide d = %d; pick heads from the divisors of d", c.Heads, c.D)}
	}
	return nil
}

// validateIdea checks the idea's config.
func (c Config) validateIdea() []error {
	if !c.Idea.IsZero() {
		if _, err := idea.New(c.Idea); err != nil {
			return []error{fmt.Errorf("transformer: %w", err)}
		}
	}
	return nil
}

// active returns the idea the model calls: nil without one or at its
// identity setting. c must be valid.
func (c Config) active() idea.Idea {
	if c.Idea.IsZero() {
		return nil
	}
	i, err := idea.New(c.Idea)
	if err != nil {
		panic("transformer: " + err.Error())
	}
	if i.Identity() {
		return nil
	}
	return i
}

// UnmarshalJSON reads a Config, including one written before ideas were
// plugged in, whose fading-memory gate stood under "gate": {rho, beta}.
func (c *Config) UnmarshalJSON(raw []byte) error {
	type plain Config
	var v struct {
		plain
		Gate *struct {
			Rho  float64 `json:"rho"`
			Beta float64 `json:"beta"`
		} `json:"gate"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	*c = Config(v.plain)
	if g := v.Gate; g != nil && c.Idea.IsZero() && (g.Rho != 0 || g.Beta != 0) {
		c.Idea = idea.Config{Name: "gate", Params: idea.NewParams(map[string]float64{"rho": g.Rho, "beta": g.Beta})}
	}
	return nil
}

// FLOPsPerStep is the number of floating-point operations (a multiply-add
// counts two) of the matrix products in one forward and backward pass over
// a batch of b windows, counting only the unmasked causal attention
// entries. The backward pass costs twice the forward pass.
//
// In token mode the head runs at every position here (see TokenStepFLOPs
// for the labelled positions only) and the embedding, a table look-up,
// counts nothing.
func (c Config) FLOPsPerStep(b int) float64 {
	if c.tokenMode() {
		return c.TokenStepFLOPs(b, b*c.T)
	}
	n, d := float64(b*c.Tokens()), float64(c.D)
	edges := 2 * n * (float64(c.PatchLen()*c.CIn)*d + d*float64(c.H))
	if c.Skip {
		edges += 2 * float64(b*c.T*c.H)
	}
	return 3 * (c.blocksFLOPs(b) + edges)
}

// blocksFLOPs is the forward pass's matrix-product FLOPs of the L blocks
// over b windows.
func (c Config) blocksFLOPs(b int) float64 {
	tok := c.Tokens()
	n := float64(b * tok)
	d := float64(c.D)
	linear := 2 * n * (d*3*d + d*d + d*4*d + 4*d*d) // qkv, proj, fc1, fc2
	pairs := float64(tok*(tok+1)) / 2               // causal (query,key) pairs per window
	attn := 2 * 2 * float64(b) * pairs * d          // scores q·k and the weighted sum of v
	return float64(c.Layers) * (linear + attn)
}

// TokenStepFLOPs is FLOPsPerStep of a token model as TrainStepTokens runs
// it: b sequences with labelled positions in all, the blocks at every
// position and the vocabulary head (D->Vocab) at the labelled ones only;
// the backward pass costs twice the forward pass.
//
//	3·(blocks(b) + 2·labelled·D·Vocab)
//
// Without an idea after the last attention (Config.tokenTail), the last
// block's projection and MLP (9·D² multiply-adds a row) run at the
// labelled positions only too: 3·2·(b·T − labelled)·9·D² less.
func (c Config) TokenStepFLOPs(b, labelled int) float64 {
	d := float64(c.D)
	f := c.blocksFLOPs(b) + 2*float64(labelled)*d*float64(c.Vocab)
	if c.tokenTail() {
		f -= 2 * float64(b*c.T-labelled) * 9 * d * d
	}
	return 3 * f
}

// MemoryBytes is about how many bytes a model of c trained in batches of
// maxBatch windows holds as float32: the parameters five times (weights,
// gradients, the weights packed for the products, Adam's two moments)
// and the activations of maxBatch + TrainChunk windows (New keeps the
// whole batch's for Forward and a chunk's for TrainStep), per window
//
//	Layers·(17·N·D + Heads·N²) + 10·N·D + 2·T·CIn + 2·N·H + idea     N = Tokens
//
// (each block's residual stream, LayerNorms, q|k|v, attention output and
// projection, GELU and its derivative, the heads' probabilities; then the
// gradients of one block and the head; the idea's sites, ideaFloats). Computed in float64, so an absurd
// config gives a large finite number instead of an overflow; it is what
// a caller checks against the memory at hand before building the model
// (TestMemoryBytes keeps it within a factor of two of what New and
// NewAdamW allocate).
func (c Config) MemoryBytes(maxBatch int) float64 {
	n, d, t := float64(c.Tokens()), float64(c.D), float64(c.T)
	l, heads := float64(c.Layers), float64(c.Heads)
	perWindow := l*(17*n*d+heads*n*n) + 10*n*d + 2*t*float64(c.CIn) + 2*n*float64(c.H) + c.ideaFloats()
	// The parameters: the products' weights and the edges.
	params := l*12*d*d + float64(c.PatchLen()*c.CIn)*d + d*float64(c.H) + n*d
	if c.tokenMode() {
		// The token table and the vocabulary head; the logits and their
		// gradient at every position, the most a batch can label.
		v := float64(c.Vocab)
		params += 2 * v * d
		perWindow += 2 * n * v
	}
	if c.Skip {
		params += t * float64(c.H)
	}
	return 4 * (5*params + perWindow*float64(maxBatch+TrainChunk))
}

// ideaFloats is about the floats the idea's sites hold per window: at
// each instance its input, its output and the state its Forward keeps
// (SwiGLU's 3h a token and block, a logits bias's Heads·N² a block); 0
// without an idea.
func (c Config) ideaFloats() float64 {
	in := c.active()
	if in == nil {
		return 0
	}
	sh := c.SiteShape(in.Site(), 1)
	return float64(c.SiteInstances(in.Site())) * float64(sh.Len()+sh.YLen()+sh.B*in.State(sh))
}

// StepFLOPs is FLOPsPerStep as TrainStep runs it: with the tail on the
// last tokens (Config.tailRows) the last block's projection and MLP and
// the head count one row a window instead of one a token.
func (c Config) StepFLOPs(b int) float64 {
	f := c.FLOPsPerStep(b)
	if !c.tailRows() {
		return f
	}
	n, d := float64(b*(c.Tokens()-1)), float64(c.D)
	return f - 3*2*n*(d*d+d*4*d+4*d*d+d*float64(c.H))
}
