package transformer

import "github.com/ideabench/ideabench/track"

// MSELoss returns the training loss of forecasts pred (B,N,H) against the
// windows' target values y (B,T+H), and overwrites dpred (B,N,H) with its
// gradient. Token n forecasts the H values after its last input,
// y[e_n+1 : e_n+1+H] with e_n = (n+1)·P-1 (P = PatchLen); a window holds
// T+H values, so every (token, step) pair has its target inside it. With
// Loss "all" every token is scored, with "last" only token N-1 (the set S
// below; dpred is 0 elsewhere):
//
//	loss = 1/(B·|S|·H) · Σ_{b, n∈S, h} (pred[b,n,h] - y[b,e_n+1+h])²
//	dpred = 2/(B·|S|·H) · (pred - target)
//
// The sum runs in float64 so the reported loss does not depend on the
// element type's rounding.
func MSELoss[F Float](c Config, dpred, pred, y []F, b int) float64 {
	if len(pred) != b*c.Tokens()*c.H || len(dpred) != len(pred) || len(y) != b*(c.T+c.H) {
		panic("transformer: MSELoss shapes do not match (B,N,H) and (B,T+H)")
	}
	scale := c.lossScale(b)
	return mseSum(c, dpred, pred, y, b, scale, 0) * scale
}

// lossScale is 1/(B·|S|·H), the normalization of MSELoss over b windows.
func (c Config) lossScale(b int) float64 {
	n := c.Tokens()
	if c.lastOnly() {
		n = 1
	}
	return 1 / float64(b*n*c.H)
}

// mseSum adds the squared errors of b windows to sum, in MSELoss's order,
// and returns it; dpred gets 2·scale·(pred − target). TrainStep runs it
// chunk after chunk with the whole batch's scale, which is MSELoss's sum.
func mseSum[F Float](c Config, dpred, pred, y []F, b int, scale, sum float64) float64 {
	n, p, h := c.Tokens(), c.PatchLen(), c.H
	for bi := range b {
		for ti := range n {
			pr := pred[(bi*n+ti)*h:][:h]
			dp := dpred[(bi*n+ti)*h:][:h]
			if c.lastOnly() && ti < n-1 {
				clear(dp)
				continue
			}
			tgt := y[bi*(c.T+h)+(ti+1)*p:][:h]
			for k, v := range pr {
				e := float64(v) - float64(tgt[k])
				sum += float64(e * e)
				dp[k] = F(2 * scale * e)
			}
		}
	}
	return sum
}

// LastPositionSSE returns the sum of squared errors of the last token's
// H-step forecasts over b windows, pred (B,N,H) against y (B,T+H): the
// evaluation metric's numerator.
//
//	sse = Σ_{b,h} (pred[b,N-1,h] - y[b,T+h])²
func LastPositionSSE[F Float](c Config, pred, y []F, b int) float64 {
	n, t, h := c.Tokens(), c.T, c.H
	if len(pred) != b*n*h || len(y) != b*(t+h) {
		panic("transformer: LastPositionSSE shapes do not match (B,N,H) and (B,T+H)")
	}
	var sum float64
	for bi := range b {
		sum = track.SquaredError(sum, pred[(bi*n+n-1)*h:][:h], y[bi*(t+h)+t:][:h])
	}
	return sum
}
