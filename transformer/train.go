package transformer

import "fmt"

// TrainStep runs one optimization step on b windows: forward, MSELoss,
// gradients zeroed then accumulated by Backward, one Adam update with
// learning rate lr. x is (B,T,CIn), y (B,T+H). It returns the loss before
// the update.
//
// The windows run forward and backward Config.TrainWindows at a time
// (within about the L2 cache). That gives
// the bits of one Forward, MSELoss and Backward over the whole batch: every
// quantity is either per window or a sum over rows in increasing order,
// which the chunks continue. TrainStep leaves nothing for GateState,
// GateInput or Backward.
func (m *Model[F]) TrainStep(opt *Adam[F], x, y []F, b int, lr float64) float64 {
	c := m.Config
	m.checkBatch(x, b)
	if len(y) != b*(c.T+c.H) {
		panic(fmt.Sprintf("transformer: TrainStep: y has length %d, want B·(T+H) = %d", len(y), b*(c.T+c.H)))
	}
	m.wt.pack(c, m.Params)
	clear(m.Grads.Data)
	s := m.chunk
	scale := c.lossScale(b)
	var sum float64
	xw, yw := c.T*c.CIn, c.T+c.H // one window of x and y
	w := min(s.n, c.TrainWindows())
	for b0 := 0; b0 < b; b0 += w {
		cb := min(w, b-b0)
		pred := m.forward(s, x[b0*xw:(b0+cb)*xw], cb, true)
		dpred := s.dpred[:len(pred)]
		sum = mseSum(c, dpred, pred, y[b0*yw:(b0+cb)*yw], cb, scale, sum)
		m.backward(s, nil, dpred)
	}
	opt.Step(m.Params.Data, m.Grads.Data, lr)
	return sum * scale
}
