package track

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// weatherPath is the weather data set beside the project (../shared/data,
// see its README); tests that read it skip when it is absent.
var weatherPath = filepath.Join("..", "..", "shared", "data", "weather", "weather.csv")

// TestWeatherMultivariateReferences: the literature's multivariate
// setting on weather (21 channels, look-back 336, horizon 96, the LTSF
// split and scaling) gives the closed-form references measured when the
// setting was specified: one map shared by the channels 0.1738 (raw) and
// one per channel 0.1444 (raw), 0.1433 (last-value centred), against
// PatchTST's published 0.149-0.152 at look-back 336-512.
func TestWeatherMultivariateReferences(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: reads and fits 21 channels of weather")
	}
	if _, err := os.Stat(weatherPath); err != nil {
		t.Skipf("weather not present at %s: %v", weatherPath, err)
	}
	tab, err := LoadCSV(weatherPath)
	require.NoError(t, err)
	ds, err := CSV(tab, CSVConfig{Path: weatherPath, Channels: ChannelsIndependent, T: 336, H: 96})
	require.NoError(t, err)
	// 52 696 rows: train int(0.7n) = 36 887, test int(0.2n) = 10 539.
	per := [3]int{36887 - 336 - 96 + 1, 52696 - 36887 - 10539 - 96 + 1, 10539 - 96 + 1}
	require.Equal(t, [3]int{21 * per[0], 21 * per[1], 21 * per[2]}, [3]int{ds.Train.N, ds.Val.N, ds.Test.N})
	require.Len(t, ds.Series, 21)
	for _, tc := range []struct {
		name      string
		centred   bool
		perSeries bool
		want      float64
	}{
		{"shared raw", false, false, 0.1738},
		{"per channel raw", false, true, 0.1444},
		{"per channel centred", true, true, 0.1433},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got float64
			if tc.perSeries {
				maps, err := FitPerSeries(&ds.Train, tc.centred)
				require.NoError(t, err)
				got = PerSeriesMSE(maps, &ds.Test)
			} else {
				l, err := FitSeries(&ds.Train, tc.centred)
				require.NoError(t, err)
				got = l.MSE(&ds.Test)
			}
			t.Logf("%s: test MSE %.5f", tc.name, got)
			require.InDelta(t, tc.want, got, 0.00005)
		})
	}
}
