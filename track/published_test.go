package track

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestPublishedClassical: on each real panel of the data set table found
// under $IDEABENCH_DATA (skipped where it is unset or holds none), SES
// and Theta fitted per series score within 0.005 of the mean MASE the
// archive publishes for them: the reader, the split, the MASE scale and
// the two forecasters reproduce the archive's numbers on its own data.
func TestPublishedClassical(t *testing.T) {
	dir := os.Getenv("IDEABENCH_DATA")
	if dir == "" {
		t.Skip("IDEABENCH_DATA is unset")
	}
	ran := 0
	for _, k := range Known {
		if k.TrackKind() != "tsf" || len(k.Published) == 0 {
			continue
		}
		path, err := k.Find(dir)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		require.NoError(t, err, "a file there must be the published one")
		ran++
		t.Run(k.Name, func(t *testing.T) {
			f, err := LoadTSF(path)
			require.NoError(t, err)
			p, err := NewRealPanel(f, RealPanelConfig{T: k.T, H: k.H})
			require.NoError(t, err)
			c := p.Classical()
			for _, x := range k.Published {
				var got float64
				switch x.Method {
				case "SES":
					got = c["ses"].MASE
				case "Theta":
					got = c["theta"].MASE
				default:
					continue
				}
				require.InDelta(t, x.MASE, got, 0.005, "%s on %s", x.Method, k.Name)
			}
		})
	}
	if ran == 0 {
		t.Skipf("no real panel of the data set table under %s", dir)
	}
}
