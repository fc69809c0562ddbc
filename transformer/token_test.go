package transformer

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/ideabench/ideabench/idea"
	"github.com/stretchr/testify/require"
)

// tokenConfig is a small token model: d 16, 2 heads, 2 layers, T 12,
// vocab 11.
func tokenConfig(g idea.Config) Config {
	return Config{D: 16, Heads: 2, Layers: 2, T: 12, Vocab: 11, Idea: g}
}

// previousTokenBatch returns b sequences of t uniform ids in [0, v) from
// r with labelled positions every t/labelled positions (the last of each
// stride), each labelled with the token before it: a task attention
// learns by looking one position back.
func previousTokenBatch(r *rand.Rand, b, t, v, labelled int) TokenBatch {
	batch := TokenBatch{Tokens: make([]int32, b*t), Labels: make([]int32, b*t), B: b, T: t}
	stride := t / labelled
	for i := range batch.Tokens {
		batch.Tokens[i] = int32(r.IntN(v))
		batch.Labels[i] = Unlabelled
		if p := i % t; p%stride == stride-1 {
			batch.Labels[i] = batch.Tokens[i-1]
		}
	}
	return batch
}

func TestTokenConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string // substring of the error; empty for valid
	}{
		{"valid", func(*Config) {}, ""},
		{"no_positions", func(c *Config) { c.Positions = PositionsNone }, ""},
		{"learned", func(c *Config) { c.Positions = PositionsLearned }, ""},
		{"gate", func(c *Config) { c.Idea = gateIdea(0.8, 0.5) }, ""},
		{"bad_positions", func(c *Config) { c.Positions = "rope" }, `positions = "rope"`},
		{"negative_vocab", func(c *Config) { c.Vocab = -1; c.H, c.CIn = 8, 1 }, "vocab = -1"},
		{"c_in", func(c *Config) { c.CIn = 1 }, "c_in is set with vocab = 11"},
		{"H", func(c *Config) { c.H = 8 }, "H is set"},
		{"patch", func(c *Config) { c.Patch = 2 }, "patch is set"},
		{"norm", func(c *Config) { c.Norm = NormRevIN }, "norm is set"},
		{"skip", func(c *Config) { c.Skip = true }, "skip is set"},
		{"loss", func(c *Config) { c.Loss = LossLast }, "loss is set"},
		{"zero_T", func(c *Config) { c.T = 0 }, "T = 0"},
		{"heads", func(c *Config) { c.Heads = 3 }, "heads = 3 does not divide d = 16"},
		// calib sits at the head, which token mode runs on labelled rows only.
		{"head_idea", func(c *Config) { c.Idea = idea.Config{Name: "calib"} }, `idea "calib" sits at the head`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tokenConfig(idea.Config{})
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

// TestTokenConfigJSON: a forecaster's JSON has no token fields (so
// existing keys and goldens keep their bytes), and a token config
// round-trips.
func TestTokenConfigJSON(t *testing.T) {
	raw, err := json.Marshal(DefaultConfig())
	require.NoError(t, err)
	require.Equal(t, `{"d":32,"heads":4,"layers":2,"t":32,"h":8,"c_in":1}`, string(raw))
	c := tokenConfig(gateIdea(0.8, 0.5))
	c.Positions = PositionsNone
	raw, err = json.Marshal(c)
	require.NoError(t, err)
	require.Contains(t, string(raw), `"vocab":11,"positions":"none"`)
	var back Config
	require.NoError(t, json.Unmarshal(raw, &back))
	require.Equal(t, c, back)
}

func TestTokenBatchValidate(t *testing.T) {
	ok := previousTokenBatch(rand.New(rand.NewPCG(1, 1)), 2, 6, 5, 2)
	for _, tc := range []struct {
		name string
		edit func(*TokenBatch)
		want string
	}{
		{"valid", func(*TokenBatch) {}, ""},
		{"length", func(b *TokenBatch) { b.Labels = b.Labels[:3] }, "want B·T = 12"},
		{"token", func(b *TokenBatch) { b.Tokens[7] = 5 }, "token 5 at sequence 1 position 1"},
		{"label", func(b *TokenBatch) { b.Labels[2] = -2 }, "label -2 at sequence 0 position 2"},
		{"empty", func(b *TokenBatch) { b.B = 0 }, "B = 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := ok
			b.Tokens, b.Labels = append([]int32(nil), ok.Tokens...), append([]int32(nil), ok.Labels...)
			tc.edit(&b)
			err := b.Validate(5)
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
		})
	}
	require.Equal(t, 4, ok.Labelled())
}

// TestCrossEntropy checks the loss and gradient against the textbook
// formula, a shift of every logit by 1e4 (which overflows exp without
// the max subtraction), and the argmax's ties.
func TestCrossEntropy(t *testing.T) {
	logits := []float64{1, 2, 3, 0.5, 0.5, -1}
	labels := []int32{2, 0}
	const v = 3
	var want float64
	wantGrad := make([]float64, len(logits))
	for i, y := range labels {
		row := logits[i*v:][:v]
		var z float64
		for _, x := range row {
			z += math.Exp(x)
		}
		want += (math.Log(z) - row[y]) / 2
		for j, x := range row {
			wantGrad[i*v+j] = math.Exp(x) / z / 2
		}
		wantGrad[i*v+int(y)] -= 0.5
	}
	d := make([]float64, len(logits))
	require.InDelta(t, want, CrossEntropy(d, logits, labels, v), 1e-15)
	require.InDeltaSlice(t, wantGrad, d, 1e-15)

	for _, tc := range []struct {
		name  string
		shift float64
	}{{"shift=1e4", 1e4}, {"shift=-1e4", -1e4}} {
		t.Run(tc.name, func(t *testing.T) {
			s32 := make([]float32, len(logits))
			s64 := make([]float64, len(logits))
			for i, x := range logits {
				s32[i], s64[i] = float32(x+tc.shift), x+tc.shift
			}
			d64 := make([]float64, len(logits))
			require.InDelta(t, want, CrossEntropy(d64, s64, labels, v), 1e-12)
			require.InDeltaSlice(t, wantGrad, d64, 1e-12)
			// float32 at 1e4 keeps logits to 1e-3: loose.
			d32 := make([]float32, len(logits))
			require.InDelta(t, want, CrossEntropy(d32, s32, labels, v), 2e-3)
		})
	}
	t.Run("ties", func(t *testing.T) {
		// Row 0: ids 1 and 2 tie for the max, so 1 is predicted; row 1:
		// all tie, so 0 is.
		tied := []float32{0, 2, 2, 1, 1, 1}
		_, correct := crossEntropySum(make([]float32, 6), tied, []int32{1, 0}, 3, 1, 0)
		require.Equal(t, 2, correct)
		_, correct = crossEntropySum(make([]float32, 6), tied, []int32{2, 1}, 3, 1, 0)
		require.Equal(t, 0, correct)
	})
}

// TestTokenGradientCheck is TestGradientCheck for token models in
// float64: the token table, positions, blocks, the final LayerNorm and
// the vocabulary head, with no idea, with the gate, without positions,
// and with every registered idea not at the head site.
func TestTokenGradientCheck(t *testing.T) {
	cases := []struct {
		name string
		g    idea.Config
		pos  string
	}{
		{"baseline", idea.Config{}, ""},
		{"gate", gateIdea(0.8, 0.7), ""},
		{"no_positions", gateIdea(0.8, 0.7), PositionsNone},
	}
	for _, name := range idea.Names() {
		cases = append(cases, struct {
			name string
			g    idea.Config
			pos  string
		}{"idea_" + name, idea.Config{Name: name}, ""})
	}
	for _, tc := range cases {
		c := Config{D: 8, Heads: 2, Layers: 2, T: 6, Vocab: 7, Idea: tc.g, Positions: tc.pos}
		if err := c.Validate(); err != nil {
			continue // an idea at the head
		}
		t.Run(tc.name, func(t *testing.T) {
			const b = 3
			r := rand.New(rand.NewPCG(7, 2))
			m := randomModel(t, c, b, r)
			batch := previousTokenBatch(r, b, c.T, c.Vocab, 2)
			batch.Labels[0] = 4 // position 0 labelled too: it sees only itself
			labels := labelsOf(batch)
			loss := func() float64 {
				logits := m.ForwardTokens(batch)
				return CrossEntropy(make([]float64, len(logits)), logits, labels, c.Vocab)
			}
			logits := m.ForwardTokens(batch)
			dl := make([]float64, len(logits))
			CrossEntropy(dl, logits, labels, c.Vocab)
			m.BackwardTokens(dl)
			worst := 0.0
			for _, ti := range m.Params.Tensors {
				e := relErr(m.Grads.View(ti), numericGrad(loss, m.Params.View(ti)))
				worst = max(worst, e)
				if !(e <= gradTol) {
					t.Errorf("%s: max rel err %.3e > %.0e", ti.Name, e, gradTol)
				}
			}
			t.Logf("max rel err over %d tensors: %.2e", len(m.Params.Tensors), worst)
		})
	}
}

// labelsOf returns the labels of batch's labelled positions in order.
func labelsOf(b TokenBatch) []int32 {
	var out []int32
	for _, l := range b.Labels {
		if l >= 0 {
			out = append(out, l)
		}
	}
	return out
}

// TestTokenTrainStepKeepsBits: TrainStepTokens, run Config.TrainWindows
// sequences at a time, sequentially, pipelined, and with its products
// split among three goroutines, gives the loss, gradients and parameters
// of one ForwardTokens, CrossEntropy and BackwardTokens over the whole
// batch followed by the same Adam step, bit for bit, in both element
// types.
func TestTokenTrainStepKeepsBits(t *testing.T) {
	long := tokenConfig(gateIdea(0.8, 0.7))
	long.T, long.D = 96, 32 // one sequence a chunk
	for _, v := range []struct {
		name string
		c    Config
	}{
		{"base", tokenConfig(idea.Config{})},
		{"gate", tokenConfig(gateIdea(0.8, 0.7))},
		{"conv_no_positions", func() Config {
			c := tokenConfig(idea.Config{Name: "conv"})
			c.Positions = PositionsNone
			return c
		}()},
		{"long", long},
	} {
		for _, b := range []int{1, TrainChunk - 1, 2*TrainChunk + 3} {
			for _, mode := range []string{"sequential", "pipelined", "threads=3"} {
				t.Run(fmt.Sprintf("%s/float32/b=%d/%s", v.name, b, mode), func(t *testing.T) { tokenChunkCase[float32](t, v.c, b, mode) })
			}
		}
		t.Run(v.name+"/float64/b=19", func(t *testing.T) { tokenChunkCase[float64](t, v.c, 19, "pipelined") })
	}
}

func tokenChunkCase[F Float](t *testing.T, c Config, b int, mode string) {
	whole, err := New[F](c, b)
	require.NoError(t, err)
	chunked, err := New[F](c, b)
	require.NoError(t, err)
	whole.Params.Init(rand.New(rand.NewPCG(6, 6)))
	copy(chunked.Params.Data, whole.Params.Data)
	optW, optC := NewAdamW(whole.Params, 0.1), NewAdamW(chunked.Params, 0.1)
	optW.Clip, optC.Clip = 0.5, 0.5
	if mode == "threads=3" {
		defer SetThreads(SetThreads(3))
	}
	r := rand.New(rand.NewPCG(3, uint64(b)))
	for step := range 3 {
		batch := previousTokenBatch(r, b, c.T, c.Vocab, 3)
		logits := whole.ForwardTokens(batch)
		dl := make([]F, len(logits))
		wantLoss := CrossEntropy(dl, logits, labelsOf(batch), c.Vocab)
		clear(whole.Grads.Data)
		whole.BackwardTokens(dl)
		optW.Step(whole.Params.Data, whole.Grads.Data, 2e-3)

		var gotLoss float64
		if mode == "threads=3" {
			gotLoss = chunked.TrainStepTokens(optC, batch, 2e-3)
		} else {
			gotLoss = chunked.trainStepTokens(optC, batch, 2e-3, mode == "pipelined")
		}
		require.Equal(t, math.Float64bits(wantLoss), math.Float64bits(gotLoss), "step %d: loss %v, want %v", step, gotLoss, wantLoss)
		require.True(t, bitsEqual(whole.Grads.Data, chunked.Grads.Data), "step %d: gradients differ", step)
		require.True(t, bitsEqual(whole.Params.Data, chunked.Params.Data), "step %d: parameters differ", step)
	}
}

// TestTokenEvaluate: Evaluate's cross-entropy has the bits of
// CrossEntropy over ForwardTokens' logits, its accuracy counts the
// argmax hits, and a batch larger than MaxBatch runs in chunks.
func TestTokenEvaluate(t *testing.T) {
	c := tokenConfig(gateIdea(0.8, 0.7))
	const b = 2*TrainChunk + 3
	m, err := New[float32](c, b)
	require.NoError(t, err)
	m.Params.Init(rand.New(rand.NewPCG(2, 2)))
	batch := previousTokenBatch(rand.New(rand.NewPCG(8, 8)), b, c.T, c.Vocab, 4)
	logits := append([]float32(nil), m.ForwardTokens(batch)...)
	labels := labelsOf(batch)
	want := CrossEntropy(make([]float32, len(logits)), logits, labels, c.Vocab)
	hits := 0
	for i, y := range labels {
		best := 0
		for j, z := range logits[i*c.Vocab : (i+1)*c.Vocab] {
			if z > logits[i*c.Vocab+best] {
				best = j
			}
		}
		if best == int(y) {
			hits++
		}
	}
	ce, acc, n := m.Evaluate(batch)
	require.Equal(t, len(labels), n)
	require.Equal(t, math.Float64bits(want), math.Float64bits(ce), "ce %v, want %v", ce, want)
	require.Equal(t, float64(hits)*(1/float64(n)), acc)

	small, err := New[float32](c, 3)
	require.NoError(t, err)
	copy(small.Params.Data, m.Params.Data)
	ce2, acc2, n2 := small.Evaluate(batch)
	require.Equal(t, math.Float64bits(ce), math.Float64bits(ce2))
	require.Equal(t, acc, acc2)
	require.Equal(t, n, n2)
}

// tokenPins pin 8 Adam steps of a small token model (batch 8, 3 labels
// a sequence) with the gate (the full last block) and without an idea
// (the tail on the labelled rows): its losses' bits and the SHA-256 of
// its parameters'. A change of the numerics changes them.
var tokenPins = []struct {
	name   string
	g      idea.Config
	losses []uint64
	sha256 string
}{
	{"gate", gateIdea(0.9, 0.5), []uint64{
		0x400337d4c3d55c22, 0x40036b001b4d05ea, 0x4002f5e73c0d3e9c, 0x400360f30f00f601,
		0x4002e2dffa2c83ce, 0x40034cea926235a0, 0x40036988f17c0a5a, 0x40032e989b8b4c14,
	}, "ee921732282a0241b594244109b710b0f4df1295e9c4c55dcdc401f7cd1b012f"},
	{"tail", idea.Config{}, []uint64{
		0x400337d4c3776ff6, 0x40036b001096a5c1, 0x4002f5e75ffe3a63, 0x400360f3583c840a,
		0x4002e2e012f78eaa, 0x40034cea9e3801bc, 0x40036988ddf61858, 0x40032e98b6ac6815,
	}, "2740dfecbccae24f5f931ad28de339a0b10cd03dd6a77cedeef21eaafa60d9ca"},
}

func TestTokenBitsPinned(t *testing.T) {
	for _, pin := range tokenPins {
		t.Run(pin.name, func(t *testing.T) {
			losses, sum := trainTokensPinned(t, pin.g)
			require.Equal(t, pin.losses, losses, "loss bits (%#x)", losses)
			require.Equal(t, pin.sha256, sum, "trained parameter bits")
		})
	}
}

// trainTokensPinned runs TestTokenBitsPinned's 8 steps with idea g and
// returns the losses' bits and the parameters' SHA-256.
func trainTokensPinned(t *testing.T, g idea.Config) ([]uint64, string) {
	c := tokenConfig(g)
	const b = 8
	m, err := New[float32](c, b)
	require.NoError(t, err)
	m.Params.Init(rand.New(rand.NewPCG(5, 5)))
	opt := NewAdam[float32](c.NumParams())
	r := rand.New(rand.NewPCG(9, 9))
	var losses []uint64
	for range 8 {
		losses = append(losses, math.Float64bits(m.TrainStepTokens(opt, previousTokenBatch(r, b, c.T, c.Vocab, 3), 3e-3)))
	}
	h := sha256.New()
	for _, v := range m.Params.Data {
		h.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)))
	}
	return losses, hex.EncodeToString(h.Sum(nil))
}

// TestTokenLearns: a token model learns the previous-token task (each
// labelled position names the token before it): 300 steps take the
// cross-entropy from log(V) well below it and the accuracy above chance.
func TestTokenLearns(t *testing.T) {
	c := Config{D: 32, Heads: 4, Layers: 2, T: 16, Vocab: 16}
	const b = 16
	m, err := New[float32](c, b)
	require.NoError(t, err)
	m.Params.Init(rand.New(rand.NewPCG(1, 2)))
	opt := NewAdamW(m.Params, 0.01)
	r := rand.New(rand.NewPCG(3, 4))
	for range 300 {
		m.TrainStepTokens(opt, previousTokenBatch(r, b, c.T, c.Vocab, 4), 3e-3)
	}
	ce, acc, n := m.Evaluate(previousTokenBatch(rand.New(rand.NewPCG(5, 6)), 64, c.T, c.Vocab, 4))
	t.Logf("after 300 steps: ce %.3f (log V %.3f), accuracy %.3f over %d", ce, math.Log(16), acc, n)
	require.Less(t, ce, 0.5*math.Log(16))
	require.Greater(t, acc, 0.5)
}

func TestTokenCheckpointRoundTrip(t *testing.T) {
	c := tokenConfig(gateIdea(0.9, 1))
	c.Positions = PositionsNone
	m, err := New[float32](c, 2)
	require.NoError(t, err)
	m.Params.Init(rand.New(rand.NewPCG(5, 5)))
	path := filepath.Join(t.TempDir(), "tokens.safetensors")
	require.NoError(t, SaveCheckpoint(path, m, nil))
	got, _, err := LoadCheckpoint[float32](path, 2)
	require.NoError(t, err)
	require.Equal(t, c, got.Config)
	require.True(t, equal(m.Params.Data, got.Params.Data))
	names := map[string]bool{}
	for _, ti := range got.Params.Tensors {
		names[ti.Name] = true
	}
	require.True(t, names["tok_embed.weight"] && names["head.weight"] && !names["pos_embed"] && !names["embed.weight"])
	batch := previousTokenBatch(rand.New(rand.NewPCG(1, 1)), 2, c.T, c.Vocab, 3)
	require.True(t, equal(append([]float32(nil), m.ForwardTokens(batch)...), got.ForwardTokens(batch)))
}

// TestTokenFLOPs checks TokenStepFLOPs by hand at the benchmark shape,
// with the tail (no idea: the last block's projection and MLP, 9·D² a
// row, skip the unlabelled rows) and without (the gate scans them).
func TestTokenFLOPs(t *testing.T) {
	const b, labelled = 64, 64 * 8
	n, d := float64(b*64), 64.0
	blocks := 2 * (2*n*12*d*d + 4*b*(64*65/2)*d)
	head := 2 * labelled * d * 256
	for _, tc := range []struct {
		name string
		g    idea.Config
		want float64
	}{
		{"tail", idea.Config{}, 3 * (blocks + head - 2*(n-labelled)*9*d*d)},
		{"gate", gateIdea(0.8, 0.5), 3 * (blocks + head)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{D: 64, Heads: 4, Layers: 2, T: 64, Vocab: 256, Idea: tc.g}
			require.Equal(t, tc.want, c.TokenStepFLOPs(b, labelled))
			require.Equal(t, 3*(blocks+2*n*d*256), c.FLOPsPerStep(b)) // every row labelled
			require.Equal(t, c.FLOPsPerStep(b), c.StepFLOPs(b))
		})
	}
}

// TestTokenTailKeepsBits: the tail (the last block's projection and MLP
// on the labelled rows only) gives the logits, gradients and Evaluate
// results of the full last block bit for bit: each row is computed as
// among all rows, and the rows it skips add exact zeros to the
// gradients' sums.
func TestTokenTailKeepsBits(t *testing.T) {
	for _, tc := range []struct {
		name string
		g    idea.Config
	}{{"base", idea.Config{}}, {"conv", idea.Config{Name: "conv"}}, {"fox", idea.Config{Name: "fox"}}, {"qk-norm", idea.Config{Name: "qk-norm"}},
		{"rmsnorm", idea.Config{Name: "rmsnorm"}}, {"swiglu", idea.Config{Name: "swiglu"}}} {
		t.Run(tc.name, func(t *testing.T) {
			c := tokenConfig(tc.g)
			require.True(t, c.tokenTail())
			const b = 5
			batch := previousTokenBatch(rand.New(rand.NewPCG(4, 4)), b, c.T, c.Vocab, 3)
			run := func(off bool) (logits, grads []float32, ce float64) {
				defer func(v bool) { noTail = v }(noTail)
				noTail = off
				m, err := New[float32](c, b)
				require.NoError(t, err)
				m.Params.Init(rand.New(rand.NewPCG(3, 3)))
				logits = append([]float32(nil), m.ForwardTokens(batch)...)
				dl := make([]float32, len(logits))
				CrossEntropy(dl, logits, labelsOf(batch), c.Vocab)
				m.BackwardTokens(dl)
				ce, _, _ = m.Evaluate(batch)
				return logits, m.Grads.Data, ce
			}
			l1, g1, ce1 := run(false)
			l2, g2, ce2 := run(true)
			require.True(t, bitsEqual(l1, l2), "logits differ")
			require.True(t, bitsEqual(g1, g2), "gradients differ")
			require.Equal(t, math.Float64bits(ce2), math.Float64bits(ce1))
		})
	}
}
