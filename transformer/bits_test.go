package transformer

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ideabench/ideabench/idea"
	"github.com/stretchr/testify/require"
)

// trainedBitsSHA256 pins the exact bits of 20 Adam steps of the default
// model (gate on, batch 8). Every kernel implementation (AVX-512, AVX2,
// pure Go, any GOARCH) must reproduce it, because they all share one
// summation order and round every product's fused multiply-add alike (the
// kernel package's fma32 where there is no FMA instruction); a change of
// the numerics changes this constant, and the golden reports with it.
const trainedBitsSHA256 = "2a226b5961dbda84b61dc529742723b4becab5582c8a286f3f3c771d43b91037"

func TestTrainingBitsPinned(t *testing.T) {
	c := DefaultConfig()
	c.Idea = gateIdea(0.9, 0.5)
	const b = 8
	m, err := New[float32](c, b)
	if err != nil {
		t.Fatal(err)
	}
	m.Params.Init(rand.New(rand.NewPCG(5, 5)))
	opt := NewAdam[float32](c.NumParams())
	for s := range 20 {
		x, y := sineBatch(c, b, float64(s)*3, 0.37)
		m.TrainStep(opt, x, y, b, 3e-3)
	}
	h := sha256.New()
	for _, v := range m.Params.Data {
		h.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != trainedBitsSHA256 {
		t.Fatalf("trained parameter bits: sha256 %s, want %s", got, trainedBitsSHA256)
	}
}

// TestTrainStepChunksKeepBits: TrainStep runs Config.TrainWindows (1 to
// TrainChunk) windows at a time; over batches that are, are not and are less than a multiple of
// it, in both element types, its loss, gradients and updated parameters
// equal those of one Forward, MSELoss and Backward over the whole batch
// followed by the same Adam step.
func TestTrainStepChunksKeepBits(t *testing.T) {
	for _, arch := range archVariants() {
		c := arch.c
		c.Idea = gateIdea(0.8, 0.7)
		for _, b := range []int{1, TrainChunk - 1, TrainChunk, 2*TrainChunk + 3, 32} {
			t.Run(fmt.Sprintf("%s/float32/b=%d", arch.name, b), func(t *testing.T) { chunkCase[float32](t, c, b) })
		}
		t.Run(arch.name+"/float64/b=19", func(t *testing.T) { chunkCase[float64](t, c, 19) })
	}
}

// archVariants are the default model, patch tokens, and patch tokens
// with RevIN (which trains the last token only) and the linear skip.
func archVariants() []struct {
	name string
	c    Config
} {
	patch, revin, long, nopos := DefaultConfig(), DefaultConfig(), DefaultConfig(), DefaultConfig()
	patch.Patch = 4
	nopos.Positions = PositionsNone
	revin.Patch, revin.Norm, revin.Loss, revin.Skip = 4, NormRevIN, LossLast, true
	long.T = 96 // 96 tokens: TrainStep runs one window at a time
	return []struct {
		name string
		c    Config
	}{{"tokens", DefaultConfig()}, {"patch", patch}, {"revin_skip", revin}, {"long", long}, {"no_positions", nopos}}
}

func chunkCase[F Float](t *testing.T, c Config, b int) {
	whole, err := New[F](c, b)
	require.NoError(t, err)
	chunked, err := New[F](c, b)
	require.NoError(t, err)
	whole.Params.Init(rand.New(rand.NewPCG(6, 6)))
	copy(chunked.Params.Data, whole.Params.Data)
	// AdamW with clipping: the chunked step must clip and decay alike.
	optW, optC := NewAdamW(whole.Params, 0.1), NewAdamW(chunked.Params, 0.1)
	optW.Clip, optC.Clip = 0.5, 0.5
	for step := range 3 {
		x32, y32 := sineBatch(c, b, float64(step)*5+0.25, 0.29)
		x, y := make([]F, len(x32)), make([]F, len(y32))
		for i, v := range x32 {
			x[i] = F(v)
		}
		for i, v := range y32 {
			y[i] = F(v)
		}
		pred := whole.Forward(x, b)
		dpred := make([]F, len(pred))
		wantLoss := MSELoss(c, dpred, pred, y, b)
		clear(whole.Grads.Data)
		whole.Backward(nil, dpred)
		optW.Step(whole.Params.Data, whole.Grads.Data, 2e-3)
		wantGrads := whole.Grads.Data // clipped in place by Step

		gotLoss := chunked.TrainStep(optC, x, y, b, 2e-3)
		require.Equal(t, math.Float64bits(wantLoss), math.Float64bits(gotLoss), "step %d: loss %v, want %v", step, gotLoss, wantLoss)
		require.True(t, bitsEqual(wantGrads, chunked.Grads.Data), "step %d: gradients differ", step)
		require.True(t, bitsEqual(whole.Params.Data, chunked.Params.Data), "step %d: parameters differ", step)
	}
}

// bitsEqual compares two float slices bit for bit (NaN payloads and signed
// zeros included).
func bitsEqual[F Float](a, b []F) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(float64(a[i])) != math.Float64bits(float64(b[i])) {
			return false
		}
	}
	return true
}

// TestIdeasKeepBits: every registered idea, at each of its sites, keeps
// the chunked TrainStep's bits (its state is laid out window by window)
// and gives Predict the bits of Forward; at its Off setting, if it has
// one, it trains the baseline's exact bits.
func TestIdeasKeepBits(t *testing.T) {
	base := DefaultConfig()
	base.Patch = 4
	for _, name := range idea.Names() {
		c := base
		c.Idea = idea.Config{Name: name}
		t.Run(name+"/chunks", func(t *testing.T) { chunkCase[float32](t, c, 2*TrainChunk+3) })
		t.Run(name+"/predict", func(t *testing.T) {
			const b = TrainChunk + 5
			m, err := New[float32](c, b)
			require.NoError(t, err)
			m.Params.Init(rand.New(rand.NewPCG(4, 4)))
			x, _ := sineBatch(c, b, 0.5, 0.2)
			want := append([]float32(nil), m.Forward(x, b)...)
			require.True(t, bitsEqual(want, m.Predict(x, b)))
		})
		s, _ := idea.Lookup(name)
		if s.Off == nil {
			continue
		}
		t.Run(name+"/off", func(t *testing.T) {
			off := idea.Config{Name: name, Params: idea.NewParams(s.Off)}
			require.True(t, bitsEqual(trainFewConfig(t, base, 9), trainFewConfig(t, withIdea(base, off), 9)))
		})
	}
}

func withIdea(c Config, i idea.Config) Config {
	c.Idea = i
	return c
}

// TestTrainWindows checks the chunk sizes against hand-computed
// activation counts (Config.actFloats, float32, 768 KiB budget), and
// TrainChunk with two threads where the MLP product can be split.
func TestTrainWindows(t *testing.T) {
	long := DefaultConfig()
	long.T = 96
	patch := DefaultConfig()
	patch.Patch = 4
	wide := Config{D: 128, Heads: 4, Layers: 1, T: 64, H: 8, CIn: 1}
	for _, tc := range []struct {
		name   string
		c      Config
		floats int
		want   int
		want2  int // two threads: TrainChunk where 2·(8·T)·D·4D ≥ 2²⁶ and not pipelined
	}{
		{"default", DefaultConfig(), 2 * (17*32*32 + 4*32*32), 4, 4}, // 172 KB a window; 2.1 MFLOP
		{"patch", patch, 2 * (17*8*32 + 4*8*8), 8, 8},                // 36 KB: capped at TrainChunk
		{"long", long, 2 * (17*96*32 + 4*96*96), 1, 1},               // 713 KB
		{"ett", benchShapes[1].c, 2 * (17*96*64 + 4*96*96), 1, 1},    // 1.1 MB; 25 MFLOP
		{"large", benchShapes[2].c, 3 * (17*96*128 + 8*96*96), 1, 1}, // 3.4 MB; pipelined (372 MFLOP a window)
		{"wide", wide, 17*64*128 + 4*64*64, 1, 8},                    // 622 KB; MLP 2²⁶ at 8 windows, 79 MFLOP a window
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.Equal(t, tc.floats, tc.c.actFloats())
			require.Equal(t, tc.want, tc.c.TrainWindows())
			defer SetThreads(SetThreads(2))
			require.Equal(t, tc.want2, tc.c.TrainWindows())
		})
	}
}

// TestPipelineKeepsBits: TrainStep's forward/backward pipeline
// (trainPipelined) over batches of one chunk, several and a ragged last
// one, with and without an idea at its site, and with every registered
// idea: three steps give the losses and parameters of the sequential loop
// bit for bit. The large shape goes through TrainStep itself with two
// threads, where it pipelines.
func TestPipelineKeepsBits(t *testing.T) {
	type variant struct {
		name string
		c    Config
	}
	var vs []variant
	for _, arch := range archVariants() {
		vs = append(vs, variant{arch.name, arch.c})
		c := arch.c
		c.Idea = gateIdea(0.8, 0.7)
		vs = append(vs, variant{arch.name + "/gate", c})
	}
	for _, name := range idea.Names() {
		c := DefaultConfig()
		c.Idea = idea.Config{Name: name}
		vs = append(vs, variant{"idea=" + name, c})
	}
	run := func(t *testing.T, c Config, b, threads int, pipe bool) ([]float64, []float32) {
		defer SetThreads(SetThreads(threads))
		m, x, y := benchModelOf(t, c, b)
		opt := NewAdam[float32](c.NumParams())
		var losses []float64
		for range 3 {
			if threads > 1 {
				losses = append(losses, m.TrainStep(opt, x, y, b, 1e-3))
			} else {
				losses = append(losses, m.trainStep(opt, x, y, b, 1e-3, pipe))
			}
		}
		return losses, append([]float32(nil), m.Params.Data...)
	}
	for _, v := range vs {
		for _, b := range []int{3, 19, 32} {
			t.Run(fmt.Sprintf("%s/b=%d", v.name, b), func(t *testing.T) {
				l1, p1 := run(t, v.c, b, 1, false)
				l2, p2 := run(t, v.c, b, 1, true)
				require.Equal(t, l1, l2, "losses")
				require.True(t, bitsEqual(p1, p2), "parameters differ with the pipeline")
			})
		}
	}
	t.Run("float64", func(t *testing.T) {
		c := archVariants()[3].c // long: one window a chunk
		c.Idea = gateIdea(0.8, 0.7)
		const b = 7
		run64 := func(pipe bool) ([]float64, []float64) {
			m, err := New[float64](c, b)
			require.NoError(t, err)
			m.Params.Init(rand.New(rand.NewPCG(5, 5)))
			x32, y32 := sineBatch(c, b, 0.3, 0.2)
			x, y := make([]float64, len(x32)), make([]float64, len(y32))
			for i, v := range x32 {
				x[i] = float64(v)
			}
			for i, v := range y32 {
				y[i] = float64(v)
			}
			opt := NewAdam[float64](c.NumParams())
			var losses []float64
			for range 3 {
				losses = append(losses, m.trainStep(opt, x, y, b, 1e-3, pipe))
			}
			return losses, append([]float64(nil), m.Params.Data...)
		}
		l1, p1 := run64(false)
		l2, p2 := run64(true)
		require.Equal(t, l1, l2, "losses")
		require.True(t, bitsEqual(p1, p2), "parameters differ with the pipeline")
	})
	t.Run("large/threads=2", func(t *testing.T) {
		c := benchShapes[2].c
		l1, p1 := run(t, c, 3, 1, false)
		l2, p2 := run(t, c, 3, 2, false)
		require.Equal(t, l1, l2, "losses")
		require.True(t, bitsEqual(p1, p2), "parameters differ with the pipeline")
		defer SetThreads(SetThreads(2))
		require.True(t, c.pipelined())
	})
}

// TestClosedGatesAreBaseline: fox's forget gate and gated-attn's output
// gate with their bias at 20, where σ(b) rounds to 1 in float32, forward
// the baseline's bits (fox adds a bias of zeros, gated-attn multiplies by
// ones), forecasting and token models alike; at bias 0 they do not.
func TestClosedGatesAreBaseline(t *testing.T) {
	tok := DefaultConfig()
	tok.CIn, tok.H, tok.Vocab, tok.T = 0, 0, 11, 24
	for _, name := range []string{"fox", "gated-attn"} {
		for _, c := range []Config{DefaultConfig(), tok} {
			const b = 3
			base, err := New[float32](c, b)
			require.NoError(t, err)
			base.Params.Init(rand.New(rand.NewPCG(8, 8)))
			out := func(m *Model[float32]) []float32 {
				if c.Vocab > 0 {
					tb := previousTokenBatch(rand.New(rand.NewPCG(9, 9)), b, c.T, c.Vocab, 4)
					return append([]float32(nil), m.ForwardTokens(tb)...)
				}
				x, _ := sineBatch(c, b, 0.5, 0.2)
				return append([]float32(nil), m.Forward(x, b)...)
			}
			want := out(base)
			for _, bias := range []float64{20, 0} {
				ic := c
				ic.Idea = idea.Config{Name: name, Params: idea.NewParams(map[string]float64{"bias": bias})}
				m, err := New[float32](ic, b)
				require.NoError(t, err)
				m.Params.Init(rand.New(rand.NewPCG(8, 8)))
				n := copy(m.Params.Data, base.Params.Data) // the baseline's tensors come first
				require.Equal(t, len(base.Params.Data), n)
				require.Equal(t, bias == 20, bitsEqual(want, out(m)), "%s bias %g, vocab %d", name, bias, c.Vocab)
			}
		}
	}
}
