package track

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// sequenceStream is the PCG stream of the sequence generator: the ASCII
// bytes of "sequence", so a track's draws never coincide with another
// component's stream for the same seed.
const sequenceStream uint64 = 0x73657175656e6365

// SequenceConfig describes the synthetic sequence track: a sum of
// sinusoids plus AR(1) noise, one channel.
type SequenceConfig struct {
	// DataSeed fixes the whole series.
	DataSeed uint64 `json:"data_seed"`
	// TrainWindows is the number of train windows, default 1024.
	TrainWindows int `json:"train_windows"`
	// ValWindows is the number of val windows, default 256.
	ValWindows int `json:"val_windows"`
	// TestWindows is the number of test windows, default 256.
	TestWindows int `json:"test_windows"`
	// T is the context length, default 32.
	T int `json:"t"`
	// H is the forecast horizon, default 8.
	H int `json:"h"`
	// Components is the number of sinusoids, default 3.
	Components int `json:"components"`
	// MinPeriod is the shortest period in time steps, default 6. Periods
	// are drawn log-uniformly in [MinPeriod, MaxPeriod].
	MinPeriod float64 `json:"min_period"`
	// MaxPeriod is the longest period in time steps, default 48.
	MaxPeriod float64 `json:"max_period"`
	// ARCoef is phi, the coefficient of the AR(1) noise, default 0.8.
	ARCoef float64 `json:"ar_coef"`
	// NoiseStd is sigma, the std of the noise's innovations, default 0.3.
	NoiseStd float64 `json:"noise_std"`
}

// DefaultSequenceConfig returns the sequence track of the report: three
// sinusoids with periods between 6 and 48 steps under AR(1) noise with
// phi = 0.8 and sigma = 0.3, cut into 1024 | 256 | 256 windows of 32
// inputs and 8 targets, drawn with DataSeed 1.
func DefaultSequenceConfig() SequenceConfig {
	return SequenceConfig{
		DataSeed:     1,
		TrainWindows: 1024,
		ValWindows:   256,
		TestWindows:  256,
		T:            32,
		H:            8,
		Components:   3,
		MinPeriod:    6,
		MaxPeriod:    48,
		ARCoef:       0.8,
		NoiseStd:     0.3,
	}
}

// Validate reports every field of c that Sequence cannot use, joined into
// one error; nil when c is usable. Each names the field by its JSON key:
//
//	track: <key> = <value>: <what is wrong>; <fix>
func (c SequenceConfig) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("track: "+format, args...))
	}
	synthFields{
		windows: [3]int{c.TrainWindows, c.ValWindows, c.TestWindows}, examples: [3]int{1024, 256, 256}, unit: "window",
		t: c.T, h: c.H, components: c.Components, exComponents: 3,
		minPeriod: c.MinPeriod, maxPeriod: c.MaxPeriod, exMin: 6, exMax: 48, arCoef: c.ARCoef, exAR: 0.8,
	}.check(bad)
	if !(c.NoiseStd >= 0) || math.IsInf(c.NoiseStd, 0) {
		bad("noise_std = %g: the innovation std must be finite and >= 0; use e.g. 0.3", c.NoiseStd)
	}
	return errors.Join(errs...)
}

// sequenceParts is what the generator drew: the sinusoids and the AR(1)
// noise, so a test can build the optimal forecaster.
type sequenceParts struct {
	amp, period, phase []float64 // (Components)
	noise              []float64 // e_t, (L)
}

// signal returns the noiseless part of the series at time step t.
func (p sequenceParts) signal(t int) float64 {
	var s float64
	for k, a := range p.amp {
		s += float64(a * math.Sin(2*math.Pi*float64(t)/p.period[k]+p.phase[k]))
	}
	return s
}

// sequenceSeries draws the raw series x (L) of a valid config c, for L the
// total length of the three regions, together with its parts.
func sequenceSeries(c SequenceConfig) (x []float64, p sequenceParts) {
	l := regionLen(c.TrainWindows, c.T, c.H) + regionLen(c.ValWindows, c.T, c.H) + regionLen(c.TestWindows, c.T, c.H)
	r := rand.New(rand.NewPCG(c.DataSeed, sequenceStream))
	p = sequenceParts{
		amp:    make([]float64, c.Components),
		period: make([]float64, c.Components),
		phase:  make([]float64, c.Components),
		noise:  make([]float64, l),
	}
	logMin, logMax := math.Log(c.MinPeriod), math.Log(c.MaxPeriod)
	for k := range c.Components {
		p.amp[k] = 0.5 + r.Float64()
		p.period[k] = math.Exp(logMin + r.Float64()*(logMax-logMin))
		p.phase[k] = 2 * math.Pi * r.Float64()
	}
	phi, sigma := c.ARCoef, c.NoiseStd
	p.noise[0] = sigma / math.Sqrt(1-phi*phi) * r.NormFloat64()
	for t := 1; t < l; t++ {
		p.noise[t] = phi*p.noise[t-1] + sigma*r.NormFloat64()
	}
	x = make([]float64, l)
	for t := range x {
		x[t] = p.signal(t) + p.noise[t]
	}
	return x, p
}

// Sequence builds the synthetic sequence track of c. It draws, with
// rand.New(rand.NewPCG(c.DataSeed, sequenceStream)), in this order: for
// each component k the amplitude, the period and the phase, then z_0, z_1,
// ... of the noise, and forms
//
//	A_k ~ U(0.5, 1.5),  log P_k ~ U(log MinPeriod, log MaxPeriod),  theta_k ~ U(0, 2 pi)
//	x_t = Σ_k A_k sin(2 pi t / P_k + theta_k) + e_t
//	e_0 = sigma / sqrt(1 - phi^2) · z_0         (the stationary law N(0, sigma^2/(1-phi^2)))
//	e_t = phi e_{t-1} + sigma z_t,  z_t ~ N(0, 1)
//
// for t = 0 .. L-1, L the length of the three regions (see the package
// pipeline). It normalizes with the train region's population mean and
// std; C = 1 and Target = 0.
//
// NoiseFloor is the MSE of the forecaster that knows the sinusoids and e up
// to the last input, averaged over the horizon and put on the normalized
// scale; its h-step error is the AR(1) forecast error (Box & Jenkins, Time
// Series Analysis, ch. 5, forecast error variance of an AR(1)):
//
//	Var_h = sigma^2 (1 - phi^{2h}) / (1 - phi^2)
//	NoiseFloor = (1/H) Σ_{h=1..H} Var_h / Std^2
//
// Sequence returns the error of c.Validate, or an error when the train
// region is constant.
func Sequence(c SequenceConfig) (*Dataset, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	x, _ := sequenceSeries(c)
	d, err := newDataset("sequence", x, 1, 0, c.T, c.H, c.TrainWindows, c.ValWindows, c.TestWindows)
	if err != nil {
		return nil, err
	}
	d.NoiseFloor = arNoiseFloor(c.ARCoef, c.NoiseStd, c.H) / (d.Norm.Std[0] * d.Norm.Std[0])
	d.HasNoiseFloor = true
	d.Channels = []string{"x"}
	return d, nil
}

// arNoiseFloor returns the mean over h = 1..H of the h-step forecast error
// variance of an AR(1) with coefficient phi and innovation std sigma, on
// the raw scale (formula in Sequence).
func arNoiseFloor(phi, sigma float64, h int) float64 {
	var sum float64
	for k := 1; k <= h; k++ {
		sum += sigma * sigma * (1 - math.Pow(phi, 2*float64(k))) / (1 - float64(phi*phi))
	}
	return sum / float64(h)
}
