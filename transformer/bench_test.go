package transformer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ideabench/ideabench/gate"
)

// BenchmarkTrainStep times one training step (forward, loss, backward,
// Adam) of the default model at batch 32, gate off and on.
func BenchmarkTrainStep(b *testing.B) {
	for _, g := range []struct {
		name string
		p    gate.Params
	}{{"off", gate.Params{}}, {"on", gate.Params{Rho: 0.9, Beta: 0.5}}} {
		b.Run(fmt.Sprintf("gate=%s", g.name), func(b *testing.B) {
			c := DefaultConfig()
			c.Gate = g.p
			const batch = 32
			m, err := New[float32](c, batch)
			if err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, 1))
			m.Params.Init(r)
			opt := NewAdam[float32](c.NumParams())
			x, y := sineBatch(c, batch, 0, 0.1)
			b.ReportAllocs()
			for b.Loop() {
				m.TrainStep(opt, x, y, batch, 1e-3)
			}
			perStep := b.Elapsed().Seconds() / float64(b.N)
			b.ReportMetric(perStep*1e3, "ms/step")
			b.ReportMetric(c.FLOPsPerStep(batch)/perStep/1e9, "GFLOP/s")
		})
	}
}
