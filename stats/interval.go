package stats

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Intervals are interval estimates of a paired comparison at level
// 1 - Alpha: of the mean difference (paired t and seeded bootstrap) and of
// the probability of improvement.
type Intervals struct {
	// Level is the coverage, 1 - alpha.
	Level float64 `json:"level"`
	// TLo and THi bound the paired-t interval of mean(d):
	// mean(d) ∓ t_{1-alpha/2, N-1} · sd(d)/√N (its half-width is the MDE).
	TLo float64 `json:"t_lo"`
	THi float64 `json:"t_hi"`
	// BootLo and BootHi bound the percentile bootstrap interval of mean(d)
	// over BootDraws resamples of the N pairs (Efron & Tibshirani 1993,
	// "An Introduction to the Bootstrap", §13.3), drawn from
	// rand.NewPCG(BootSeed, bootStream).
	BootLo    float64 `json:"bootstrap_lo"`
	BootHi    float64 `json:"bootstrap_hi"`
	BootDraws int     `json:"bootstrap_draws"`
	BootSeed  uint64  `json:"bootstrap_seed"`
	// PoI is the probability of improvement, the chance that the idea is
	// better than the baseline on a seed of each drawn at random
	// (Agarwal et al. 2021, "Deep Reinforcement Learning at the Edge of
	// the Statistical Precipice", NeurIPS, §4.3; a Mann-Whitney U over
	// N·N pairs):
	//
	//	PoI = 1/N² · Σ_i Σ_j S(x_i, b_j),   S = 1 if x_i is better than b_j, ½ if equal, else 0
	//
	// PoILo and PoIHi bound its stratified percentile bootstrap interval:
	// each arm's seeds resampled on their own, PoIDraws times, from
	// rand.NewPCG(BootSeed, poiStream).
	PoI      float64 `json:"probability_of_improvement"`
	PoILo    float64 `json:"probability_of_improvement_lo"`
	PoIHi    float64 `json:"probability_of_improvement_hi"`
	PoIDraws int     `json:"probability_of_improvement_draws"`
}

// The PCG streams of the two bootstraps, and their default sizes.
const (
	bootStream = 2
	poiStream  = 3
	// BootDraws is the number of bootstrap resamples of the mean
	// difference: the 2.5% and 97.5% quantiles then rest on 250 resamples
	// each side.
	BootDraws = 10000
	// PoIDraws is the number of stratified bootstrap resamples of the
	// probability of improvement (each costs N² comparisons).
	PoIDraws = 2000
)

// IntervalsOf returns the interval estimates of the paired comparison of
// baseline and idea, both (N), N >= 2, for a metric that improves in
// direction dir, at level 1 - alpha, with bootstraps seeded by seed.
func IntervalsOf(baseline, idea []float64, dir Direction, alpha float64, seed uint64) (Intervals, error) {
	n := len(baseline)
	switch {
	case len(idea) != n:
		return Intervals{}, fmt.Errorf("stats: baseline has %d seeds but idea has %d; run both arms on the same seed list", n, len(idea))
	case n < 2:
		return Intervals{}, errors.New("stats: intervals need at least 2 paired seeds")
	case !(alpha > 0 && alpha < 1):
		return Intervals{}, fmt.Errorf("stats: alpha = %v is outside (0,1)", alpha)
	case dir != LowerIsBetter && dir != HigherIsBetter:
		return Intervals{}, fmt.Errorf("stats: direction %v is unknown", dir)
	}
	d := make([]float64, n)
	for i := range d {
		d[i] = idea[i] - baseline[i]
	}
	m := mean(d)
	half := MDE(d, alpha)
	iv := Intervals{Level: 1 - alpha, TLo: m - half, THi: m + half, BootDraws: BootDraws, BootSeed: seed, PoIDraws: PoIDraws}

	// Percentile bootstrap of mean(d).
	r := rand.New(rand.NewPCG(seed, bootStream))
	means := make([]float64, BootDraws)
	for k := range means {
		var s float64
		for range n {
			s += d[r.IntN(n)]
		}
		means[k] = s / float64(n)
	}
	iv.BootLo, iv.BootHi = percentile(means, alpha/2), percentile(means, 1-alpha/2)

	// Probability of improvement and its stratified bootstrap.
	iv.PoI = poi(baseline, idea, dir)
	r = rand.New(rand.NewPCG(seed, poiStream))
	pois := make([]float64, PoIDraws)
	bs, xs := make([]float64, n), make([]float64, n)
	for k := range pois {
		for i := range n {
			bs[i] = baseline[r.IntN(n)]
		}
		for i := range n {
			xs[i] = idea[r.IntN(n)]
		}
		pois[k] = poi(bs, xs, dir)
	}
	iv.PoILo, iv.PoIHi = percentile(pois, alpha/2), percentile(pois, 1-alpha/2)
	return iv, nil
}

// poi is the probability of improvement of idea over baseline (see
// Intervals.PoI).
func poi(baseline, idea []float64, dir Direction) float64 {
	var s float64
	for _, x := range idea {
		for _, b := range baseline {
			switch {
			case x == b:
				s += 0.5
			case (dir == LowerIsBetter) == (x < b):
				s++
			}
		}
	}
	return s / float64(len(idea)*len(baseline))
}

// percentile sorts x in place and returns its q-quantile by the
// nearest-rank rule: the ⌈q·K⌉-th smallest of K values (at least the
// first).
func percentile(x []float64, q float64) float64 {
	slices.Sort(x)
	k := int(math.Ceil(q * float64(len(x))))
	return x[max(k, 1)-1]
}
