package ideabench_test

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/gate"
	"github.com/ideabench/ideabench/golden"
	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/suite"
	"github.com/ideabench/ideabench/suitereport"
	"github.com/stretchr/testify/require"
)

var (
	full    = flag.Bool("full", false, "also run the full and seed profiles (minutes) against golden/full and golden/seed")
	results = flag.String("results", "", "with -full: reuse the finished trials of this results folder (a run's --results, or a suite track's NAME.trials), read only, so that a golden update after a change that moves no trial takes seconds")
)

// seedReport is the seed report, kept under testdata so the schema test
// runs wherever CI does (harness tests check it against ../shared).
const seedReport = "report/testdata/seed-report.json"

// TestBenchCI runs the ci profile of the seeded protocol as the command
// line builds it (protocol.ProfileFor: its arms tuned), re-derives every
// number of its report, asserts the math identities and compares the
// report with golden/ci_1.snap.json.
func TestBenchCI(t *testing.T) {
	benchProfile(t, mustProfile(t, "ci"), "ci")
}

// mustProfile is the named profile on its own track, as the command line
// builds it (protocol.ProfileFor).
func mustProfile(t *testing.T, name string) protocol.Protocol {
	t.Helper()
	p, err := protocol.ProfileFor(name, "")
	require.NoError(t, err)
	return p
}

// TestControlAA pins a small A/A control: the ci profile against the
// same grid on disjoint seed streams, on the first 3 seed blocks from
// seed 100000 (disjoint from the default seeds). Every significant
// verdict there is a false positive; golden/control_aa_1.snap.json pins
// each block's headline and sign-flip p-values and choices.
func TestControlAA(t *testing.T) {
	aa := idea.Config{Name: "aa"}
	res, err := harness.Control(context.Background(), mustProfile(t, "ci"), aa, 3, 100000, harness.Options{}, nil)
	require.NoError(t, err)
	require.Equal(t, report.TestSelection, res.Test)
	require.Equal(t, []uint64{100000, 100001, 100002, 100003, 100004, 100005, 100006, 100007}, res.PerBlock[0].Seeds)
	data, err := json.Marshal(res)
	require.NoError(t, err)
	golden.Match(t, "control_aa", data)
}

// TestBenchSuiteCI runs the ci suites in the ci profile (the ci suite:
// the panel and sequence tracks; recall-ci: the recall suite's token
// tracks, held-out ones included), verifies each and compares its report
// with golden/suite_ci_1.snap.json and golden/suite_recall_ci_1.snap.json,
// without the volatile fields (the wall time, and the track reports'
// SHA-256, which covers their run blocks).
func TestBenchSuiteCI(t *testing.T) {
	for _, c := range []struct {
		golden string
		spec   suitereport.Spec
	}{{"suite_ci", suite.CI()}, {"suite_recall_ci", suite.RecallCI()}} {
		t.Run(c.golden, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "suite.json")
			r, err := suite.Run(context.Background(), c.spec, suite.Options{Out: out, Workers: 2, Confirm: c.golden != "suite_ci", Source: &suitereport.Source{Builtin: c.spec.Name}})
			require.NoError(t, err)
			back, err := suitereport.Read(out)
			require.NoError(t, err)
			fs, _ := suite.Verify(back, out, derive.VerifyOptions{})
			require.Empty(t, fs)
			r.WallSeconds = 0
			for i := range r.Tracks {
				r.Tracks[i].ReportSHA256 = ""
			}
			data, err := json.Marshal(r)
			require.NoError(t, err)
			golden.Match(t, c.golden, data)
		})
	}
}

// TestBenchFull runs the default protocol; it needs -full.
func TestBenchFull(t *testing.T) {
	if !*full {
		t.Skip("the full protocol takes minutes; run with -full")
	}
	benchProfile(t, mustProfile(t, "full"), "full")
}

// TestBenchSeed runs the seed profile, the seed report's protocol; it
// needs -full. Its trial results are those of golden/seed_1.snap.json,
// which TestSeedProfileKeepsTrials samples on every run.
func TestBenchSeed(t *testing.T) {
	if !*full {
		t.Skip("the seed protocol takes a minute; run with -full")
	}
	benchProfile(t, protocol.SeedProfile(), "seed")
}

// TestSeedProfileKeepsTrials: the seed profile still trains the trials of
// the seed report's protocol to the same numbers. It retrains three of
// its 48 trials (a baseline cfg on two seeds, a gated idea cfg) and
// compares their val and test metrics with golden/seed_1.snap.json at
// the golden files' precision.
func TestSeedProfileKeepsTrials(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(golden.Dir(), "seed_1.snap.json"))
	require.NoError(t, err)
	var g struct {
		Baseline struct {
			Sweep []struct {
				PerSeed []float64 `json:"per_seed"`
				Val     struct {
					PerSeed []float64 `json:"per_seed"`
				} `json:"val"`
			} `json:"sweep"`
		} `json:"baseline"`
		MechanismSignature struct {
			IdeaSweep []struct {
				Result struct {
					PerSeed []float64 `json:"per_seed"`
				} `json:"result"`
				Val struct {
					PerSeed []float64 `json:"per_seed"`
				} `json:"val"`
			} `json:"idea_sweep"`
		} `json:"mechanism_signature"`
	}
	require.NoError(t, json.Unmarshal(raw, &g))
	p := protocol.SeedProfile()
	d, err := p.Data()
	require.NoError(t, err)
	round := func(x float64) float64 {
		r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', golden.Digits, 64), 64)
		return r
	}
	for _, tc := range []struct {
		name      string
		cfg       protocol.Cfg
		seed      int
		val, test float64
	}{
		{"baseline/cfg1/seed0", p.Baseline[1], 0, g.Baseline.Sweep[1].Val.PerSeed[0], g.Baseline.Sweep[1].PerSeed[0]},
		{"baseline/cfg1/seed1", p.Baseline[1], 1, g.Baseline.Sweep[1].Val.PerSeed[1], g.Baseline.Sweep[1].PerSeed[1]},
		{"idea/cfg2/seed1", p.Idea[2], 1, g.MechanismSignature.IdeaSweep[2].Val.PerSeed[1], g.MechanismSignature.IdeaSweep[2].Result.PerSeed[1]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := trial.RunTrial(context.Background(), p, d.Dataset, tc.cfg, p.Seeds[tc.seed])
			require.NoError(t, err)
			require.Equal(t, tc.val, round(r.Val), "val")
			require.Equal(t, tc.test, round(r.Test), "test")
		})
	}
}

func benchProfile(t *testing.T, p protocol.Protocol, name string) {
	var o harness.Options
	if *results != "" {
		// New trials go to a scratch store; the kept folder is only read.
		st, err := trial.OpenStore(t.TempDir())
		require.NoError(t, err)
		st.Also = []string{*results}
		o.Store = st
	}
	out, err := harness.Run(context.Background(), p, o)
	require.NoError(t, err)
	r := out.Report
	data, err := r.Marshal()
	require.NoError(t, err)

	t.Run("verify", func(t *testing.T) {
		fs := derive.Verify(r, derive.VerifyOptions{Rerun: true})
		require.Empty(t, fs.Findings, "a fresh report must re-derive exactly")
	})
	t.Run("math_identities", func(t *testing.T) {
		mc := r.MechanismSignature.MathCheck
		require.True(t, mc.Confirmed)
		// One row per idea cfg, those a grid extension added included.
		require.Len(t, mc.Rows, len(r.MechanismSignature.IdeaSweep))
		for i, row := range mc.Rows {
			c := r.MechanismSignature.IdeaSweep[i].Cfg
			require.Equal(t, c.Rho, row.Rho)
			require.Equal(t, gate.HalfLife(c.Rho), row.HalfPredicted)
			require.Equal(t, row.HalfPredicted, row.HalfObserved)
			require.LessOrEqual(t, row.SteadyGainAbsError, idea.GateSteadyErrTol)
		}
		s := r.MechanismSignature.MechanismSignature
		require.InDelta(t, 1/(1+s.Beta*s.MeanState), s.PredictedSteadyGain, 1e-15)
		// The trained gate state obeys its recurrence: the unbiased fit
		// recovers ρ from float32 states.
		require.InDelta(t, s.Rho, s.FittedStatePole, idea.GatePoleTol)
	})
	t.Run("selection_on_validation", func(t *testing.T) {
		best := 0
		for i, row := range r.Baseline.Sweep {
			if row.Val.Mean < r.Baseline.Sweep[best].Val.Mean {
				best = i
			}
		}
		require.Equal(t, r.Baseline.Sweep[best].Cfg, r.Baseline.BestCfg)
		require.Equal(t, r.Baseline.Sweep[best].PerSeed, r.Baseline.Full.PerSeed)
	})
	t.Run("seed_schema", func(t *testing.T) {
		raw, err := os.ReadFile(seedReport)
		require.NoError(t, err)
		missing := missingKeys(t, raw, data)
		require.Empty(t, missing, "report lacks keys of the seed report")
	})
	if *results != "" {
		// Reused trials must be the bits this build trains: retrain the
		// baseline's chosen cfg on the first seed.
		t.Run("reused_trial_retrains", func(t *testing.T) {
			d, err := p.Data()
			require.NoError(t, err)
			got, err := trial.RunTrial(context.Background(), p, d.Dataset, r.Baseline.BestCfg, p.Seeds[0])
			require.NoError(t, err)
			require.Equal(t, r.Baseline.Full.PerSeed[0], got.Test, "test metric of the baseline's chosen cfg, seed %d", p.Seeds[0])
		})
	}
	t.Run("golden", func(t *testing.T) {
		golden.Match(t, name, data)
	})
}

// missingKeys lists the JSON paths of ref (arrays collapsed to []) absent
// from got.
func missingKeys(t *testing.T, ref, got []byte) []string {
	t.Helper()
	paths := func(raw []byte) map[string]bool {
		var v any
		require.NoError(t, json.Unmarshal(raw, &v))
		set := map[string]bool{}
		var walk func(p string, v any)
		walk = func(p string, v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					set[p+"."+k] = true
					walk(p+"."+k, e)
				}
			case []any:
				for _, e := range x {
					walk(p+"[]", e)
				}
			}
		}
		walk("", v)
		return set
	}
	have := paths(got)
	var missing []string
	for k := range paths(ref) {
		if !have[k] {
			missing = append(missing, strings.TrimPrefix(k, "."))
		}
	}
	sort.Strings(missing)
	return missing
}

// BenchmarkProtocolCI times the whole ci profile of the seeded protocol
// (48 trials, their evaluations and the report) at GOMAXPROCS workers.
func BenchmarkProtocolCI(b *testing.B) {
	p := protocol.CIProfile()
	steps := 0
	for _, c := range append(append([]protocol.Cfg(nil), p.Baseline...), p.Idea...) {
		steps += c.Epochs * ((p.Sequence.TrainWindows + p.Arch.Batch - 1) / p.Arch.Batch) * len(p.Seeds)
	}
	for b.Loop() {
		if _, err := harness.Run(context.Background(), p, harness.Options{}); err != nil {
			b.Fatal(err)
		}
	}
	sec := b.Elapsed().Seconds() / float64(b.N)
	b.ReportMetric(sec, "s/protocol")
	b.ReportMetric(float64(steps)/sec, "steps/s")
}
