package stats

import "math"

// Summary is the mean, population standard deviation and size of one arm's
// per-seed results: the report's "full" block.
type Summary struct {
	// Mean is the arithmetic mean of PerSeed; 0 when N is 0.
	Mean float64
	// Std is the population standard deviation (ddof 0) of PerSeed; 0 when
	// N is 0.
	Std float64
	// PerSeed is a copy of the per-seed results, (N); empty, not nil, when
	// N is 0 so that it encodes as a JSON array.
	PerSeed []float64
	// N is the number of seeds.
	N int
}

// Summarize returns the Summary of x, (N). It copies x, so the caller may
// reuse it. For an empty x Mean and Std are 0, since JSON cannot hold the
// NaN an empty mean would be. Non-finite values propagate into Mean and Std.
//
// The standard deviation is the two-pass population form, which is what the
// report's "std" field holds (NumPy's np.std default, ddof 0):
//
//	mean = Σ x_i / N
//	std  = sqrt(Σ (x_i - mean)² / N)
func Summarize(x []float64) Summary {
	s := Summary{PerSeed: append([]float64{}, x...), N: len(x)}
	if s.N == 0 {
		return s
	}
	s.Mean = mean(x)
	s.Std = math.Sqrt(sumSquaredDev(x, s.Mean) / float64(s.N))
	return s
}

// mean returns Σ x_i / N of a non-empty x, (N), summed in index order.
func mean(x []float64) float64 {
	var sum float64
	for _, v := range x {
		sum += v
	}
	return sum / float64(len(x))
}

// sumSquaredDev returns Σ (x_i - m)², (N) in. The two-pass form avoids the
// cancellation of Σx² - N·m² (Chan, Golub & LeVeque 1983, "Algorithms for
// computing the sample variance", The American Statistician 37(3)).
func sumSquaredDev(x []float64, m float64) float64 {
	var ss float64
	for _, v := range x {
		ss += float64((v - m) * (v - m))
	}
	return ss
}
