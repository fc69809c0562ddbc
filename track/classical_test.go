package track

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNaiveForecasts: the naive and seasonal naive forecasts by hand.
func TestNaiveForecasts(t *testing.T) {
	y := []float64{1, 2, 3, 4, 5}
	require.Equal(t, []float64{5, 5, 5}, NaiveForecast(y, 3))
	f, err := SeasonalNaiveForecast(y, 2, 5)
	require.NoError(t, err)
	require.Equal(t, []float64{4, 5, 4, 5, 4}, f)
	f, err = SeasonalNaiveForecast(y, 1, 2)
	require.NoError(t, err)
	require.Equal(t, NaiveForecast(y, 2), f, "period 1 is the naive forecast")
	_, err = SeasonalNaiveForecast(y, 6, 2)
	require.ErrorContains(t, err, "period 6 on 5 observations")
}

// TestMASE: the scale and the error by hand, and the degenerate scales.
func TestMASE(t *testing.T) {
	s, err := MASEScale([]float64{1, 2, 4, 7}, 1) // |1|,|2|,|3|: mean 2
	require.NoError(t, err)
	require.Equal(t, 2.0, s)
	s, err = MASEScale([]float64{1, 2, 4, 7}, 2) // |3|,|5|: mean 4
	require.NoError(t, err)
	require.Equal(t, 4.0, s)
	require.Equal(t, 0.75, MASE([]float64{9, 10}, []float64{7, 11}, 2)) // (2+1)/2/2
	_, err = MASEScale([]float64{3, 3, 3}, 1)
	require.ErrorContains(t, err, "does not change over a period")
	_, err = MASEScale([]float64{1, 2}, 2)
	require.ErrorContains(t, err, "more than one period")
	// The seasonal naive forecast of a series that repeats with period m
	// has MASE 0 on its continuation.
	y := []float64{1, 5, 2, 1, 5, 2, 1, 5}
	f, err := SeasonalNaiveForecast(y[:6], 3, 2)
	require.NoError(t, err)
	s, err = MASEScale([]float64{1, 5, 2, 1, 6, 2}, 3)
	require.NoError(t, err)
	require.Equal(t, 0.0, MASE(y[6:], f, s))
}

// TestFitSES: a constant series is fitted exactly at any α; the fit's
// SSE is the least over a neighbourhood of (α, ℓ0); the level is the
// recurrence run from ℓ0.
func TestFitSES(t *testing.T) {
	s := FitSES([]float64{4, 4, 4, 4})
	require.InDelta(t, 0, s.SSE, 1e-20)
	require.InDelta(t, 4, s.Level, 1e-12)
	require.Equal(t, []float64{s.Level, s.Level}, s.Forecast(2))

	y := []float64{3, 5, 4, 6, 8, 7, 9, 8, 10, 12, 11, 13}
	s = FitSES(y)
	require.GreaterOrEqual(t, s.Alpha, sesAlphaMin)
	require.LessOrEqual(t, s.Alpha, sesAlphaMax)
	sse := func(a, l0 float64) float64 {
		l, e2 := l0, 0.0
		for _, v := range y {
			e2 += (v - l) * (v - l)
			l += a * (v - l)
		}
		return e2
	}
	require.InDelta(t, sse(s.Alpha, s.L0), s.SSE, 1e-9)
	for _, da := range []float64{-1e-3, 1e-3} {
		for _, dl := range []float64{-1e-2, 0, 1e-2} {
			a := math.Min(sesAlphaMax, math.Max(sesAlphaMin, s.Alpha+da))
			require.GreaterOrEqual(t, sse(a, s.L0+dl), s.SSE-1e-9, "α %v ℓ0 %v", a, s.L0+dl)
		}
	}
	l := s.L0
	for _, v := range y {
		l += s.Alpha * (v - l)
	}
	require.InDelta(t, l, s.Level, 1e-12)
}

// TestTheta: on a straight line the method is SES with half the slope as
// drift (Hyndman and Billah 2003): α goes to its bound, the level to the
// last point, and the forecast to y_{n−1} + (b/2)·(i + 1); a series that
// repeats multiplicatively with period 4 is found seasonal, its indices
// are recovered exactly, and its forecast continues it.
func TestTheta(t *testing.T) {
	var line []float64
	for i := range 30 {
		line = append(line, 2+0.5*float64(i))
	}
	f := Theta(line, 1, 3)
	for i, v := range f {
		require.InDelta(t, line[29]+0.25*float64(i+1), v, 1e-3, "step %d", i+1)
	}

	s := []float64{0.8, 1.2, 0.9, 1.1}
	var y []float64
	for i := range 24 {
		y = append(y, 10*s[i%4])
	}
	require.True(t, SeasonalTest(y, 4))
	idx, err := SeasonalIndices(y, 4)
	require.NoError(t, err)
	require.InDeltaSlice(t, s, idx, 1e-12)
	f = Theta(y, 4, 6)
	for i, v := range f {
		require.InDelta(t, 10*s[(24+i)%4], v, 1e-9, "step %d", i+1)
	}
	require.False(t, SeasonalTest(line, 4), "a line has no period")
	require.False(t, SeasonalTest(y[:8], 4), "too short to test")
	_, err = SeasonalIndices([]float64{1, 0, 1, 2, 1, 2, 1, 2}, 4)
	require.ErrorContains(t, err, "observation 1 is 0")
}
