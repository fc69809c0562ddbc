package track

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPerSeriesMaps: a line is continued exactly by its series'
// centred map (whatever the λ);
// under an overwhelming ridge the plain map forecasts each series' mean
// training target; a series without a training window is forecast by
// its last value.
func TestPerSeriesMaps(t *testing.T) {
	trend := func(a, b float64, n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = a + b*float64(i) + 0.3*math.Sin(float64(i)) // the sine varies the training part
		}
		return s
	}
	a, b := trend(1, 0.5, 30), trend(-2, 0.2, 26)
	for i := range a {
		a[i] = 1 + 0.5*float64(i)
	}
	p, err := NewRealPanel(tsfOf(t, "yearly", 2, a, b, trend(3, -0.1, 9)), RealPanelConfig{T: 4})
	require.NoError(t, err)
	require.Equal(t, []int{0, 21, 38, 38}, p.TrainStart, "30-6-4+1 and 26-6-4+1 windows, none for 9 values")

	val, test, l, err := p.PerSeriesMaps(true)
	require.NoError(t, err)
	_, y := p.Test.Window(0)
	require.InDeltaSlice(t, y[4:], test[0:2], 1e-9, "a line is continued exactly")
	_, yv := p.Val.Window(0)
	require.InDeltaSlice(t, yv[4:], val[0:2], 1e-9)
	x2, _ := p.Test.Window(2)
	require.Equal(t, []float64{x2[3], x2[3]}, test[4:6], "no training window: persistence")
	require.Contains(t, PerSeriesLambdas, l)

	saved := PerSeriesLambdas
	t.Cleanup(func() { PerSeriesLambdas = saved })
	PerSeriesLambdas = []float64{1e12}
	_, test, l, err = p.PerSeriesMaps(false)
	require.NoError(t, err)
	require.Equal(t, 1e12, l)
	for k := range 2 {
		var mean [2]float64
		lo, hi := p.TrainStart[k], p.TrainStart[k+1]
		for n := lo; n < hi; n++ {
			_, wy := p.Train.Window(n)
			mean[0] += wy[4] / float64(hi-lo)
			mean[1] += wy[5] / float64(hi-lo)
		}
		require.InDeltaSlice(t, mean[:], test[2*k:2*k+2], 1e-6, "series %d: the mean training target", k)
	}
}
