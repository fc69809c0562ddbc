package kernel

import (
	"sync"
	"sync/atomic"
)

// threads is the number of goroutines one large product may use.
var threads atomic.Int32

func init() { threads.Store(1) }

// SetThreads lets each large product (Gemm, GemmScaled, GemmAdd and the
// weight gradients of LinearBackward) split its rows among n goroutines
// (at least 1); it returns the previous setting. It changes no bit of any
// result: every output element is still computed by one goroutine, in the
// canonical order. The harness raises it when fewer trials remain than
// workers, so that a trial uses the idle cores.
func SetThreads(n int) int { return int(threads.Swap(int32(max(1, n)))) }

// Threads returns the current setting of SetThreads.
func Threads() int { return int(threads.Load()) }

// ParMinFlops is the least work (2·M·N·K) split among goroutines: about
// 25 µs of one core, against a microsecond or two to start and join them.
const ParMinFlops = 1 << 26

// parallelRows calls f on consecutive row ranges [i0, i1) covering [0, m),
// concurrently on up to Threads() goroutines when the work is at least
// ParMinFlops and there are 16 rows or more; ranges are multiples of 8
// rows but the last. f must write only the rows it is given.
func parallelRows(m int, flops float64, f func(i0, i1 int)) {
	t := Threads()
	if t <= 1 || flops < ParMinFlops || m < 16 {
		f(0, m)
		return
	}
	t = min(t, m/8)
	chunk := (m/t + 7) / 8 * 8
	var wg sync.WaitGroup
	for i0 := chunk; i0 < m; i0 += chunk {
		wg.Go(func() { f(i0, min(i0+chunk, m)) })
	}
	f(0, min(chunk, m))
	wg.Wait()
}
