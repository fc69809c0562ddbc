package transformer

// TrainStep runs one optimization step on b windows: forward, MSELoss,
// gradients zeroed then accumulated by Backward, one Adam update with
// learning rate lr. x is (B,T,CIn), y (B,T+H). It returns the loss before
// the update.
func (m *Model[F]) TrainStep(opt *Adam[F], x, y []F, b int, lr float64) float64 {
	c := m.Config
	pred := m.Forward(x, b)
	dpred := m.dpred[:len(pred)]
	loss := MSELoss(dpred, pred, y, b, c.T, c.H)
	clear(m.Grads.Data)
	m.Backward(nil, dpred)
	opt.Step(m.Params.Data, m.Grads.Data, lr)
	return loss
}
