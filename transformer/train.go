package transformer

import "fmt"

// TrainStep runs one optimization step on b windows: forward, MSELoss,
// gradients zeroed then accumulated by Backward, one Adam update with
// learning rate lr. x is (B,T,CIn), y (B,T+H). It returns the loss before
// the update.
//
// The windows run forward and backward Config.TrainWindows at a time
// (within about the L2 cache). That gives the bits of one Forward, MSELoss
// and Backward over the whole batch: every quantity is either per window
// or a sum over rows in increasing order, which the chunks continue.
// TrainStep leaves nothing for GateState, GateInput or Backward.
func (m *Model[F]) TrainStep(opt *Adam[F], x, y []F, b int, lr float64) float64 {
	return m.trainStep(opt, x, y, b, lr, m.Config.pipelined())
}

// trainStep is TrainStep, its chunks pipelined (trainPipelined) when pipe
// is set and there are two or more.
func (m *Model[F]) trainStep(opt *Adam[F], x, y []F, b int, lr float64, pipe bool) float64 {
	c := m.Config
	m.checkBatch(x, b)
	if len(y) != b*(c.T+c.H) {
		panic(fmt.Sprintf("transformer: TrainStep: y has length %d, want B·(T+H) = %d", len(y), b*(c.T+c.H)))
	}
	in := stepInput[F]{x: x, y: y, scale: c.lossScale(b)}
	sum := m.accumulate(in, b, pipe)
	opt.Step(m.Params.Data, m.Grads.Data, lr)
	return sum * in.scale
}

// stepInput is one training batch as the chunks read it: a forecaster's
// x (B,T,CIn) and y (B,T+H), or a token model's ids and labels (B,T);
// scale is the loss normalization of the whole batch.
type stepInput[F Float] struct {
	x, y           []F
	tokens, labels []int32
	scale          float64
}

// accumulate packs the weights, zeroes the gradients and runs the b
// windows of in forward, through the loss and backward,
// Config.TrainWindows at a time (pipelined when pipe is set and there
// are two chunks or more); it returns the loss sum, the gradients are in
// m.Grads.
func (m *Model[F]) accumulate(in stepInput[F], b int, pipe bool) float64 {
	c := m.Config
	m.wt.pack(c, m.Params)
	clear(m.Grads.Data)
	w := min(m.chunk.n, c.TrainWindows())
	if pipe && b > w {
		return m.trainPipelined(in, b, w)
	}
	var sum float64
	for b0 := 0; b0 < b; b0 += w {
		var dpred []F
		dpred, sum = m.chunkLoss(m.chunk, in, b0, min(w, b-b0), sum)
		m.backward(m.chunk, nil, dpred)
	}
	return sum
}

// chunkLoss runs the forward pass of windows [b0, b0+cb) of in into s and
// their loss, added to sum; it returns the loss gradient of the outputs
// (in s) and the new sum.
func (m *Model[F]) chunkLoss(s *acts[F], in stepInput[F], b0, cb int, sum float64) ([]F, float64) {
	c := m.Config
	if c.tokenMode() {
		return m.chunkTokenLoss(s, in, b0, cb, sum)
	}
	xw, yw := c.T*c.CIn, c.T+c.H // one window of x and y
	pred := m.forward(s, in.x[b0*xw:(b0+cb)*xw], cb, true)
	dpred := s.dpred[:len(pred)]
	return dpred, mseSum(c, dpred, pred, in.y[b0*yw:(b0+cb)*yw], cb, in.scale, sum)
}

// trainPipelined runs TrainStep's chunks of w windows as a two-stage
// pipeline on two goroutines: one runs the forward passes and the loss in
// chunk order, the other the backward passes in the same order, each
// chunk in one of two activation buffers, so chunk i+1's forward runs
// while chunk i's backward does. Nothing a forward pass reads changes
// during the step (the parameters and their packed transposes), the loss
// adds its chunks in order on the forward goroutine, and the gradients
// accumulate in order on the backward one, so the bits are those of the
// sequential loop. It returns the loss sum.
func (m *Model[F]) trainPipelined(in stepInput[F], b, w int) float64 {
	c := m.Config
	if m.chunk2 == nil || m.chunk2.n < w {
		m.chunk2 = newActs[F](c, w) // w windows, not TrainChunk: a large model's chunk is 3 MB a window
		m.chunk2.step = true
	}
	bufs := [2]*acts[F]{m.chunk, m.chunk2}
	var dpred [2][]F
	free, ready := make(chan int, 2), make(chan int, 2)
	free <- 0
	free <- 1
	var sum float64 // written by the forward goroutine, read after its last send
	go func() {
		for b0 := 0; b0 < b; b0 += w {
			k := <-free
			dpred[k], sum = m.chunkLoss(bufs[k], in, b0, min(w, b-b0), sum)
			ready <- k
		}
	}()
	for b0 := 0; b0 < b; b0 += w {
		k := <-ready
		m.backward(bufs[k], nil, dpred[k])
		free <- k
	}
	return sum
}
