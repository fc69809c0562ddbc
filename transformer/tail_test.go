package transformer

import (
	"fmt"
	"testing"

	"github.com/ideabench/ideabench/idea"
	"github.com/stretchr/testify/require"
)

// tailVariants are models with loss "last" (norms, the skip path,
// several channels, patches, one window a chunk) without an idea and
// with ideas at the sites that keep the tail and at one that does not.
func tailVariants() []struct {
	name string
	c    Config
} {
	base := func(f func(*Config)) Config {
		c := DefaultConfig()
		c.Patch, c.Norm, c.Loss, c.Skip = 4, NormLast, LossLast, true
		f(&c)
		return c
	}
	return []struct {
		name string
		c    Config
	}{
		{"last_skip", base(func(*Config) {})},
		{"revin", base(func(c *Config) { c.Norm = NormRevIN })},
		{"no_norm", base(func(c *Config) { c.Norm, c.Skip = "", false })},
		{"tokens", base(func(c *Config) { c.Patch = 0 })},
		{"channels", base(func(c *Config) { c.CIn, c.Target = 3, 1 })},
		{"multivariate", Config{D: 32, Heads: 4, Layers: 2, T: 336, H: 96, CIn: 1, Patch: 16, Norm: NormLast, Skip: true, Loss: LossLast}},
		{"one_layer", base(func(c *Config) { c.Layers = 1 })},
		{"long", base(func(c *Config) { c.T, c.Patch = 96, 1 })},                          // one window a chunk
		{"idea=conv", base(func(c *Config) { c.Idea = idea.Config{Name: "conv"} })},       // input site
		{"idea=gate", base(func(c *Config) { c.Idea = gateIdea(0.8, 0.7) })},              // attention site: the full pass
		{"idea=calib", base(func(c *Config) { c.Idea = idea.Config{Name: "calib"} })},     // head site: the full pass
		{"idea=fox", base(func(c *Config) { c.Idea = idea.Config{Name: "fox"} })},         // logits site: inside the attention, before the tail
		{"idea=qk-norm", base(func(c *Config) { c.Idea = idea.Config{Name: "qk-norm"} })}, // qk site: likewise
		{"idea=rmsnorm", base(func(c *Config) { c.Idea = idea.Config{Name: "rmsnorm"} })}, // norm site: token-wise, in the tail too
		{"idea=swiglu", base(func(c *Config) { c.Idea = idea.Config{Name: "swiglu"} })},   // ffn site: likewise
	}
}

// TestTailKeepsBits: with loss "last", TrainStep runs the model's tail
// on each window's last token (tail.go); its loss, gradients and
// parameters equal those of Forward, MSELoss and Backward over every
// token, bit for bit, over batches below, at and above a chunk, on one
// thread, pipelined and with products split.
func TestTailKeepsBits(t *testing.T) {
	for _, v := range tailVariants() {
		require.NoError(t, v.c.Validate(), v.name)
		wantTail := v.name != "idea=gate" && v.name != "idea=calib"
		require.Equal(t, wantTail, v.c.tailRows(), "%s: tailRows", v.name)
		for _, b := range []int{1, TrainChunk - 1, 2*TrainChunk + 3} {
			t.Run(fmt.Sprintf("%s/b=%d", v.name, b), func(t *testing.T) { chunkCase[float32](t, v.c, b) })
		}
		t.Run(v.name+"/float64/b=5", func(t *testing.T) { chunkCase[float64](t, v.c, 5) })
	}
	t.Run("threads", func(t *testing.T) {
		for _, v := range tailVariants() {
			for _, th := range []int{1, 2} {
				run := func(pipe bool) []float32 {
					defer SetThreads(SetThreads(th))
					m, x, y := benchModelOf(t, v.c, 19)
					opt := NewAdam[float32](v.c.NumParams())
					for range 2 {
						if th > 1 {
							m.TrainStep(opt, x, y, 19, 1e-3)
						} else {
							m.trainStep(opt, x, y, 19, 1e-3, pipe)
						}
					}
					return m.Params.Data
				}
				defer func(old bool) { noTail = old }(noTail)
				noTail = true
				want := run(false)
				noTail = false
				require.True(t, bitsEqual(want, run(th == 1)), "%s threads=%d: parameters differ with the tail", v.name, th)
			}
		}
	})
}

// TestStepFLOPs: the tail's count is FLOPsPerStep less the work of the
// rows it skips.
func TestStepFLOPs(t *testing.T) {
	for _, v := range tailVariants() {
		c, b := v.c, 32
		full, step := c.FLOPsPerStep(b), c.StepFLOPs(b)
		if !c.tailRows() {
			require.Equal(t, full, step, v.name)
			continue
		}
		n, d := float64(b*(c.Tokens()-1)), float64(c.D)
		skipped := 3 * 2 * n * (d*d + d*4*d + 4*d*d + d*float64(c.H)) // proj, fc1, fc2, head
		require.InDelta(t, full-skipped, step, 1e-6*full, v.name)
	}
}
