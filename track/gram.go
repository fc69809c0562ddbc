package track

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// maxGramCond is the largest condition number of the normal equations
// FitSeries accepts: the Gram matrix squares the design's (cond(AᵀA) =
// cond(A)²), so this is a design condition number of 10⁷, beyond which a
// float64 normal-equation solution keeps fewer than about 2 significant
// digits of its weights (Golub & Van Loan, §5.3.8); the forecasts, which
// weigh the ill-determined directions least, keep more.
const maxGramCond = 1e14

// gram holds the sums of one or more univariate series' sliding windows
// of K = T+H values u = (z_n, …, z_{n+K-1}):
//
//	S[a][b] = Σ_n u_a·u_b,   s[a] = Σ_n u_a,   n = the number of windows
//
// everything the least-squares maps of the windows' T inputs to their H
// targets need (the normal equations), raw or last-value centred.
type gram struct {
	k int
	S []float64 // (K,K), symmetric
	s []float64 // (K)
	n float64
}

func newGram(k int) *gram {
	return &gram{k: k, S: make([]float64, k*k), s: make([]float64, k)}
}

// addSeries adds the windows of one series of a univariate split (C = 1,
// series layout, or packed with one window). Consecutive windows of one
// series overlap in all but one value, so the sums follow a recurrence
// along each diagonal,
//
//	S[a+1][b+1] = S[a][b] + z_{N+a}·z_{N+b} - z_a·z_b
//	s[a+1]      = s[a] + z_{N+a} - z_a
//
// from the first row S[0][b] = Σ_{n<N} z_n·z_{n+b}: O(N·K + K²) work for
// N windows instead of the O(N·K²) of forming AᵀA.
func (g *gram) addSeries(z []float64, nWin int) {
	k := g.k
	if len(z) != nWin+k-1 {
		panic(fmt.Sprintf("track: gram.addSeries: %d values for %d windows of %d", len(z), nWin, k))
	}
	row := make([]float64, k) // S[0][b] of this series
	for b := range k {
		var sum float64
		for n := range nWin {
			sum += float64(z[n] * z[n+b]) // no fused multiply-add: the same bits on every GOARCH
		}
		row[b] = sum
	}
	var first float64
	for n := range nWin {
		first += z[n]
	}
	// Walk each diagonal d = b-a from its first entry (0, d).
	for d := range k {
		v := row[d]
		for a := 0; a+d < k; a++ {
			if a > 0 {
				v += float64(z[nWin+a-1]*z[nWin+a-1+d]) - float64(z[a-1]*z[a-1+d])
			}
			g.S[a*k+a+d] += v
			if d > 0 {
				g.S[(a+d)*k+a] += v
			}
		}
	}
	v := first
	for a := range k {
		if a > 0 {
			v += z[nWin+a-1] - z[a-1]
		}
		g.s[a] += v
	}
	g.n += float64(nWin)
}

// solve fits the map from inputs in (indices into u) plus an intercept
// to the targets out (indices into u), every value minus u[centre] when
// centre >= 0, from the normal equations by Cholesky.
func (g *gram) solve(in, out []int, centre int) (w [][]float64, b []float64, err error) {
	k := g.k
	at := func(a, c int) float64 {
		v := g.S[a*k+c]
		if centre >= 0 {
			l := centre
			v += -g.S[a*k+l] - g.S[l*k+c] + g.S[l*k+l]
		}
		return v
	}
	sum := func(a int) float64 {
		v := g.s[a]
		if centre >= 0 {
			v -= g.s[centre]
		}
		return v
	}
	p := len(in) + 1
	if g.n < float64(p) {
		return nil, nil, fmt.Errorf("track: %v train windows are too few for %d inputs plus an intercept", g.n, p-1)
	}
	ata := mat.NewSymDense(p, nil)
	for i, a := range in {
		for j := i; j < len(in); j++ {
			ata.SetSym(i, j, at(a, in[j]))
		}
		ata.SetSym(i, p-1, sum(a))
	}
	ata.SetSym(p-1, p-1, g.n)
	atb := mat.NewDense(p, len(out), nil)
	for j, o := range out {
		for i, a := range in {
			atb.Set(i, j, at(a, o))
		}
		atb.Set(p-1, j, sum(o))
	}
	var ch mat.Cholesky
	if !ch.Factorize(ata) {
		return nil, nil, fmt.Errorf("track: the normal equations of %d inputs are singular; the inputs are collinear (e.g. a constant or noiseless stretch), shorten T", p-1)
	}
	if c := ch.Cond(); c > maxGramCond {
		return nil, nil, fmt.Errorf("track: the normal equations of %d inputs have condition number %.3g > %g; the inputs are collinear (e.g. a constant or noiseless stretch), shorten T", p-1, c, maxGramCond)
	}
	var sol mat.Dense // (p, len(out))
	if err := ch.SolveTo(&sol, atb); err != nil {
		return nil, nil, fmt.Errorf("track: least squares by normal equations: %w", err)
	}
	w = make([][]float64, len(out))
	b = make([]float64, len(out))
	for j := range out {
		w[j] = make([]float64, len(in))
		for i := range in {
			w[j][i] = sol.At(i, j)
		}
		b[j] = sol.At(p-1, j)
	}
	return w, b, nil
}

// linear turns the normal equations into the Linear forecaster of
// windows (T, H): all T inputs (FitLinear's map), or the first T-1
// centred on the last (FitLinearCentred's).
func (g *gram) linear(t, h int, centred bool) (*Linear, error) {
	if centred && t < 2 {
		return nil, fmt.Errorf("track: T = %d; the centred map needs at least 2 inputs", t)
	}
	nIn, centre := t, -1
	if centred {
		nIn, centre = t-1, t-1
	}
	in, out := make([]int, nIn), make([]int, h)
	for i := range in {
		in[i] = i
	}
	for j := range out {
		out[j] = t + j
	}
	w, b, err := g.solve(in, out, centre)
	if err != nil {
		return nil, err
	}
	l := &Linear{W: make([]float64, h*t), B: b, T: t, H: h, C: 1, Centred: centred}
	for j := range h {
		copy(l.W[j*t:], w[j])
	}
	return l, nil
}

// seriesOf checks that s is a univariate split and returns each series'
// values and window count: the series layout's series, or (packed, one
// window) the window itself.
func seriesOf(s *Split, who string) (z [][]float64, per int) {
	s.check(who)
	if s.C != 1 {
		panic(fmt.Sprintf("track: %s: C = %d, want a univariate split (see Univariate)", who, s.C))
	}
	if s.Per == 0 {
		panic(fmt.Sprintf("track: %s: a packed split; the normal-equation fits take the series layout (use FitLinear)", who))
	}
	if len(s.X) > 0 && &s.X[0] != &s.Y[0] {
		// The sums run over one series of inputs and targets alike.
		panic(fmt.Sprintf("track: %s: the split's inputs are not its target series (X and Y must be one buffer, as csv channels \"independent\" builds it)", who))
	}
	r := s.rows()
	for k := range s.Series() {
		z = append(z, s.Y[k*r:(k+1)*r])
	}
	return z, s.Per
}

// TargetSeries returns the univariate split of the target channel of a
// series-layout split: its own windows, inputs and targets both read
// from Y (so the normal-equation fits apply). For a univariate series
// split whose X is Y (csv channels "independent") that is s itself.
func TargetSeries(s *Split) Split {
	s.check("TargetSeries")
	if s.Per == 0 {
		panic("track: TargetSeries: a packed split; use Univariate")
	}
	return Split{X: s.Y, Y: s.Y, N: s.N, T: s.T, H: s.H, C: 1, Per: s.Per}
}

// FitSeries fits, on a univariate train split in the series layout, the
// least-squares map FitLinear (centred false) or FitLinearCentred
// (centred true) fits, over the windows of all its series: one map
// shared by the series. It solves the same least-squares problem from
// its normal equations, whose sums it builds from the series in O(rows·
// (T+H)) (gram.addSeries), so a split of 765 000 windows of 336 inputs
// costs seconds, not the minutes and gigabytes of a QR of its design.
func FitSeries(train *Split, centred bool) (*Linear, error) {
	zs, per := seriesOf(train, "FitSeries")
	g := newGram(train.T + train.H)
	for _, z := range zs {
		g.addSeries(z, per)
	}
	l, err := g.linear(train.T, train.H, centred)
	if err != nil {
		return nil, fmt.Errorf("track: FitSeries: %w", err)
	}
	return l, nil
}

// FitPerSeries is FitSeries on each series of train alone: one map per
// series (per channel, DLinear's "individual" maps fitted in closed form).
func FitPerSeries(train *Split, centred bool) ([]*Linear, error) {
	zs, per := seriesOf(train, "FitPerSeries")
	out := make([]*Linear, len(zs))
	for k, z := range zs {
		g := newGram(train.T + train.H)
		g.addSeries(z, per)
		l, err := g.linear(train.T, train.H, centred)
		if err != nil {
			return nil, fmt.Errorf("track: FitPerSeries: series %d: %w", k, err)
		}
		out[k] = l
	}
	return out, nil
}

// PerSeriesMSE is LastPositionMSE of forecasting each series k of s
// (series layout) with maps[k]: over all of s's windows and steps.
func PerSeriesMSE(maps []*Linear, s *Split) float64 {
	if len(maps) != s.Series() {
		panic(fmt.Sprintf("track: PerSeriesMSE: %d maps for %d series", len(maps), s.Series()))
	}
	var sum float64
	for k, l := range maps {
		sub := s.Sub(k)
		sum += l.sse(&sub)
	}
	return sum / float64(s.N*s.H)
}
