package stats

import "math"

// McNemarExact is the exact two-sided p-value of McNemar's test on paired
// binary outcomes (McNemar 1947, "Note on the sampling error of the
// difference between correlated proportions or percentages"), in its
// exact conditional form (Fagerland, Lydersen and Laake 2013, "The
// McNemar test for binary matched-pairs data", eq. 3): of the n = b + c
// discordant pairs (b where only the first arm succeeds, c where only the
// second), each goes either way with probability 1/2 under the null, so
//
//	p = min(1, 2 · Σ_{i=0}^{min(b,c)} C(n, i) / 2^n),
//
// the sign test on the discordant pairs. Concordant pairs carry no
// information and do not enter. It is 1 when no pair is discordant.
// Negative counts are a programmer's error.
func McNemarExact(b, c int) float64 {
	if b < 0 || c < 0 {
		panic("stats: McNemarExact: negative count")
	}
	n, k := b+c, min(b, c)
	if n == 0 {
		return 1
	}
	// Σ C(n, i)/2^n in logs, term by term, exact for any n a seed list
	// has.
	var tail float64
	for i := 0; i <= k; i++ {
		lc, _ := math.Lgamma(float64(n + 1))
		li, _ := math.Lgamma(float64(i + 1))
		lr, _ := math.Lgamma(float64(n - i + 1))
		tail += math.Exp(lc - li - lr - float64(n)*math.Ln2)
	}
	return min(1, 2*tail)
}
