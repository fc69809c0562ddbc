package track

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// oracleMSE runs the oracle of Panel's NoiseFloor on the test series of c
// and returns its MSE on the normalized scale: it knows each series'
// sinusoids and phi, reads e_{T-1} off the window's last input and
// forecasts signal(T-1+h) + phi^h·e_{T-1}.
func oracleMSE(t *testing.T, c PanelConfig) (mse float64, d *Dataset) {
	t.Helper()
	d, err := Panel(c)
	require.NoError(t, err)
	series := panelSplits(c)[2]
	pred := make([]float64, d.Test.N*c.H)
	std, mean := d.Norm.Std[0], d.Norm.Mean[0]
	for n, p := range series {
		x, _ := d.Test.Window(n)
		last := x[c.T-1]*std + mean
		e := last - p.signal(c.T-1)
		for h := 1; h <= c.H; h++ {
			v := p.signal(c.T-1+h) + math.Pow(c.ARCoef, float64(h))*e
			pred[n*c.H+h-1] = (v - mean) / std
		}
	}
	return LastPositionMSE(pred, &d.Test), d
}

// TestPanelFloorMonteCarlo: the oracle's MSE over many test series agrees
// with the closed-form NoiseFloor. Its squared errors have mean NoiseFloor
// and a spread of the same order, so with N·H ≈ 160k draws (errors of one
// series are correlated across h, N = 20000 independent series) the
// relative standard error is about sqrt(2/N)·(1+phi²)… < 2%; 5% is ~3
// standard errors.
func TestPanelFloorMonteCarlo(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*PanelConfig)
	}{
		{"default", func(*PanelConfig) {}},
		{"strong_ar", func(c *PanelConfig) { c.ARCoef, c.MinNoise, c.MaxNoise = 0.9, 0.2, 0.2 }},
		{"negative_ar", func(c *PanelConfig) { c.ARCoef, c.H = -0.6, 3 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultPanelConfig()
			c.TrainWindows, c.ValWindows, c.TestWindows = 2000, 10, 20000
			tc.edit(&c)
			mse, d := oracleMSE(t, c)
			require.InEpsilon(t, d.NoiseFloor, mse, 0.05, "oracle MSE %.5f vs floor %.5f", mse, d.NoiseFloor)
		})
	}
}

func TestPanelSplitsIndependentOfSizes(t *testing.T) {
	c := DefaultPanelConfig()
	c.TrainWindows, c.ValWindows, c.TestWindows = 100, 50, 40
	a, err := Panel(c)
	require.NoError(t, err)
	c.TrainWindows = 300
	b, err := Panel(c)
	require.NoError(t, err)
	// The normalization moves with the train split; the raw series of val
	// and test do not.
	for n := range a.Test.N {
		_, ya := a.Test.Window(n)
		_, yb := b.Test.Window(n)
		for i := range ya {
			ra := ya[i]*a.Norm.Std[0] + a.Norm.Mean[0]
			rb := yb[i]*b.Norm.Std[0] + b.Norm.Mean[0]
			require.InDelta(t, ra, rb, 1e-12)
		}
	}
}

func TestPanelValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*PanelConfig)
		want string // substring; "" for valid
	}{
		{"default", func(*PanelConfig) {}, ""},
		{"no_test", func(c *PanelConfig) { c.TestWindows = 0 }, "test_windows = 0: each split needs at least 1 series; use e.g. 2048"},
		{"period_aliases", func(c *PanelConfig) { c.MinPeriod = 1.5 }, "min_period = 1.5"},
		{"max_below_min", func(c *PanelConfig) { c.MaxPeriod = 3 }, "max_period = 3: must be finite and at least min_period = 4"},
		{"unit_root", func(c *PanelConfig) { c.ARCoef = -1 }, "ar_coef = -1"},
		{"noise_negative", func(c *PanelConfig) { c.MinNoise = -0.1 }, "min_noise = -0.1"},
		{"noise_range", func(c *PanelConfig) { c.MaxNoise = 0.01 }, "max_noise = 0.01: must be finite and at least min_noise = 0.05"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultPanelConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, tc.want)
			_, err = Panel(c)
			require.Error(t, err)
		})
	}
}
