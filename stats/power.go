package stats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"sync"
)

// Power answers "how many seeds": for the two-sided sign-flip test at
// Alpha of the chosen cfgs' differences (the report's headline test when
// both arms keep their cfg; the selection-aware headline, which also pays
// for the arms' choices, can have less), the power at the current number of
// seeds and the fewest seeds that reach Target power, at the observed
// mean difference and, when set, at a user's minimum effect of interest.
//
// Method (a parametric-free simulation): a study of n seeds is simulated
// by drawing n differences with replacement from the observed ones,
// centred and shifted to the effect e,
//
//	d*_i = d_{U_i} - mean(d) + e,   U_i uniform on the N observed seeds,
//
// and counted a rejection when its sign-flip p-value is below Alpha (exact
// for n <= powerExactN, else PowerMCDraws seeded sign vectors, the
// Monte Carlo rule of Compare). The power at n is the share of Sims
// simulated studies that reject; each n reuses the same random stream
// (common random numbers), so power grows smoothly with n. The fewest
// seeds is searched over n in [2, MaxSeeds]: doubling by about √2 from the
// smallest n whose attainable p-value 2^(1-n) is below Alpha, then
// bisection. This is the bootstrap power analysis of Efron & Tibshirani
// 1993, §25 (also deep-significance's), applied to the exact test.
type Power struct {
	Method   string   `json:"method"`
	Target   float64  `json:"target"`
	Sims     int      `json:"sims"`
	Seed     uint64   `json:"seed"`
	MaxSeeds int      `json:"max_seeds"`
	Observed PowerAt  `json:"observed"`
	Min      *PowerAt `json:"min_effect,omitempty"`
}

// PowerAt is the power at one effect.
type PowerAt struct {
	// Effect is the mean difference idea - baseline simulated.
	Effect float64 `json:"effect"`
	// PowerNow is the power at the study's own number of seeds.
	PowerNow float64 `json:"power_now"`
	// SeedsNeeded is the fewest seeds in [2, MaxSeeds] whose power
	// reaches Target; 0 when even MaxSeeds does not (or the effect is 0).
	SeedsNeeded int `json:"seeds_needed"`
	// PowerAtNeeded is the power at SeedsNeeded (at MaxSeeds when 0).
	PowerAtNeeded float64 `json:"power_at_needed"`
}

// Defaults of PowerOf.
const (
	PowerTarget   = 0.8
	PowerSims     = 1000
	PowerMaxSeeds = 64
	// PowerMCDraws is the number of sign vectors behind each simulated
	// Monte Carlo p-value: at alpha 0.05 a study rejects when at most 8 of
	// 199 reach its statistic. (Fewer draws than the report's own test
	// cost a little power; TestPowerBruteForce bounds the loss against
	// exact p-values.)
	PowerMCDraws = 199
	powerExactN  = 12
	powerStream  = 4
	powerMC      = 5
)

// PowerMethod names the method in the report.
const PowerMethod = "bootstrap simulation of the sign-flip test: differences resampled from the observed ones, centred and shifted to the effect"

// PowerOf returns the power analysis of the paired differences d, (N),
// N >= 2, at level alpha, for the observed mean difference and, when
// minEffect is not 0, for the mean difference minEffect (signed as d is:
// negative for an improvement of a lower-is-better metric). seed seeds the
// simulation.
func PowerOf(d []float64, alpha, minEffect float64, seed uint64) (Power, error) {
	if len(d) < 2 {
		return Power{}, errors.New("stats: a power analysis needs at least 2 paired seeds")
	}
	if !(alpha > 0 && alpha < 1) {
		return Power{}, fmt.Errorf("stats: alpha = %v is outside (0,1)", alpha)
	}
	for i, v := range d {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Power{}, fmt.Errorf("stats: d[%d] = %v is not finite", i, v)
		}
	}
	key := powerKey(d, alpha, minEffect, seed)
	if p, ok := powerMemo.get(key); ok {
		return p, nil
	}
	p := Power{Method: PowerMethod, Target: PowerTarget, Sims: PowerSims, Seed: seed, MaxSeeds: PowerMaxSeeds}
	p.Observed = powerAt(d, mean(d), alpha, seed)
	if minEffect != 0 {
		m := powerAt(d, minEffect, alpha, seed)
		p.Min = &m
	}
	powerMemo.put(key, p)
	return p, nil
}

// powerMemo remembers the latest power analyses: PowerOf is a pure
// function of its arguments and costs tens of milliseconds, and verify
// derives a report's comparisons again, often for the same differences.
var powerMemo = memo{max: 256}

// memo is a bounded map from a power analysis's arguments to its result,
// safe for concurrent use; it forgets everything when full.
type memo struct {
	mu  sync.Mutex
	max int
	m   map[string]Power
}

func (c *memo) get(k string) (Power, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.m[k]
	if ok && p.Min != nil {
		m := *p.Min
		p.Min = &m // callers own their copy
	}
	return p, ok
}

func (c *memo) put(k string, p Power) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = map[string]Power{}
	}
	if p.Min != nil {
		m := *p.Min
		p.Min = &m
	}
	c.m[k] = p
}

// powerKey encodes PowerOf's arguments, bit for bit.
func powerKey(d []float64, alpha, minEffect float64, seed uint64) string {
	b := make([]byte, 0, 8*(len(d)+3))
	for _, x := range append([]float64{alpha, minEffect, math.Float64frombits(seed)}, d...) {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return string(b)
}

// powerAt searches the fewest seeds for effect e (see Power).
func powerAt(d []float64, e, alpha float64, seed uint64) PowerAt {
	at := PowerAt{Effect: e, PowerNow: PowerAtN(d, e, alpha, len(d), PowerSims, seed)}
	if e == 0 {
		return at
	}
	n0 := 2
	for math.Ldexp(1, 1-n0) >= alpha {
		n0++
	}
	if n0 > PowerMaxSeeds {
		return at
	}
	// Doubling by about √2 to the first n with enough power...
	lo, hi := n0-1, 0
	var pHi float64
	for n := n0; ; n = min(PowerMaxSeeds, int(math.Ceil(float64(n)*math.Sqrt2))) {
		pw := PowerAtN(d, e, alpha, n, PowerSims, seed)
		if pw >= PowerTarget {
			hi, pHi = n, pw
			break
		}
		lo = n
		if n == PowerMaxSeeds {
			at.PowerAtNeeded = pw
			return at
		}
	}
	// ... then bisection between the last n without and the first with.
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if pw := PowerAtN(d, e, alpha, mid, PowerSims, seed); pw >= PowerTarget {
			hi, pHi = mid, pw
		} else {
			lo = mid
		}
	}
	at.SeedsNeeded, at.PowerAtNeeded = hi, pHi
	return at
}

// PowerAtN returns the simulated power of the sign-flip test at level
// alpha for studies of n seeds whose differences are resampled from d,
// centred and shifted to mean e, over sims studies drawn from
// rand.NewPCG(seed, powerStream).
func PowerAtN(d []float64, e, alpha float64, n, sims int, seed uint64) float64 {
	m := mean(d)
	r := rand.New(rand.NewPCG(seed, powerStream))
	mc := rand.New(rand.NewPCG(seed, powerMC))
	sim := make([]float64, n)
	rejects := 0
	for range sims {
		for i := range sim {
			sim[i] = d[r.IntN(len(d))] - m + e
		}
		if rejectsAt(sim, alpha, mc) {
			rejects++
		}
	}
	return float64(rejects) / float64(sims)
}

// rejectsAt reports whether the sign-flip test rejects at level alpha:
// the exact p-value for n <= powerExactN, else the Monte Carlo one of
// PowerMCDraws draws, (1+hits)/(1+draws), stopping once the hits rule a
// rejection out. Both count ties as Compare does; the exact count walks
// the sign vectors in Gray-code order, one sign flip per step, whose
// rounding drift (at most 2^(n-1) ulps of Σ|d_i|) stays far below the tie
// tolerance.
func rejectsAt(d []float64, alpha float64, rng *rand.Rand) bool {
	n := len(d)
	var sum, abs float64
	for _, v := range d {
		sum += v
		abs += math.Abs(v)
	}
	obs, tol := math.Abs(sum), tieRelTol*abs
	if n <= powerExactN {
		var sign [powerExactN]float64
		for i := range n {
			sign[i] = 1
		}
		// Reject iff hits/half < alpha: once hits reach alpha·half the
		// walk cannot reject any more.
		half := 1 << (n - 1)
		limit := alpha * float64(half)
		hits, s := 1, sum // the observed vector itself
		for k := 1; k < half; k++ {
			j := bits.TrailingZeros(uint(k))
			s -= 2 * sign[j] * d[j]
			sign[j] = -sign[j]
			if math.Abs(s) >= obs-tol {
				hits++
				if float64(hits) >= limit {
					return false
				}
			}
		}
		return float64(hits) < limit
	}
	// Reject iff (1+hits)/(1+draws) < alpha, i.e. hits < alpha·(1+draws) - 1.
	limit := alpha*float64(1+PowerMCDraws) - 1
	hits := 0
	for range PowerMCDraws {
		var s float64
		for lo := 0; lo < n; lo += 64 {
			w := rng.Uint64()
			for _, v := range d[lo:min(lo+64, n)] {
				s += v * float64(1-2*int64(w&1))
				w >>= 1
			}
		}
		if math.Abs(s) >= obs-tol {
			hits++
			if float64(hits) >= limit {
				return false
			}
		}
	}
	return float64(hits) < limit
}
