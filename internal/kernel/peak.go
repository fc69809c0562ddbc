package kernel

import (
	"sync"
	"time"
)

var peakOnce struct {
	sync.Once
	gflops float64
	name   string
}

// Peak returns the machine's FP32 ceiling on one core, in GFLOP/s, and
// the probe that reached it: the best of five timed runs of each
// register-only FMA loop this CPU has (an FMA counts as two flops),
// measured once per process. 0 and "" where no probe runs (the purego
// build, other architectures). Kernel and training-step throughput are
// quoted as a share of it, measured in the same run.
func Peak() (gflops float64, probe string) {
	peakOnce.Do(func() {
		for _, p := range peakProbes {
			if !p.ok || p.name == "muladd-zmm" {
				continue
			}
			const iters = 1 << 22
			best := 1e300
			for range 5 {
				t0 := time.Now()
				p.run(iters)
				best = min(best, time.Since(t0).Seconds())
			}
			if g := p.flopPerIter * iters / best / 1e9; g > peakOnce.gflops {
				peakOnce.gflops, peakOnce.name = g, p.name
			}
		}
	})
	return peakOnce.gflops, peakOnce.name
}
