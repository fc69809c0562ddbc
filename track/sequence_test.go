package track

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smallConfig is a fast sequence track for the structural tests.
func smallConfig(seed uint64) SequenceConfig {
	c := DefaultSequenceConfig()
	c.DataSeed = seed
	c.TrainWindows, c.ValWindows, c.TestWindows = 50, 20, 10
	c.T, c.H = 6, 3
	return c
}

func TestSequenceDeterminism(t *testing.T) {
	a, err := Sequence(smallConfig(7))
	require.NoError(t, err)
	b, err := Sequence(smallConfig(7))
	require.NoError(t, err)
	c, err := Sequence(smallConfig(8))
	require.NoError(t, err)
	bits := func(d *Dataset) []uint64 {
		var out []uint64
		for _, s := range []*Split{&d.Train, &d.Val, &d.Test} {
			for _, v := range append(append([]float64{}, s.X...), s.Y...) {
				out = append(out, math.Float64bits(v))
			}
		}
		return out
	}
	assert.Equal(t, bits(a), bits(b), "same DataSeed must give identical bits")
	assert.NotEqual(t, bits(a), bits(c), "different DataSeed must give a different series")
}

func TestSequenceLayout(t *testing.T) {
	cfg := smallConfig(3)
	d, err := Sequence(cfg)
	require.NoError(t, err)
	raw, _ := sequenceSeries(cfg)
	lTrain, lVal := regionLen(cfg.TrainWindows, cfg.T, cfg.H), regionLen(cfg.ValWindows, cfg.T, cfg.H)
	require.Len(t, raw, lTrain+lVal+regionLen(cfg.TestWindows, cfg.T, cfg.H))

	for _, tc := range []struct {
		name  string
		s     *Split
		n     int
		start int // offset of the region in the raw series: regions abut, so they cannot overlap
	}{
		{"train", &d.Train, cfg.TrainWindows, 0},
		{"val", &d.Val, cfg.ValWindows, lTrain},
		{"test", &d.Test, cfg.TestWindows, lTrain + lVal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.s
			require.Equal(t, [4]int{tc.n, cfg.T, cfg.H, 1}, [4]int{s.N, s.T, s.H, s.C})
			require.Len(t, s.X, s.N*s.T*s.C)
			require.Len(t, s.Y, s.N*(s.T+s.H))
			for n := range s.N {
				x, y := s.Window(n)
				assert.Equal(t, x, y[:s.T], "Y[n][0:T] must equal the target channel of X[n]")
				for j, v := range y {
					assert.InDelta(t, raw[tc.start+n+j], v*d.Norm.Std[0]+d.Norm.Mean[0], 1e-12, "window %d step %d", n, j)
				}
				if n+1 < s.N {
					_, next := s.Window(n + 1)
					assert.Equal(t, y[1:], next[:len(next)-1], "window n+1 must be window n shifted by one")
				}
			}
		})
	}

	t.Run("train normalized", func(t *testing.T) {
		// The train region is window 0 plus the last value of every later window.
		_, region := d.Train.Window(0)
		region = append([]float64{}, region...)
		for n := 1; n < d.Train.N; n++ {
			_, y := d.Train.Window(n)
			region = append(region, y[len(y)-1])
		}
		require.Len(t, region, lTrain)
		var mean, ss float64
		for _, v := range region {
			mean += v
		}
		mean /= float64(len(region))
		for _, v := range region {
			ss += (v - mean) * (v - mean)
		}
		assert.InDelta(t, 0, mean, 1e-12)
		assert.InDelta(t, 1, math.Sqrt(ss/float64(len(region))), 1e-12, "population std")
	})
}

func TestSequenceConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(*SequenceConfig)
		field string // "" for a valid config
	}{
		{"default", func(*SequenceConfig) {}, ""},
		{"no noise", func(c *SequenceConfig) { c.NoiseStd = 0 }, ""},
		{"single period", func(c *SequenceConfig) { c.MinPeriod, c.MaxPeriod = 12, 12 }, ""},
		{"negative phi", func(c *SequenceConfig) { c.ARCoef = -0.5 }, ""},
		{"zero train windows", func(c *SequenceConfig) { c.TrainWindows = 0 }, "train_windows"},
		{"zero val windows", func(c *SequenceConfig) { c.ValWindows = 0 }, "val_windows"},
		{"negative test windows", func(c *SequenceConfig) { c.TestWindows = -1 }, "test_windows"},
		{"zero T", func(c *SequenceConfig) { c.T = 0 }, "t ="},
		{"zero H", func(c *SequenceConfig) { c.H = 0 }, "h ="},
		{"zero components", func(c *SequenceConfig) { c.Components = 0 }, "components"},
		// A period of 1.5 steps aliases.
		{"period below Nyquist", func(c *SequenceConfig) { c.MinPeriod = 1.5 }, "min_period"},
		{"NaN period", func(c *SequenceConfig) { c.MinPeriod = math.NaN() }, "min_period"},
		{"max below min", func(c *SequenceConfig) { c.MaxPeriod = 5 }, "max_period"},
		{"infinite max", func(c *SequenceConfig) { c.MaxPeriod = math.Inf(1) }, "max_period"},
		// phi = 1 is a random walk: no stationary distribution for e_0.
		{"unit root", func(c *SequenceConfig) { c.ARCoef = 1 }, "ar_coef"},
		{"negative sigma", func(c *SequenceConfig) { c.NoiseStd = -0.1 }, "noise_std"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultSequenceConfig()
			tc.edit(&c)
			err := c.Validate()
			if tc.field == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.True(t, strings.HasPrefix(err.Error(), "track: "+tc.field), "error %q must name %s", err, tc.field)
			_, err = Sequence(c)
			assert.Error(t, err, "Sequence must refuse an invalid config")
		})
	}
}

// TestNoiseFloor scores the oracle forecaster, which knows the sinusoids and
// e up to the last input, ŷ_{T-1+h} = signal_{T-1+h} + ϕ^h·e_{T-1}, on many
// test windows. Its MSE is the mean of N·H squared Gaussian errors whose
// correlation spans at most H neighbouring windows, so its standard error is
// at most NoiseFloor·sqrt(2H/N) ≈ 0.9% at N = 200000, H = 8; the 4%
// tolerance is over four standard errors.
func TestNoiseFloor(t *testing.T) {
	cfg := DefaultSequenceConfig()
	cfg.DataSeed = 11
	cfg.TestWindows = 200000
	d, err := Sequence(cfg)
	require.NoError(t, err)
	require.True(t, d.HasNoiseFloor)
	_, parts := sequenceSeries(cfg)
	start := regionLen(cfg.TrainWindows, cfg.T, cfg.H) + regionLen(cfg.ValWindows, cfg.T, cfg.H)
	s := &d.Test
	pred := make([]float64, s.N*s.H) // (N,H)
	for n := range s.N {
		last := start + n + s.T - 1
		phiH := 1.0
		for h := range s.H {
			phiH *= cfg.ARCoef
			raw := parts.signal(last+1+h) + phiH*parts.noise[last]
			pred[n*s.H+h] = (raw - d.Norm.Mean[0]) / d.Norm.Std[0]
		}
	}
	oracle := LastPositionMSE(pred, s)
	t.Logf("noise floor %.5f, oracle MSE %.5f", d.NoiseFloor, oracle)
	assert.InEpsilon(t, d.NoiseFloor, oracle, 0.04)
}
