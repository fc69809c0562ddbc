package plots

import (
	"bytes"
	"context"
	"encoding/xml"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ideabench/ideabench/harness"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot/vg"
)

var tiny struct {
	once sync.Once
	r    *harness.Report
	err  error
}

// report runs the tiny protocol of cmd/ideabench's tests once.
func report(t *testing.T) *harness.Report {
	t.Helper()
	tiny.once.Do(func() {
		p, err := harness.LoadProtocol("../cmd/ideabench/testdata/tiny.json", harness.CIProfile())
		if err != nil {
			tiny.err = err
			return
		}
		o, err := harness.Run(context.Background(), p, harness.Options{})
		if err == nil {
			tiny.r = o.Report
		}
		tiny.err = err
	})
	require.NoError(t, tiny.err)
	return tiny.r
}

func pixels(l vg.Length) int { return int(math.Round(l.Points() / vg.Inch.Points() * DPI)) }

// checkFiles: each figure exists in both formats, non-empty, decoding to
// the stated size.
func checkFiles(t *testing.T, paths []string, names []string, w, h vg.Length) {
	t.Helper()
	var want []string
	for _, n := range names {
		want = append(want, n+".png", n+".svg")
	}
	var got []string
	for _, p := range paths {
		got = append(got, filepath.Base(p))
	}
	require.Equal(t, want, got)
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NotEmpty(t, raw)
			if strings.HasSuffix(path, ".png") {
				cfg, err := png.DecodeConfig(bytes.NewReader(raw))
				require.NoError(t, err)
				require.Equal(t, [2]int{pixels(w), pixels(h)}, [2]int{cfg.Width, cfg.Height})
				_, err = png.Decode(bytes.NewReader(raw))
				require.NoError(t, err)
				return
			}
			var svg struct {
				XMLName xml.Name
				Width   string `xml:"width,attr"`
				Height  string `xml:"height,attr"`
			}
			require.NoError(t, xml.Unmarshal(raw, &svg))
			require.Equal(t, "svg", svg.XMLName.Local)
			for _, d := range []struct {
				attr string
				want vg.Length
			}{{svg.Width, w}, {svg.Height, h}} {
				require.True(t, strings.HasSuffix(d.attr, "pt"), d.attr)
				v, err := strconv.ParseFloat(strings.TrimSuffix(d.attr, "pt"), 64)
				require.NoError(t, err)
				require.InDelta(t, d.want.Points(), v, 0.005, "svg size in points")
			}
		})
	}
}

func TestWrite(t *testing.T) {
	r := report(t)
	for _, tc := range []struct {
		name string
		opt  Options
		w, h vg.Length
	}{
		{"default", Options{}, 16 * vg.Centimeter, 10 * vg.Centimeter},
		{"wide", Options{Width: 8 * vg.Inch, Height: 3 * vg.Inch}, 8 * vg.Inch, 3 * vg.Inch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			paths, err := Write(r, dir, tc.opt)
			require.NoError(t, err)
			checkFiles(t, paths, []string{"paired", "sweep", "gate", "loss"}, tc.w, tc.h)
			tmp, _ := filepath.Glob(filepath.Join(dir, ".*"))
			require.Empty(t, tmp, "no temporary files")
		})
	}
}

// TestWriteOldReport: a report without per-position signatures or loss
// curves (the seed report's schema) still gets its other figures.
func TestWriteOldReport(t *testing.T) {
	r, err := harness.ReadReport("../harness/testdata/seed-report.json")
	require.NoError(t, err)
	paths, err := Write(r, t.TempDir(), Options{})
	require.NoError(t, err)
	checkFiles(t, paths, []string{"paired", "sweep"}, 16*vg.Centimeter, 10*vg.Centimeter)
}

func TestWriteErrors(t *testing.T) {
	_, err := Write(&harness.Report{}, t.TempDir(), Options{})
	require.ErrorContains(t, err, "baseline.full.per_seed has 0 values")
	f := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(f, nil, 0o644))
	_, err = Write(report(t), filepath.Join(f, "sub"), Options{})
	require.Error(t, err)
	_, err = Write(nil, t.TempDir(), Options{})
	require.ErrorContains(t, err, "no report")
}

func TestInterval(t *testing.T) {
	// d = (1, 2, 3): mean 2, s = 1; for ν = 2 the t quantile has the
	// closed form t_p = (2p-1)/√(2p(1-p)), so t(0.975, 2) = 0.95/√0.04875.
	lo, hi, err := Interval([]float64{1, 2, 3})
	require.NoError(t, err)
	half := 0.95 / math.Sqrt(0.04875) / math.Sqrt(3)
	require.InDelta(t, 2-half, lo, 1e-12)
	require.InDelta(t, 2+half, hi, 1e-12)
	_, _, err = Interval([]float64{1})
	require.ErrorContains(t, err, "at least 2")
}
