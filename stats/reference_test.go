package stats

import (
	"bytes"
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// The reference study: 8 seeds of the sequence track, baseline best config
// against the idea, from ../../shared/seed/seed-report.json. testdata holds
// just the numbers this package reproduces.

type refArm struct {
	Mean    float64   `json:"mean"`
	Std     float64   `json:"std"`
	PerSeed []float64 `json:"per_seed"`
	N       int       `json:"n"`
}

type refComparison struct {
	DeltaMean    float64   `json:"delta_mean"`
	IdeaWins     int       `json:"idea_wins"`
	NPairs       int       `json:"n_pairs"`
	PerSeedDiffs []float64 `json:"per_seed_diffs"`
	PValue       float64   `json:"p_value"`
	MDE          float64   `json:"mde"`
	MDERelPct    float64   `json:"mde_rel_pct"`
	Verdict      string    `json:"verdict"`
}

type reference struct {
	MetricDirection string        `json:"metric_direction"`
	BaselineFull    refArm        `json:"baseline_full"`
	Idea            refArm        `json:"idea"`
	Comparison      refComparison `json:"comparison"`
}

func loadReference(t *testing.T) reference {
	t.Helper()
	b, err := os.ReadFile("testdata/reference-per-seed.json")
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields() // a misspelt key must not read as 0
	var ref reference
	if err := dec.Decode(&ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

// tableT975df7 is t_{0.975,7} rounded to three decimals, as printed in
// printed t tables. The reference's mde equals tableT975df7·sd/sqrt(8) to
// the last bit, whereas this package uses the exact quantile
// 2.3646242515927849 (gonum), so its MDE is 1.59e-4 relative smaller.
const tableT975df7 = 2.365

func TestReferenceReproduction(t *testing.T) {
	ref := loadReference(t)
	dir, err := ParseDirection(ref.MetricDirection)
	if err != nil {
		t.Fatal(err)
	}
	const tol = 1e-12

	for _, arm := range []struct {
		name string
		want refArm
	}{{"baseline full", ref.BaselineFull}, {"idea", ref.Idea}} {
		t.Run("summary "+arm.name, func(t *testing.T) {
			s := Summarize(arm.want.PerSeed)
			checkRel(t, "Mean", s.Mean, arm.want.Mean, tol)
			checkRel(t, "Std (ddof 0)", s.Std, arm.want.Std, tol)
			if s.N != arm.want.N {
				t.Errorf("N = %d, want %d", s.N, arm.want.N)
			}
		})
	}

	c, err := Compare(ref.BaselineFull.PerSeed, ref.Idea.PerSeed, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := ref.Comparison
	t.Run("comparison", func(t *testing.T) {
		checkRel(t, "DeltaMean", c.DeltaMean, want.DeltaMean, tol)
		if c.IdeaWins != want.IdeaWins || c.NPairs != want.NPairs || c.Verdict != want.Verdict {
			t.Errorf("IdeaWins, NPairs, Verdict = %d, %d, %q; want %d, %d, %q",
				c.IdeaWins, c.NPairs, c.Verdict, want.IdeaWins, want.NPairs, want.Verdict)
		}
		if len(c.PerSeedDiffs) != len(want.PerSeedDiffs) {
			t.Fatalf("%d diffs, want %d", len(c.PerSeedDiffs), len(want.PerSeedDiffs))
		}
		for i := range want.PerSeedDiffs {
			checkRel(t, "PerSeedDiffs", c.PerSeedDiffs[i], want.PerSeedDiffs[i], tol)
		}
		checkWarnings(t, c.Warnings, ErrBelowMDE) // |0.0074| < 0.038
	})
	t.Run("exact p", func(t *testing.T) {
		// 160 of the 256 sign vectors reach |Σd| (80 of the 128 with the
		// last sign +). The reference's 0.6281 is a Monte Carlo estimate of
		// this 0.625: 0.0031 away, within one standard error
		// sqrt(0.625·0.375/10000) = 0.0048 of 10000 draws.
		if c.PValue != 160.0/256 || c.PValueMethod != MethodExact {
			t.Errorf("p = %v (%s), want 0.625 (exact)", c.PValue, c.PValueMethod)
		}
	})
	t.Run("monte carlo p", func(t *testing.T) {
		opt := DefaultOptions()
		opt.ExactMaxN = 0
		opt.MonteCarloDraws = 10000
		mc, err := Compare(ref.BaselineFull.PerSeed, ref.Idea.PerSeed, dir, &opt)
		if err != nil {
			t.Fatal(err)
		}
		// 0.02 is about 4 standard errors of 10000 draws.
		if d := mc.PValue - 0.625; d > 0.02 || d < -0.02 || mc.PValueDraws != 10000 {
			t.Errorf("Monte Carlo p = %v with %d draws, want 0.625 ± 0.02 with 10000", mc.PValue, mc.PValueDraws)
		}
	})
	t.Run("mde", func(t *testing.T) {
		// Same sd_diff (ddof 1) and sqrt(n) as the reference: swapping the
		// exact quantile for the table value reproduces it to 1e-12.
		scale := tableT975df7 / TQuantile(0.975, 7)
		checkRel(t, "MDE·2.365/t_{0.975,7}", c.MDE*scale, want.MDE, tol)
		checkRel(t, "MDERelPct·2.365/t_{0.975,7}", c.MDERelPct*scale, want.MDERelPct, tol)
		checkRel(t, "MDERelPct", c.MDERelPct, 100*c.MDE/ref.BaselineFull.Mean, tol)
		// The exact-quantile MDE differs from the reference by the
		// quantile's rounding only.
		checkRel(t, "MDE vs reference", c.MDE, want.MDE, 2e-4)
	})
}

func TestReferenceMatchesSharedReport(t *testing.T) {
	// report/testdata holds the seed report (checked there against
	// ../shared), so this runs wherever CI does.
	b, err := os.ReadFile("../report/testdata/seed-report.json")
	if err != nil {
		t.Fatal(err)
	}
	var report struct {
		MetricDirection string `json:"metric_direction"`
		Baseline        struct {
			Full refArm `json:"full"`
		} `json:"baseline"`
		Idea       refArm        `json:"idea"`
		Comparison refComparison `json:"comparison"`
	}
	if err := json.Unmarshal(b, &report); err != nil {
		t.Fatal(err)
	}
	got := loadReference(t)
	want := reference{
		MetricDirection: report.MetricDirection,
		BaselineFull:    report.Baseline.Full,
		Idea:            report.Idea,
		Comparison:      report.Comparison,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("testdata/reference-per-seed.json differs from the shared report:\n got %+v\nwant %+v", got, want)
	}
}
