package track

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWindow(t *testing.T) {
	s := Split{X: []float64{1, 2, 3, 4, 5, 6, 7, 8}, Y: []float64{1, 3, 9, 5, 7, 9}, N: 2, T: 2, H: 1, C: 2}
	x, y := s.Window(1)
	assert.Equal(t, []float64{5, 6, 7, 8}, x)
	assert.Equal(t, []float64{5, 7, 9}, y)
	x[0] = -1
	assert.Equal(t, -1.0, s.X[4], "Window returns views")
	// Capped views: appending must reallocate, not overwrite the next window.
	x0, y0 := s.Window(0)
	_ = append(x0, 42)
	_ = append(y0, 42)
	assert.Equal(t, -1.0, s.X[4])
	assert.Equal(t, 5.0, s.Y[3])

	for _, tc := range []struct {
		name string
		s    Split
		n    int
	}{
		{"negative index", s, -1},
		{"index N", s, 2},
		// len(Y) says T+H = 4, the sizes say 3.
		{"Y of the wrong length", Split{X: []float64{1, 2}, Y: []float64{1, 2, 3, 4}, N: 1, T: 2, H: 1, C: 1}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Panics(t, func() { tc.s.Window(tc.n) })
		})
	}
}

func TestNewDatasetChannels(t *testing.T) {
	// Two channels over 1+1+1 windows of T=2, H=1: regions of 3 steps.
	// Channel 0 counts 0..8, channel 1 is 10 times channel 0 plus 1; the
	// target is channel 1.
	series := make([]float64, 9*2) // (L,C)
	for i := range 9 {
		series[2*i], series[2*i+1] = float64(i), 10*float64(i)+1
	}
	orig := append([]float64(nil), series...)
	d, err := newDataset("toy", series, 2, 1, 2, 1, 1, 1, 1)
	require.NoError(t, err)
	assert.Equal(t, orig, series, "newDataset must not modify series")

	// Train region 0, 1, 2: mean 1, population std sqrt(2/3).
	assert.InDeltaSlice(t, []float64{1, 11}, d.Norm.Mean, 1e-12)
	assert.InDeltaSlice(t, []float64{0.816496580927726, 8.16496580927726}, d.Norm.Std, 1e-12)
	assert.Equal(t, 1, d.Target)
	assert.False(t, d.HasNoiseFloor)

	// Both channels normalize to the same values; test covers steps 6..8.
	z := func(i float64) float64 { return (i - 1) / 0.816496580927726 }
	x, y := d.Test.Window(0)
	assert.InDeltaSlice(t, []float64{z(6), z(6), z(7), z(7)}, x, 1e-12)
	assert.InDeltaSlice(t, []float64{z(6), z(7), z(8)}, y, 1e-12)

	t.Run("constant channel", func(t *testing.T) {
		c := append([]float64(nil), series...)
		for i := range 9 {
			c[2*i] = 3
		}
		_, err := newDataset("toy", c, 2, 1, 2, 1, 1, 1, 1)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "channel 0")
	})
	t.Run("wrong length", func(t *testing.T) {
		assert.Panics(t, func() { _, _ = newDataset("toy", series[:16], 2, 1, 2, 1, 1, 1, 1) })
	})
}
