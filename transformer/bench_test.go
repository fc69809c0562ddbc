package transformer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/kernel"
)

var benchGates = []struct {
	name string
	p    idea.Config
}{{"off", idea.Config{}}, {"on", gateIdea(0.9, 0.5)}}

// benchModel is the default model at batch 32 with initialized weights and
// a sinusoid batch.
func benchModel(b *testing.B, g idea.Config) (m *Model[float32], c Config, x, y []float32) {
	c = DefaultConfig()
	c.Idea = g
	const batch = 32
	m, err := New[float32](c, batch)
	if err != nil {
		b.Fatal(err)
	}
	m.Params.Init(rand.New(rand.NewPCG(1, 1)))
	x, y = sineBatch(c, batch, 0, 0.1)
	return m, c, x, y
}

// BenchmarkTrainStep times one training step (forward, loss, backward,
// Adam) of the default model at batch 32, gate off and on.
func BenchmarkTrainStep(b *testing.B) {
	for _, g := range benchGates {
		b.Run(fmt.Sprintf("gate=%s", g.name), func(b *testing.B) {
			m, c, x, y := benchModel(b, g.p)
			opt := NewAdam[float32](c.NumParams())
			b.ReportAllocs()
			for b.Loop() {
				m.TrainStep(opt, x, y, m.MaxBatch, 1e-3)
			}
			perStep := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(perStep*1e3, "ms/step")
			b.ReportMetric(1/perStep, "steps/s")
			b.ReportMetric(c.StepFLOPs(m.MaxBatch)/perStep/1e9, "GFLOP/s")
		})
	}
}

// benchShapes are the training-step shapes of BenchmarkTrainStepShapes:
// the default model, an ETT univariate model (T = H = 96, a token per
// position), a large multichannel one, and the multivariate csv model
// (look-back 336 in tokens of 16, horizon 96, norm "last", the skip
// path, the last token trained: the model each channel of weather goes
// through under csv channels "independent").
var benchShapes = []struct {
	name string
	c    Config
}{
	{"default", Config{D: 32, Heads: 4, Layers: 2, T: 32, H: 8, CIn: 1}},
	{"ett", Config{D: 64, Heads: 4, Layers: 2, T: 96, H: 96, CIn: 1}},
	{"large", Config{D: 128, Heads: 8, Layers: 3, T: 96, H: 96, CIn: 7}},
	{"multivariate", Config{D: 32, Heads: 4, Layers: 2, T: 336, H: 96, CIn: 1, Patch: 16, Norm: NormLast, Skip: true, Loss: LossLast}},
}

// BenchmarkTrainStepShapes times one training step (batch 32, no idea)
// at each of benchShapes, and of the token models of tokenShapes (batch
// 64), with its GFLOP/s (Config.StepFLOPs) and
// that as a share of the FP32 peak of one core measured in the same
// process (kernel.Peak), which it reports too (peak-GFLOP/s). With -cpu
// N above 1 it also times the step with its products split among N
// goroutines (SetThreads; the same bits).
func BenchmarkTrainStepShapes(b *testing.B) {
	peak, _ := kernel.Peak()
	threads := []int{1}
	if n := runtime.GOMAXPROCS(0); n > 1 {
		threads = append(threads, n)
	}
	for _, sh := range benchShapes {
		for _, th := range threads {
			b.Run(fmt.Sprintf("shape=%s/threads=%d", sh.name, th), func(b *testing.B) {
				defer SetThreads(SetThreads(th))
				benchShape(b, sh.c, peak)
			})
		}
	}
	for _, sh := range tokenShapes {
		for _, th := range threads {
			b.Run(fmt.Sprintf("shape=%s/threads=%d", sh.name, th), func(b *testing.B) {
				defer SetThreads(SetThreads(th))
				benchTokenShape(b, sh.c, sh.labels, peak)
			})
		}
	}
}

// benchShape times training steps of a model of config c at batch 32.
func benchShape(b *testing.B, c Config, peak float64) {
	const batch = 32
	m, x, y := benchModelOf(b, c, batch)
	opt := NewAdam[float32](c.NumParams())
	for b.Loop() {
		m.TrainStep(opt, x, y, m.MaxBatch, 1e-3)
	}
	perStep := b.Elapsed().Seconds() / float64(b.N)
	gf := c.StepFLOPs(batch) / perStep / 1e9
	b.ReportMetric(perStep*1e3, "ms/step")
	b.ReportMetric(gf, "GFLOP/s")
	if peak > 0 {
		b.ReportMetric(100*gf/peak, "%peak")
		b.ReportMetric(peak, "peak-GFLOP/s")
	}
}

// tokenShapes are the token models BenchmarkTrainStepShapes times
// beside benchShapes, at batch 64 (the token tracks' batch): the recall
// tracks' width (vocabulary 256, T 64, 8 labels a sequence) and Zoology's
// MQAR shape (vocabulary 8192, T 128, 8 pairs queried), where the head
// at the labelled rows only saves most of the vocabulary product.
var tokenShapes = []struct {
	name   string
	c      Config
	labels int
}{
	{"recall", Config{D: 64, Heads: 4, Layers: 2, T: 64, Vocab: 256}, 8},
	{"mqar-8192", Config{D: 64, Heads: 4, Layers: 2, T: 128, Vocab: 8192}, 8},
}

// benchTokenShape times TrainStepTokens (forward, cross-entropy at the
// labelled positions, backward, Adam) of a token model of config c at
// batch 64, labels labelled positions a sequence, with its GFLOP/s
// (Config.TokenStepFLOPs) and that as a share of peak.
func benchTokenShape(b *testing.B, c Config, labels int, peak float64) {
	const batch = 64
	m, err := New[float32](c, batch)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	m.Params.Init(r)
	tb := previousTokenBatch(r, batch, c.T, c.Vocab, labels)
	opt := NewAdam[float32](c.NumParams())
	b.ReportAllocs()
	for b.Loop() {
		m.TrainStepTokens(opt, tb, 1e-3)
	}
	perStep := b.Elapsed().Seconds() / float64(b.N)
	gf := c.TokenStepFLOPs(batch, batch*labels) / perStep / 1e9
	b.ReportMetric(perStep*1e3, "ms/step")
	b.ReportMetric(gf, "GFLOP/s")
	if peak > 0 {
		b.ReportMetric(100*gf/peak, "%peak")
		b.ReportMetric(peak, "peak-GFLOP/s")
	}
}

// BenchmarkForward times the forward pass alone (the evaluation path),
// and BenchmarkBackward the backward pass alone after one forward.
func BenchmarkForward(b *testing.B) {
	for _, g := range benchGates {
		b.Run(fmt.Sprintf("gate=%s", g.name), func(b *testing.B) {
			m, _, x, _ := benchModel(b, g.p)
			b.ReportAllocs()
			for b.Loop() {
				m.Forward(x, m.MaxBatch)
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*1e3, "ms/op")
		})
	}
}

func BenchmarkBackward(b *testing.B) {
	for _, g := range benchGates {
		b.Run(fmt.Sprintf("gate=%s", g.name), func(b *testing.B) {
			m, c, x, y := benchModel(b, g.p)
			pred := m.Forward(x, m.MaxBatch)
			dpred := make([]float32, len(pred))
			MSELoss(c, dpred, pred, y, m.MaxBatch)
			b.ReportAllocs()
			for b.Loop() {
				m.Backward(nil, dpred)
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)*1e3, "ms/op")
		})
	}
}

// BenchmarkLayerNorm times the LayerNorm passes on one (B·T, D) activation
// of the default model at batch 32, in ns per row.
func BenchmarkLayerNorm(b *testing.B) {
	c := DefaultConfig()
	n, d := 32*c.T, c.D
	r := rand.New(rand.NewPCG(2, 3))
	v := func(k int) []float32 { return normals32(r, k) }
	x, dout, w, bias := v(n*d), v(n*d), v(d), v(d)
	out, dx, dw, db := make([]float32, n*d), make([]float32, n*d), make([]float32, d), make([]float32, d)
	mean, rstd, gm, gxm := make([]float32, n), make([]float32, n), make([]float32, n), make([]float32, n)
	b.Run("pass=forward", func(b *testing.B) {
		for b.Loop() {
			layerNormForward(out, mean, rstd, x, w, bias, n, d)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
	})
	b.Run("pass=backward", func(b *testing.B) {
		layerNormForward(out, mean, rstd, x, w, bias, n, d)
		for b.Loop() {
			layerNormBackward(dx, dw, db, dout, x, mean, rstd, w, gm, gxm, n, d)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/row")
	})
}

// BenchmarkAttention times causal attention on one TrainChunk (8 windows)
// at each of benchShapes, in µs per head.
func BenchmarkAttention(b *testing.B) {
	for _, sh := range benchShapes {
		c := sh.c
		bw, t, d, nh := TrainChunk, c.T, c.D, c.Heads
		r := rand.New(rand.NewPCG(4, 5))
		qkv, dout := normals32(r, bw*t*3*d), normals32(r, bw*t*d)
		out, att, dqkv := make([]float32, bw*t*d), make([]float32, bw*nh*t*t), make([]float32, bw*t*3*d)
		ds, kt := make([]float32, nh*t*t), make([]float32, d*t)
		var pair []float32
		if pairKernel[float32](t, d/nh, nh) {
			pair = make([]float32, nh*t*t)
		}
		heads := float64(bw * nh)
		b.Run(fmt.Sprintf("shape=%s/pass=forward", sh.name), func(b *testing.B) {
			for b.Loop() {
				attentionForward(out, att, kt, qkv, nil, bw, t, d, nh)
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/heads*1e6, "µs/head")
		})
		b.Run(fmt.Sprintf("shape=%s/pass=backward", sh.name), func(b *testing.B) {
			attentionForward(out, att, kt, qkv, nil, bw, t, d, nh)
			for b.Loop() {
				attentionBackward(dqkv, ds, pair, kt, dout, att, qkv, nil, bw, t, d, nh)
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/heads*1e6, "µs/head")
		})
	}
}

// TestThreadsKeepBits: training steps of a model large enough for its
// products to split among goroutines give the same parameters, bit for
// bit, with 1 and with 3 threads.
func TestThreadsKeepBits(t *testing.T) {
	c := Config{D: 64, Heads: 4, Layers: 2, T: 48, H: 16, CIn: 2}
	const batch = 32
	train := func(threads int) []float32 {
		defer SetThreads(SetThreads(threads))
		m, x, y := benchModelOf(t, c, batch)
		opt := NewAdam[float32](c.NumParams())
		for range 3 {
			m.TrainStep(opt, x, y, batch, 1e-3)
		}
		return append([]float32(nil), m.Params.Data...)
	}
	one, three := train(1), train(3)
	for i := range one {
		if math.Float32bits(one[i]) != math.Float32bits(three[i]) {
			t.Fatalf("parameter %d: %v with 3 threads, %v with 1", i, three[i], one[i])
		}
	}
}

// benchModelOf returns a model of config c for batch windows, initialized
// from PCG(1, 1), with a batch x (B,T,CIn) and y (B,T+H) of standard
// normal values drawn after the weights.
func benchModelOf(tb testing.TB, c Config, batch int) (m *Model[float32], x, y []float32) {
	tb.Helper()
	m, err := New[float32](c, batch)
	if err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 1))
	m.Params.Init(r)
	x, y = make([]float32, batch*c.T*c.CIn), make([]float32, batch*(c.T+c.H))
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	for i := range y {
		y[i] = float32(r.NormFloat64())
	}
	return m, x, y
}

// normals32 returns k standard normal values from r as float32.
func normals32(r *rand.Rand, k int) []float32 {
	s := make([]float32, k)
	for i := range s {
		s[i] = float32(r.NormFloat64())
	}
	return s
}
