package stats

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// Hierarchical is the posterior of the hierarchical model of Corani,
// Benavoli, Demšar, Mangili and Zaffalon (2017, "Statistical comparison
// of classifiers through Bayesian hierarchical modelling", Machine
// Learning 106(11)), with seeds for its cross-validation folds (so no
// correlation between them, ρ = 0). Track k's per-seed effects x_ki
// are
//
//	x_ki ~ N(δ_k, σ_k²)                 i = 1..n_k
//	δ_k  ~ t_ν(δ_0, σ_0)                k = 1..K
//	σ_k  ~ U(0, 1000·s̄)                 s̄ = mean over tracks of sd(x_k·)
//	δ_0  ~ U(-max|x|, max|x|),  σ_0 ~ U(0, 1000·sd(x̄_k))
//	ν = 1 + m,  m ~ Gamma(a, b),  a ~ U(1, 2),  b ~ U(0.01, 0.1)
//
// (the bounds of the authors' reference implementation, on data scaled
// by s̄). The posterior is sampled by Gibbs steps on the model's
// scale-mixture form (δ_k | λ_k ~ N(δ_0, σ_0²/λ_k), λ_k ~ Gamma(ν/2,
// ν/2)): δ_k, δ_0 normal, σ_k, σ_0 and b truncated gamma (by rejection,
// else inverse CDF), a on a grid, m by a random-walk Metropolis step on
// log m.
//
// For each posterior sample (δ_0, σ_0, ν), the next track's effect
// δ_{K+1} ~ t_ν(δ_0, σ_0) lies left of the ROPE (the idea worse),
// inside it or right of it with three probabilities; PWorse,
// PEquivalent and PBetter are the shares of samples in which each is
// the largest, as the reference implementation reports them.
type Hierarchical struct {
	PWorse      float64 `json:"p_worse"`
	PEquivalent float64 `json:"p_equivalent"`
	PBetter     float64 `json:"p_better"`
	// Delta0 is the posterior mean of δ_0, the mean effect over tracks,
	// and Tracks each track's posterior mean δ_k (the track's effect
	// shrunk toward the others), in the effects' units.
	Delta0 float64   `json:"delta0"`
	Tracks []float64 `json:"tracks"`
	// Samples is the number of posterior samples (after Burn).
	Samples int `json:"samples"`
	Burn    int `json:"burn"`
}

// HierarchicalOptions set the sampler: Burn iterations discarded, then
// Samples kept, from rand.NewPCG(Seed, 14).
type HierarchicalOptions struct {
	Burn, Samples int
	Seed          uint64
}

// DefaultHierarchicalOptions are 2000 burn-in iterations and 20000
// samples, seed 1.
func DefaultHierarchicalOptions() HierarchicalOptions {
	return HierarchicalOptions{Burn: 2000, Samples: 20000, Seed: 1}
}

// HierarchicalModel samples the posterior of the model above for the
// per-seed effects x (K tracks of n_k >= 2 seeds, K >= 2) with ROPE
// (-rope, rope).
func HierarchicalModel(x [][]float64, rope float64, o HierarchicalOptions) (Hierarchical, error) {
	k := len(x)
	if k < 2 {
		return Hierarchical{}, fmt.Errorf("stats: hierarchical model: %d tracks; it needs at least 2", k)
	}
	if !(rope > 0) || math.IsInf(rope, 0) || o.Samples < 1 || o.Burn < 0 {
		return Hierarchical{}, fmt.Errorf("stats: hierarchical model: rope %v, %d samples, %d burn-in", rope, o.Samples, o.Burn)
	}
	// Scale by the mean of the tracks' standard deviations (ddof 0).
	var sbar float64
	for i, row := range x {
		if len(row) < 2 {
			return Hierarchical{}, fmt.Errorf("stats: hierarchical model: track %d has %d seeds; it needs at least 2", i, len(row))
		}
		for _, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Hierarchical{}, fmt.Errorf("stats: hierarchical model: track %d: effect %v is not finite", i, v)
			}
		}
		sd := math.Sqrt(sumSquaredDev(row, mean(row)) / float64(len(row)))
		if sd == 0 {
			// σ_k ~ U(0, ·) with no spread leaves an improper posterior
			// (σ_k → 0).
			return Hierarchical{}, fmt.Errorf("stats: hierarchical model: track %d's effects are all %v; the model needs spread within every track", i, row[0])
		}
		sbar += sd / float64(k)
	}
	z := make([][]float64, k)
	means := make([]float64, k)
	var maxAbs float64
	for i, row := range x {
		z[i] = make([]float64, len(row))
		for j, v := range row {
			z[i][j] = v / sbar
			maxAbs = math.Max(maxAbs, math.Abs(z[i][j]))
		}
		means[i] = mean(z[i])
	}
	r := rope / sbar
	amongSD := math.Sqrt(sumSquaredDev(means, mean(means)) / float64(k))
	if amongSD == 0 {
		amongSD = 1 // the within-track scale
	}
	sigmaHi, sigma0Hi := 1000.0, 1000*amongSD

	rng := rand.New(rand.NewPCG(o.Seed, hierStream))
	src := rand.NewPCG(o.Seed, hierStream+1)
	// The state, started at the data's moments.
	delta := append([]float64(nil), means...)
	sigma := make([]float64, k)
	lambda := make([]float64, k)
	for i := range sigma {
		sigma[i] = math.Max(math.Sqrt(sumSquaredDev(z[i], means[i])/float64(len(z[i]))), 1e-3)
		lambda[i] = 1
	}
	delta0, sigma0 := mean(means), math.Max(amongSD, 1e-3)
	m, a, b := 10.0, 1.5, 0.05 // ν - 1 and its Gamma prior's shape and rate

	// truncGammaAbove draws τ ~ Gamma(shape, rate) conditioned on τ >= lo:
	// by rejection (lo is far in the left tail), else by inverse CDF.
	truncGammaAbove := func(shape, rate, lo float64) float64 {
		g := distuv.Gamma{Alpha: shape, Beta: rate, Src: src}
		for range 8 {
			if v := g.Rand(); v >= lo {
				return v
			}
		}
		f0 := g.CDF(lo)
		if f0 >= 1-1e-12 {
			return lo
		}
		u := f0 + (1-f0)*rng.Float64()
		return math.Max(g.Quantile(u), lo)
	}
	// truncGammaWithin draws τ ~ Gamma(shape, rate) on [lo, hi].
	truncGammaWithin := func(shape, rate, lo, hi float64) float64 {
		g := distuv.Gamma{Alpha: shape, Beta: rate, Src: src}
		for range 8 {
			if v := g.Rand(); v >= lo && v <= hi {
				return v
			}
		}
		f0, f1 := g.CDF(lo), g.CDF(hi)
		if f1-f0 < 1e-300 {
			return lo + (hi-lo)*rng.Float64()
		}
		return math.Min(math.Max(g.Quantile(f0+(f1-f0)*rng.Float64()), lo), hi)
	}
	std := distuv.Normal{Mu: 0, Sigma: 1}
	// logPostM is the log density of m given λ, a and b (up to a constant).
	logPostM := func(m float64) float64 {
		nu := 1 + m
		lp := (a-1)*math.Log(m) - b*m
		for _, l := range lambda {
			lg, _ := math.Lgamma(nu / 2)
			lp += nu/2*math.Log(nu/2) - lg + (nu/2-1)*math.Log(l) - nu/2*l
		}
		return lp
	}
	// a's conditional on its grid: ∝ b^a m^(a-1) / Γ(a) on [1, 2].
	const gridN = 200
	weights := make([]float64, gridN)

	var res Hierarchical
	res.Tracks = make([]float64, k)
	res.Samples, res.Burn = o.Samples, o.Burn
	var left, in, right float64
	for it := range o.Burn + o.Samples {
		nu := 1 + m
		// δ_k: normal, precision n_k/σ_k² + λ_k/σ_0².
		for i, row := range z {
			n := float64(len(row))
			prec := n/(sigma[i]*sigma[i]) + lambda[i]/(sigma0*sigma0)
			mu := (n*mean(row)/(sigma[i]*sigma[i]) + lambda[i]*delta0/(sigma0*sigma0)) / prec
			delta[i] = mu + rng.NormFloat64()/math.Sqrt(prec)
		}
		// σ_k: 1/σ_k² ~ Gamma((n_k-1)/2, SS_k/2), σ_k <= sigmaHi.
		for i, row := range z {
			var ss float64
			for _, v := range row {
				ss += (v - delta[i]) * (v - delta[i])
			}
			tau := truncGammaAbove(float64(len(row)-1)/2, math.Max(ss/2, 1e-300), 1/(sigmaHi*sigmaHi))
			sigma[i] = 1 / math.Sqrt(tau)
		}
		// λ_k: Gamma((ν+1)/2, (ν + (δ_k-δ_0)²/σ_0²)/2).
		for i := range lambda {
			d := (delta[i] - delta0) / sigma0
			lambda[i] = distuv.Gamma{Alpha: (nu + 1) / 2, Beta: (nu + d*d) / 2, Src: src}.Rand()
		}
		// δ_0: normal, mean Σλδ/Σλ, variance σ_0²/Σλ, on [-maxAbs, maxAbs].
		var sl, sld float64
		for i, l := range lambda {
			sl += l
			sld += l * delta[i]
		}
		mu0, sd0 := sld/sl, sigma0/math.Sqrt(sl)
		lo, hi := std.CDF((-maxAbs-mu0)/sd0), std.CDF((maxAbs-mu0)/sd0)
		if hi-lo > 1e-12 {
			delta0 = mu0 + sd0*std.Quantile(lo+(hi-lo)*rng.Float64())
		} else if mu0 > 0 {
			delta0 = maxAbs
		} else {
			delta0 = -maxAbs
		}
		// σ_0: 1/σ_0² ~ Gamma((K-1)/2, Σλ(δ-δ_0)²/2), σ_0 <= sigma0Hi.
		var ss0 float64
		for i, l := range lambda {
			ss0 += l * (delta[i] - delta0) * (delta[i] - delta0)
		}
		sigma0 = 1 / math.Sqrt(truncGammaAbove(float64(k-1)/2, math.Max(ss0/2, 1e-300), 1/(sigma0Hi*sigma0Hi)))
		// m = ν - 1: Metropolis on log m (the Jacobian m in the ratio).
		prop := m * math.Exp(0.5*rng.NormFloat64())
		if math.Log(rng.Float64()) < logPostM(prop)+math.Log(prop)-logPostM(m)-math.Log(m) {
			m = prop
		}
		// a on its grid, then b: Gamma(a+1, m) on [0.01, 0.1].
		var tot float64
		for g := range weights {
			av := 1 + (float64(g)+0.5)/gridN
			lg, _ := math.Lgamma(av)
			weights[g] = av*math.Log(b) + (av-1)*math.Log(m) - lg
		}
		mx := weights[0]
		for _, w := range weights {
			mx = math.Max(mx, w)
		}
		for g, w := range weights {
			weights[g] = math.Exp(w - mx)
			tot += weights[g]
		}
		u := rng.Float64() * tot
		for g, w := range weights {
			if u -= w; u <= 0 || g == gridN-1 {
				a = 1 + (float64(g)+rng.Float64())/gridN
				break
			}
		}
		b = truncGammaWithin(a+1, m, 0.01, 0.1)

		if it < o.Burn {
			continue
		}
		t := distuv.StudentsT{Mu: delta0, Sigma: sigma0, Nu: 1 + m}
		pl := t.CDF(-r)
		pr := 1 - t.CDF(r)
		pe := 1 - pl - pr
		best := max(pl, pe, pr)
		switch best {
		case pr:
			right++
		case pl:
			left++
		default:
			in++
		}
		res.Delta0 += delta0 * sbar / float64(o.Samples)
		for i := range delta {
			res.Tracks[i] += delta[i] * sbar / float64(o.Samples)
		}
	}
	s := float64(o.Samples)
	res.PWorse, res.PEquivalent, res.PBetter = left/s, in/s, right/s
	return res, nil
}

// hierStream is the PCG stream of the hierarchical sampler (and the next
// one, of its gamma draws).
const hierStream = 14
