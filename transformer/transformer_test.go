package transformer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/ideabench/ideabench/idea"
	"github.com/stretchr/testify/require"
)

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string // substring of the error; empty for valid
	}{
		{"default", func(*Config) {}, ""},
		{"zero_d", func(c *Config) { c.D = 0 }, "d = 0"},
		{"negative_T", func(c *Config) { c.T = -1 }, "T = -1"},
		{"zero_H", func(c *Config) { c.H = 0 }, "H = 0"},
		{"heads_not_dividing", func(c *Config) { c.Heads = 5 }, "heads = 5 does not divide d = 32"},
		{"bad_gate", func(c *Config) { c.Idea = gateIdea(1, 1) }, "rho"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestLayout(t *testing.T) {
	c := DefaultConfig()
	p := NewParams[float32](c)
	// Hand count for d=32, L=2, T=32, H=8, CIn=1.
	block := 2*32 + (96*32 + 96) + (32*32 + 32) + 2*32 + (128*32 + 128) + (32*128 + 32)
	want := 32 + 32 + 32*32 + 2*block + 2*32 + 8*32 + 8
	require.Equal(t, want, c.NumParams())
	require.Len(t, p.Data, want)
	off := 0
	for _, ti := range p.Tensors {
		require.Equal(t, off, ti.Offset, ti.Name)
		off += ti.Size()
	}
	require.Equal(t, want, off)
	require.Equal(t, "blocks.1.attn.qkv.weight", p.Tensors[3+12+2].Name)
	require.Equal(t, []int{96, 32}, p.Tensors[3+12+2].Shape)
	// Views alias the flat buffer.
	p.Blocks[1].QKVW[0] = 42
	require.Equal(t, float32(42), p.Data[p.Tensors[3+12+2].Offset])
}

func TestInit(t *testing.T) {
	p := NewParams[float64](DefaultConfig())
	p.Init(rand.New(rand.NewPCG(1, 2)))
	for _, ti := range p.Tensors {
		v := p.View(ti)
		switch ti.Kind {
		case Bias:
			for _, x := range v {
				require.Zero(t, x, ti.Name)
			}
		case Gain:
			for _, x := range v {
				require.Equal(t, 1.0, x, ti.Name)
			}
		}
	}
	// The largest weight matrix's sample std is near 0.02 (4096 draws:
	// standard error of the std ≈ 0.02/√8192 ≈ 2.2e-4).
	v := p.Blocks[0].FC1W
	var ss float64
	for _, x := range v {
		ss += x * x
	}
	std := math.Sqrt(ss / float64(len(v)))
	require.InDelta(t, InitStd, std, 1e-3)
}

// TestAdamHandDerived checks the first two Adam updates of one parameter
// against values worked out by hand. With g₁ = 2: m₁ = 0.2, v₁ = 0.004,
// m̂ = 2, v̂ = 4, step = lr·2/(2+ε) ≈ lr. With g₂ = -1: m₂ = 0.18-0.1 =
// 0.08, v₂ = 0.003996+0.001 = 0.004996, m̂ = 0.08/0.19, v̂ = 0.004996/0.001999.
func TestAdamHandDerived(t *testing.T) {
	a := NewAdam[float64](1)
	p := []float64{1}
	lr := 0.1
	a.Step(p, []float64{2}, lr)
	want := 1 - lr*2/(2+1e-8)
	require.InDelta(t, want, p[0], 1e-15)
	a.Step(p, []float64{-1}, lr)
	mh := 0.08 / (1 - 0.81)
	vh := 0.004996 / (1 - 0.999*0.999)
	want -= lr * mh / (math.Sqrt(vh) + 1e-8)
	require.InDelta(t, want, p[0], 1e-12)
	require.Equal(t, 2, a.Steps())
}

// TestAdamWHandDerived: decoupled weight decay multiplies the decayed
// tensors by 1 - lr·λ before the Adam update and leaves the others, and
// clipping scales the gradient to norm Clip only when it is larger.
func TestAdamWHandDerived(t *testing.T) {
	t.Run("decay", func(t *testing.T) {
		a := NewAdam[float64](2)
		a.WeightDecay, a.Decay = 0.5, [][2]int{{0, 1}}
		p := []float64{1, 1}
		lr := 0.1
		a.Step(p, []float64{2, 2}, lr)
		// Both get the Adam step lr·2/(2+ε); only p[0] decays first.
		step := lr * 2 / (2 + 1e-8)
		require.InDelta(t, (1-lr*0.5)-step, p[0], 1e-15)
		require.InDelta(t, 1-step, p[1], 1e-15)
	})
	t.Run("clip", func(t *testing.T) {
		for _, tc := range []struct {
			name       string
			clip       float64
			g, want    []float64
			wantNormed float64
		}{
			{"above", 1, []float64{3, 4}, []float64{0.6, 0.8}, 5},
			{"below", 10, []float64{3, 4}, []float64{3, 4}, 5},
			{"off", 0, []float64{3, 4}, []float64{3, 4}, 0}, // the norm is not even computed
		} {
			t.Run(tc.name, func(t *testing.T) {
				a := NewAdam[float64](2)
				a.Clip = tc.clip
				g := append([]float64(nil), tc.g...)
				a.Step([]float64{0, 0}, g, 0.1)
				require.InDeltaSlice(t, tc.want, g, 1e-15)
				require.Equal(t, tc.wantNormed, a.Norm)
			})
		}
	})
	t.Run("weights_only", func(t *testing.T) {
		c := DefaultConfig()
		p := NewParams[float32](c)
		a := NewAdamW(p, 0.1)
		n := 0
		for _, r := range a.Decay {
			n += r[1] - r[0]
		}
		want := 0
		for _, ti := range p.Tensors {
			if ti.Kind == Weight || ti.Kind == ZeroWeight {
				want += ti.Size()
			}
		}
		require.Equal(t, want, n)
		require.Equal(t, [2]int{0, c.D * c.CIn}, a.Decay[0], "embed.weight decays")
	})
}

// trainFew runs a few deterministic steps of the default model with idea
// g and returns the parameters.
func trainFew(t *testing.T, g idea.Config, seed uint64) []float32 {
	t.Helper()
	c := DefaultConfig()
	c.Idea = g
	return trainFewConfig(t, c, seed)
}

// trainFewConfig runs a few deterministic steps of model c and returns
// the parameters.
func trainFewConfig(t *testing.T, c Config, seed uint64) []float32 {
	t.Helper()
	const b = 8
	m, err := New[float32](c, b)
	require.NoError(t, err)
	r := rand.New(rand.NewPCG(seed, 0))
	m.Params.Init(r)
	opt := NewAdam[float32](c.NumParams())
	for step := range 3 {
		x, y := sineBatch(c, b, float64(step), 0.3)
		loss := m.TrainStep(opt, x, y, b, 1e-3)
		require.False(t, math.IsNaN(loss))
	}
	return append([]float32(nil), m.Params.Data...)
}

func TestDeterminism(t *testing.T) {
	for _, g := range []idea.Config{{}, gateIdea(0.9, 0.5)} {
		a := trainFew(t, g, 3)
		b := trainFew(t, g, 3)
		require.True(t, equal(a, b), "same seed must give the same bits")
		c := trainFew(t, g, 4)
		require.False(t, equal(a, c), "another seed must change the init")
	}
}

// TestTrainingReducesLoss: a few hundred steps on one fixed batch of a
// sinusoid must cut the loss by at least 10x (overfitting is the point).
func TestTrainingReducesLoss(t *testing.T) {
	c := DefaultConfig()
	c.Idea = gateIdea(0.85, 0.5)
	const b = 4
	m, err := New[float32](c, b)
	require.NoError(t, err)
	m.Params.Init(rand.New(rand.NewPCG(0, 0)))
	opt := NewAdam[float32](c.NumParams())
	x, y := sineBatch(c, b, 0, 0.37)
	first := m.TrainStep(opt, x, y, b, 3e-3)
	var last float64
	for range 200 {
		last = m.TrainStep(opt, x, y, b, 3e-3)
	}
	t.Logf("loss %.4f -> %.4f", first, last)
	require.Less(t, last, first/10)
}

func TestForwardPanicsOnBadShapes(t *testing.T) {
	m, err := New[float32](DefaultConfig(), 2)
	require.NoError(t, err)
	require.PanicsWithValue(t, "transformer: batch 3 outside [1,2]", func() { m.Forward(make([]float32, 3*32), 3) })
	require.Panics(t, func() { m.Forward(make([]float32, 5), 1) })
}

// TestPredictMatchesForward: the evaluation pass gives Forward's forecasts
// and gate states bit for bit, in both element types and with the gate on,
// and Backward refuses to follow it.
func TestPredictMatchesForward(t *testing.T) {
	for _, arch := range archVariants() {
		t.Run(arch.name, func(t *testing.T) { predictCase(t, arch.c) })
	}
}

func predictCase(t *testing.T, c Config) {
	c.Idea = gateIdea(0.8, 0.5)
	const maxB = 2*TrainChunk + 4 // Predict runs chunks of TrainChunk windows
	for _, b := range []int{3, TrainChunk, maxB - 1, maxB} {
		t.Run(fmt.Sprintf("float32/b=%d", b), func(t *testing.T) {
			m, err := New[float32](c, maxB)
			require.NoError(t, err)
			m.Params.Init(rand.New(rand.NewPCG(4, 4)))
			x, _ := sineBatch(c, b, 0.5, 0.2)
			want := append([]float32(nil), m.Forward(x, b)...)
			wantS := append([]float32(nil), m.IdeaState(1)...)
			wantA := append([]float32(nil), m.IdeaInput(0)...)
			require.True(t, equal(want, m.Predict(x, b)))
			require.True(t, equal(wantS, m.IdeaState(1)))
			require.True(t, equal(wantA, m.IdeaInput(0)))
			require.PanicsWithValue(t, "transformer: Backward without a Forward (the last call was Predict)",
				func() { m.Backward(nil, make([]float32, b*c.Tokens()*c.H)) })
		})
	}
	t.Run("float64", func(t *testing.T) {
		const b = maxB - 1
		m, err := New[float64](c, maxB)
		require.NoError(t, err)
		m.Params.Init(rand.New(rand.NewPCG(4, 4)))
		x32, _ := sineBatch(c, b, 0.5, 0.2)
		x := make([]float64, len(x32))
		for i, v := range x32 {
			x[i] = float64(v)
		}
		want := append([]float64(nil), m.Forward(x, b)...)
		require.Equal(t, want, m.Predict(x, b))
	})
}

// TestBaselineGateIsIdentity: β = 0 must reproduce the gateless model bit
// for bit whatever ρ is.
func TestBaselineGateIsIdentity(t *testing.T) {
	a := trainFew(t, idea.Config{}, 9)
	b := trainFew(t, gateIdea(0.7, 0), 9)
	require.True(t, equal(a, b))
}

// sineBatch returns b windows cut from one sinusoid sin((i+phase)·freq):
// inputs x (B,T,CIn) and targets y (B,T+H), where x's target channel is
// the first T values of each window of y and each other channel ci a
// cosine of (ci+2) times the frequency.
func sineBatch(c Config, b int, phase, freq float64) (x, y []float32) {
	y = make([]float32, b*(c.T+c.H))
	for i := range y {
		y[i] = float32(math.Sin((float64(i) + phase) * freq))
	}
	x = make([]float32, b*c.T*c.CIn)
	for bi := range b {
		for ti := range c.T {
			for ci := range c.CIn {
				v := y[bi*(c.T+c.H)+ti] // the target channel; the others lead it
				if ci != c.Target {
					v = float32(math.Cos((float64(bi*(c.T+c.H)+ti) + phase) * freq * float64(ci+2)))
				}
				x[(bi*c.T+ti)*c.CIn+ci] = v
			}
		}
	}
	return x, y
}

// TestMemoryBytes: the estimate is within a factor of two of what New
// and NewAdamW allocate, over shapes whose weight or activation memory
// dominates.
func TestMemoryBytes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     Config
		batch int
	}{
		{"default", DefaultConfig(), 32},
		{"patches", Config{D: 32, Heads: 4, Layers: 2, T: 96, H: 96, CIn: 7, Patch: 16, Skip: true, Norm: NormLast, Loss: LossLast}, 32},
		{"wide", Config{D: 256, Heads: 8, Layers: 4, T: 32, H: 8, CIn: 1, Patch: 4}, 8},
		{"long", Config{D: 16, Heads: 2, Layers: 2, T: 256, H: 8, CIn: 1}, 64},
		// Token mode at a shape of BenchmarkTrainStepShapes (tokenShapes): the estimate counts
		// logits at every position, New makes them on first need.
		{"tokens", Config{D: 64, Heads: 4, Layers: 2, T: 64, Vocab: 256}, 64},
		// An idea that keeps state: SwiGLU's 3h floats a token and block.
		{"swiglu", Config{D: 64, Heads: 4, Layers: 2, T: 64, H: 8, CIn: 1, Idea: idea.Config{Name: "swiglu"}}, 32},
		{"fox", Config{D: 16, Heads: 2, Layers: 2, T: 128, H: 8, CIn: 1, Idea: idea.Config{Name: "fox"}}, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			m, err := New[float32](tc.c, tc.batch)
			require.NoError(t, err)
			a := NewAdamW(m.Params, 0.05)
			runtime.ReadMemStats(&after)
			runtime.KeepAlive(a)
			got := float64(after.TotalAlloc - before.TotalAlloc)
			est := tc.c.MemoryBytes(tc.batch)
			t.Logf("estimate %.0f bytes, allocated %.0f (ratio %.2f)", est, got, est/got)
			require.Less(t, est, 2*got, "estimate %.0f bytes, allocated %.0f", est, got)
			require.Greater(t, est, got/2, "estimate %.0f bytes, allocated %.0f", est, got)
		})
	}
	huge := Config{D: 1 << 20, Heads: 1, Layers: 1 << 20, T: 32, H: 8, CIn: 1}
	require.False(t, math.IsInf(huge.MemoryBytes(1<<30), 0))
}
