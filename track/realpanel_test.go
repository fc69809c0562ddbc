package track

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// tsfOf writes series as a .tsf file of horizon h and frequency freq.
func tsfOf(t *testing.T, freq string, h int, series ...[]float64) *TSF {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "@relation T\n@attribute series_name string\n@frequency %s\n@horizon %d\n@missing false\n@equallength false\n@data\n", freq, h)
	for k, s := range series {
		var vs []string
		for _, v := range s {
			vs = append(vs, fmt.Sprint(v))
		}
		fmt.Fprintf(&b, "S%d:%s\n", k+1, strings.Join(vs, ","))
	}
	f, err := ReadTSF(strings.NewReader(b.String()), "t.tsf")
	require.NoError(t, err)
	return f
}

// TestNewRealPanel: the archive's split of each series (test the last
// H, val the H before), its windows and counts by hand, the normalization
// by the training part, and the MASE scale on the normalized scale.
func TestNewRealPanel(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10} // L 10
	b := []float64{5, 3, 5, 3, 5, 3, 5, 3}        // L 8
	p, err := NewRealPanel(tsfOf(t, "yearly", 2, a, b), RealPanelConfig{T: 3})
	require.NoError(t, err)
	require.Equal(t, 1, p.Period, "yearly: lag 1")
	// Series a: training part a[0:6], training windows of 3+2 values:
	// 6-5+1 = 2; series b: b[0:4], none (4 < 5).
	require.Equal(t, 2, p.Train.N)
	require.Equal(t, 2, p.Val.N)
	require.Equal(t, 2, p.Test.N)
	require.Equal(t, []string{"S1", "S2"}, p.Names)
	require.InDelta(t, 3.5, p.Mean[0], 1e-12) // mean of 1..6
	sd := math.Sqrt(17.5 / 6)
	require.InDelta(t, sd, p.Std[0], 1e-12)
	z := func(v float64) float64 { return (v - 3.5) / sd }
	x, y := p.Test.Window(0)
	require.InDeltaSlice(t, []float64{z(6), z(7), z(8)}, x, 1e-12)
	require.InDeltaSlice(t, []float64{z(9), z(10)}, y[3:], 1e-12)
	x, y = p.Val.Window(0)
	require.InDeltaSlice(t, []float64{z(4), z(5), z(6)}, x, 1e-12)
	require.InDeltaSlice(t, []float64{z(7), z(8)}, y[3:], 1e-12)
	_, y = p.Train.Window(1)
	require.InDeltaSlice(t, []float64{z(2), z(3), z(4), z(5), z(6)}, y, 1e-12)
	// The in-sample part is everything before the test targets; the scale
	// of a line of step 1 is 1/sd on the normalized scale.
	require.Len(t, p.InSample[0], 8)
	require.InDelta(t, 1/sd, p.Scale[0], 1e-12)
	// The naive forecast of series a is its last in-sample value, 8: its
	// MASE is mean(|9-8|, |10-8|)/1 = 1.5 on either scale.
	c := p.Classical()
	require.Contains(t, c, "seasonal_naive")
	naiveA := MASE([]float64{z(9), z(10)}, []float64{z(8), z(8)}, p.Scale[0])
	require.InDelta(t, 1.5, naiveA, 1e-12)
	_, yb := p.Test.Window(1)
	naiveB := MASE(yb[3:], []float64{yb[2], yb[2]}, p.Scale[1])
	require.InDelta(t, (naiveA+naiveB)/2, c["naive"].MASE, 1e-12)
}

// TestNewRealPanelErrors: each unusable input is refused naming the
// series and the fix.
func TestNewRealPanelErrors(t *testing.T) {
	long := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, tc := range []struct {
		name string
		f    *TSF
		c    RealPanelConfig
		want string
	}{
		{"short series", tsfOf(t, "yearly", 2, long, []float64{1, 2, 3, 4, 5, 6}), RealPanelConfig{T: 3}, `series "S2" has 6 values, fewer than the 7`},
		{"flat training part", tsfOf(t, "yearly", 2, long, []float64{4, 4, 4, 4, 4, 4, 5, 6}), RealPanelConfig{T: 2}, `series "S2" does not vary`},
		{"no training window", tsfOf(t, "yearly", 2, []float64{1, 2, 3, 4, 5, 6, 7}), RealPanelConfig{T: 3}, "no series has a training window"},
		{"unknown frequency", tsfOf(t, "fortnightly", 2, long), RealPanelConfig{T: 3}, `@frequency "fortnightly"`},
		{"period longer than the series", tsfOf(t, "monthly", 2, long), RealPanelConfig{T: 3, Period: 12}, "MASE scale of period 12"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewRealPanel(tc.f, tc.c)
			require.ErrorContains(t, err, tc.want)
		})
	}
	f, err := ReadTSF(strings.NewReader("@attribute series_name string\n@horizon 1\n@data\nA:1,?,3,4,5,6\n"), "m.tsf")
	require.NoError(t, err)
	_, err = NewRealPanel(f, RealPanelConfig{T: 2})
	require.ErrorContains(t, err, `m.tsf:4: series "A" has 1 missing values`)
}

// TestRealPanelShortSeason: a series not longer than the archive's
// season is scaled (and forecast by the seasonal naive method) at lag 1,
// as the archive does, series by series, and the panel says which; the
// others keep the season.
func TestRealPanelShortSeason(t *testing.T) {
	long := make([]float64, 40)
	for i := range long {
		long[i] = math.Sin(float64(i)) + 0.1*float64(i%5)
	}
	short := []float64{1, 2, 4, 8, 3, 5, 7, 9, 2, 6}
	p, err := NewRealPanel(tsfOf(t, "monthly", 2, long, short), RealPanelConfig{T: 3})
	require.NoError(t, err)
	require.Equal(t, 12, p.Period)
	require.Equal(t, []int{12, 1}, p.Lag)
	require.Len(t, p.Notes, 1)
	require.Contains(t, p.Notes[0], `1 series have no more in-sample values than the season of 12 ("S2" (line 9))`)
	for k, lag := range p.Lag {
		s, err := MASEScale(p.InSample[k], lag)
		require.NoError(t, err)
		require.Equal(t, s, p.Scale[k])
	}
	c := p.Classical() // no panic: the short series' seasonal naive is at lag 1
	require.Contains(t, c, "seasonal_naive")
}

// TestAddReferences: the archive's references join the panel's, each
// reference's MASE is MeanMASE of its forecasts, and Best weighs SES
// and Theta.
func TestAddReferences(t *testing.T) {
	var series [][]float64
	for k := range 6 {
		s := make([]float64, 40)
		for i := range s {
			s[i] = 10 + float64(k) + math.Sin(float64(i)*0.7+float64(k)) + 0.05*float64(i*k%7)
		}
		series = append(series, s)
	}
	p, err := NewRealPanel(tsfOf(t, "quarterly", 3, series...), RealPanelConfig{T: 8})
	require.NoError(t, err)
	f, err := forecasters(p.Dataset)
	require.NoError(t, err)
	require.NoError(t, p.AddReferences(f))
	c := p.Classical()
	require.Equal(t, c["ses"].MSE, *f.SES)
	require.Equal(t, c["theta"].MSE, *f.Theta)
	require.Equal(t, c["naive"].MASE, f.MASE["persistence"])
	require.Equal(t, c["seasonal_naive"].MASE, f.MASE["seasonal_persistence"])
	// Persistence's MSE on the windows is the naive forecast's.
	require.InDelta(t, f.Persistence, c["naive"].MSE, 1e-12)
	lin, err := FitLinearCentred(&p.Train)
	require.NoError(t, err)
	pred := make([]float64, p.Test.N*p.Test.H)
	lin.Forecast(pred, &p.Test, 0, p.Test.N)
	require.Equal(t, p.MeanMASE(pred), f.MASE["linear_centred"])
	require.Contains(t, f.MASE, "linear_ar")
	name, mse := f.Best()
	for _, v := range []float64{f.Persistence, f.LinearAR, *f.LinearCentred, *f.SES, *f.Theta, *f.LinearARPerChannel, *f.LinearCentredPerChannel} {
		require.LessOrEqual(t, mse, v, name)
	}
	_, ps, _, err := p.PerSeriesMaps(true)
	require.NoError(t, err)
	require.Equal(t, LastPositionMSE(ps, &p.Test), *f.LinearCentredPerChannel, "the per-series maps as the per-channel ones")
	require.Equal(t, p.MeanMASE(ps), f.MASE["linear_centred_per_channel"])
	require.NotNil(t, f.Val.LinearARPerChannel)
	require.Contains(t, PerSeriesLambdas, f.Lambdas["linear_ar_per_channel"])
	g := f.Raw()
	require.Equal(t, f.MASE, g.MASE)
	g.MASE["ses"] = -1
	require.NotEqual(t, -1.0, f.MASE["ses"], "Raw copies the map")
	require.Equal(t, f.Lambdas, g.Lambdas)
}

// TestRealPanelNotes: what makes a run another task than the archive's
// on its file reaches the panel's notes (the report's data notes): a
// horizon other than the file's @horizon, a file without one, a file
// without @frequency (MASE at lag 1, as the archive's evaluation takes
// it) unless the period is given, and the file's own notes (an @-line of
// no known tag); the archive's task on a complete header has none.
func TestRealPanelNotes(t *testing.T) {
	const series = "S1:1,3,2,5,4,6,5,8,7,9,8,11\nS2:2,1,4,3,5,4,7,6,8,7,10,9\n"
	for _, tc := range []struct {
		name, header string
		c            RealPanelConfig
		want         []string // one a note, in order
	}{
		{"archive's task", "@frequency yearly\n@horizon 2\n", RealPanelConfig{T: 3, H: 2}, nil},
		{"horizon from the file", "@frequency yearly\n@horizon 2\n", RealPanelConfig{T: 3}, nil},
		{"other horizon", "@frequency yearly\n@horizon 2\n", RealPanelConfig{T: 3, H: 3},
			[]string{"p.tsf: the run's horizon is 3, not the file's @horizon 2: the run uses another horizon than the archive's"}},
		{"no horizon", "@frequency yearly\n", RealPanelConfig{T: 3, H: 2},
			[]string{"p.tsf has no @horizon: the horizon 2 is the run's own"}},
		{"no frequency", "@horizon 2\n", RealPanelConfig{T: 3},
			[]string{"p.tsf: no @frequency: MASE's scale is the lag-1 naive forecast"}},
		{"no frequency, period given", "@horizon 2\n", RealPanelConfig{T: 3, Period: 2}, nil},
		{"unknown tag", "@frequency yearly\n@horizon 2\n@source by hand\n", RealPanelConfig{T: 3},
			[]string{`p.tsf:4: "@source" is no tag of the .tsf format`}},
		{"all of them", "@source by hand\n", RealPanelConfig{T: 3, H: 2},
			[]string{`"@source" is no tag`, "has no @horizon", "no @frequency"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := ReadTSF(strings.NewReader("@attribute series_name string\n"+tc.header+"@data\n"+series), "p.tsf")
			require.NoError(t, err)
			p, err := NewRealPanel(f, tc.c)
			require.NoError(t, err)
			require.Len(t, p.Notes, len(tc.want), "%q", p.Notes)
			for i, w := range tc.want {
				require.Contains(t, p.Notes[i], w)
			}
			if tc.c.Period == 0 && !strings.Contains(tc.header, "@frequency") {
				require.Equal(t, []int{1, 1}, p.Lag, "lag 1 without a frequency")
			}
		})
	}
}
