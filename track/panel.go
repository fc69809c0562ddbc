package track

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// PCG streams of the panel generator, one per split (the ASCII bytes of
// "panel/tr", "panel/va", "panel/te"), so a split's series depend only on
// the data seed and their index: growing the train split changes no val
// or test window.
var panelStreams = [3]uint64{0x70616e656c2f7472, 0x70616e656c2f7661, 0x70616e656c2f7465}

// PanelConfig describes the panel track: many independent short series,
// each a sum of sinusoids with its own periods, amplitudes and phases plus
// AR(1) noise of its own level, one window per series.
type PanelConfig struct {
	// DataSeed fixes every series.
	DataSeed uint64 `json:"data_seed"`
	// TrainWindows is the number of train series (one window each).
	TrainWindows int `json:"train_windows"`
	// ValWindows is the number of val series.
	ValWindows int `json:"val_windows"`
	// TestWindows is the number of test series.
	TestWindows int `json:"test_windows"`
	// T is the context length.
	T int `json:"t"`
	// H is the forecast horizon.
	H int `json:"h"`
	// Components is the number of sinusoids of each series.
	Components int `json:"components"`
	// MinPeriod and MaxPeriod bound the periods, drawn log-uniformly, in
	// time steps.
	MinPeriod float64 `json:"min_period"`
	MaxPeriod float64 `json:"max_period"`
	// ARCoef is phi, the coefficient of every series' AR(1) noise.
	ARCoef float64 `json:"ar_coef"`
	// MinNoise and MaxNoise bound sigma, the std of a series' noise
	// innovations, drawn uniformly.
	MinNoise float64 `json:"min_noise"`
	MaxNoise float64 `json:"max_noise"`
}

// DefaultPanelConfig is the panel track of the default protocol: 32
// inputs, 8 steps ahead; two sinusoids per series with periods between 4
// and 32 steps; AR(1) noise with phi = 0.5 and sigma between 0.05 and 0.3;
// 16384 | 2048 | 2048 series drawn with DataSeed 1.
func DefaultPanelConfig() PanelConfig {
	return PanelConfig{
		DataSeed:     1,
		TrainWindows: 16384,
		ValWindows:   2048,
		TestWindows:  2048,
		T:            32,
		H:            8,
		Components:   2,
		MinPeriod:    4,
		MaxPeriod:    32,
		ARCoef:       0.5,
		MinNoise:     0.05,
		MaxNoise:     0.3,
	}
}

// Validate reports every field of c that Panel cannot use, joined into
// one error; nil when c is usable. Each names the field by its JSON key:
//
//	track: <key> = <value>: <what is wrong>; <fix>
func (c PanelConfig) Validate() error {
	var errs []error
	bad := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("track: "+format, args...))
	}
	synthFields{
		windows: [3]int{c.TrainWindows, c.ValWindows, c.TestWindows}, examples: [3]int{16384, 2048, 2048}, unit: "series",
		t: c.T, h: c.H, components: c.Components, exComponents: 2,
		minPeriod: c.MinPeriod, maxPeriod: c.MaxPeriod, exMin: 4, exMax: 32, arCoef: c.ARCoef, exAR: 0.5,
	}.check(bad)
	if !(c.MinNoise >= 0) || math.IsInf(c.MinNoise, 0) {
		bad("min_noise = %g: the innovation std must be finite and >= 0; use e.g. 0.05", c.MinNoise)
	}
	if !(c.MaxNoise >= c.MinNoise) || math.IsInf(c.MaxNoise, 0) {
		bad("max_noise = %g: must be finite and at least min_noise = %g; use e.g. 0.3", c.MaxNoise, c.MinNoise)
	}
	return errors.Join(errs...)
}

// panelSeries is one series of the panel: its sinusoids, its noise level
// and its noise path, so a test can run the oracle.
type panelSeries struct {
	amp, period, phase []float64 // (Components)
	sigma              float64   // innovation std
	noise              []float64 // e_t, (T+H)
}

// value is x_t of the series.
func (p *panelSeries) value(t int) float64 { return p.signal(t) + p.noise[t] }

// signal is the noiseless part of the series at time step t.
func (p *panelSeries) signal(t int) float64 {
	var s float64
	for k, a := range p.amp {
		s += float64(a * math.Sin(2*math.Pi*float64(t)/p.period[k]+p.phase[k]))
	}
	return s
}

// drawPanelSeries draws n series of length T+H of a valid config from r,
// each in this order: for each component the amplitude, the period and
// the phase, then sigma, then z_0 … z_{T+H-1} of the noise.
func drawPanelSeries(c PanelConfig, r *rand.Rand, n int) []panelSeries {
	l := c.T + c.H
	logMin, logMax := math.Log(c.MinPeriod), math.Log(c.MaxPeriod)
	phi := c.ARCoef
	out := make([]panelSeries, n)
	for i := range out {
		p := &out[i]
		p.amp, p.period, p.phase = make([]float64, c.Components), make([]float64, c.Components), make([]float64, c.Components)
		for k := range c.Components {
			p.amp[k] = 0.5 + r.Float64()
			p.period[k] = math.Exp(logMin + r.Float64()*(logMax-logMin))
			p.phase[k] = 2 * math.Pi * r.Float64()
		}
		p.sigma = c.MinNoise + r.Float64()*(c.MaxNoise-c.MinNoise)
		p.noise = make([]float64, l)
		p.noise[0] = p.sigma / math.Sqrt(1-phi*phi) * r.NormFloat64()
		for t := 1; t < l; t++ {
			p.noise[t] = float64(phi*p.noise[t-1]) + float64(p.sigma*r.NormFloat64())
		}
	}
	return out
}

// panelSplits draws the train, val and test series of a valid config.
func panelSplits(c PanelConfig) [3][]panelSeries {
	var s [3][]panelSeries
	for i, n := range [3]int{c.TrainWindows, c.ValWindows, c.TestWindows} {
		s[i] = drawPanelSeries(c, rand.New(rand.NewPCG(c.DataSeed, panelStreams[i])), n)
	}
	return s
}

// Panel builds the panel track of c. Every window is its own series,
// drawn for split k with rand.New(rand.NewPCG(c.DataSeed, stream_k)):
//
//	A_k ~ U(0.5, 1.5),  log P_k ~ U(log MinPeriod, log MaxPeriod),  theta_k ~ U(0, 2 pi)
//	sigma ~ U(MinNoise, MaxNoise)
//	x_t = Σ_k A_k sin(2 pi t / P_k + theta_k) + e_t,   t = 0 .. T+H-1
//	e_0 = sigma / sqrt(1 - phi^2) · z_0,  e_t = phi e_{t-1} + sigma z_t
//
// The window's inputs are x_0 … x_{T-1} and its targets x_T … x_{T+H-1}.
// A forecaster must infer a series' periods, amplitudes and phases from
// its T inputs, so the best window forecaster is nonlinear, while a linear
// map fitted across series can only average over them. The values are
// z-normalized with the population mean and std of all train windows'
// T+H values.
//
// NoiseFloor is the expected MSE of the oracle that knows each series'
// sinusoids and phi and sees its window: it forecasts
// signal(T-1+h) + phi^h·e_{T-1}, whose h-step error is the AR(1)
// forecast error (Box & Jenkins, ch. 5), so on the normalized scale
//
//	NoiseFloor = 1/(N·H) Σ_n Σ_{h=1..H} sigma_n² (1 - phi^{2h}) / (1 - phi²) / Std²
//
// over the test series n. A window model approaches it as its estimate of
// the sinusoids from T noisy values sharpens; no window forecaster can
// beat it in expectation.
func Panel(c PanelConfig) (*Dataset, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	series := panelSplits(c)
	th := c.T + c.H
	// Normalization over every value of the train windows.
	train := make([]float64, 0, c.TrainWindows*th)
	for i := range series[0] {
		for t := range th {
			train = append(train, series[0][i].value(t))
		}
	}
	norm, _, bad := normalize(train, 1, len(train))
	if bad >= 0 {
		return nil, fmt.Errorf("track: panel: the train windows have std %v; draw them with noise or sinusoids", norm.Std[0])
	}
	d := &Dataset{Name: "panel", Norm: norm, Channels: []string{"x"}}
	for k, s := range []*Split{&d.Train, &d.Val, &d.Test} {
		*s = Split{X: make([]float64, len(series[k])*c.T), Y: make([]float64, len(series[k])*th), N: len(series[k]), T: c.T, H: c.H, C: 1}
		for n := range series[k] {
			x, y := s.Window(n)
			for t := range y {
				y[t] = (series[k][n].value(t) - norm.Mean[0]) / norm.Std[0]
			}
			copy(x, y[:c.T])
		}
	}
	var sum float64
	for _, p := range series[2] {
		sum += arNoiseFloor(c.ARCoef, p.sigma, c.H)
	}
	d.NoiseFloor = sum / float64(len(series[2])) / (norm.Std[0] * norm.Std[0])
	d.HasNoiseFloor = true
	return d, nil
}
