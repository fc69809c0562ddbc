package transformer

// MSELoss returns the training loss of forecasts pred (B,T,H) against the
// windows' target values y (B,T+H), and overwrites dpred (B,T,H) with its
// gradient. Position t forecasts y[t+1 : t+1+H]; a window holds T+H values,
// so every (position, step) pair has its target inside the window:
//
//	loss = 1/(B·T·H) · Σ_{b,t,h} (pred[b,t,h] - y[b,t+1+h])²
//	dpred = 2/(B·T·H) · (pred - target)
//
// The sum runs in float64 so the reported loss does not depend on the
// element type's rounding.
func MSELoss[F Float](dpred, pred, y []F, b, t, h int) float64 {
	if len(pred) != b*t*h || len(dpred) != len(pred) || len(y) != b*(t+h) {
		panic("transformer: MSELoss shapes do not match (B,T,H) and (B,T+H)")
	}
	scale := 1 / float64(b*t*h)
	return mseSum(dpred, pred, y, b, t, h, scale, 0) * scale
}

// mseSum adds the squared errors of b windows to sum, in MSELoss's order,
// and returns it; dpred gets 2·scale·(pred − target). TrainStep runs it
// chunk after chunk with the whole batch's scale, which is MSELoss's sum.
func mseSum[F Float](dpred, pred, y []F, b, t, h int, scale, sum float64) float64 {
	for bi := range b {
		for ti := range t {
			p := pred[(bi*t+ti)*h:][:h]
			tgt := y[bi*(t+h)+ti+1:][:h]
			dp := dpred[(bi*t+ti)*h:][:h]
			for k, v := range p {
				e := float64(v) - float64(tgt[k])
				sum += float64(e * e)
				dp[k] = F(2 * scale * e)
			}
		}
	}
	return sum
}

// LastPositionSSE returns the sum of squared errors of the last position's
// H-step forecasts over b windows: the evaluation metric's numerator.
//
//	sse = Σ_{b,h} (pred[b,T-1,h] - y[b,T+h])²
func LastPositionSSE[F Float](pred, y []F, b, t, h int) float64 {
	if len(pred) != b*t*h || len(y) != b*(t+h) {
		panic("transformer: LastPositionSSE shapes do not match (B,T,H) and (B,T+H)")
	}
	var sum float64
	for bi := range b {
		p := pred[(bi*t+t-1)*h:][:h]
		tgt := y[bi*(t+h)+t:][:h]
		for k, v := range p {
			e := float64(v) - float64(tgt[k])
			sum += float64(e * e)
		}
	}
	return sum
}
