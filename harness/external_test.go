package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/jsonstrict/stricttest"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/trial"
	"github.com/stretchr/testify/require"
)

// externalProtocol is the tiny protocol with both arms trained by the
// fake trainer in mode (the idea arm in ideaMode).
func externalProtocol(t *testing.T, mode, ideaMode string) protocol.Protocol {
	p := testkit.TinyProtocol()
	p.Trainers = map[string]*protocol.Trainer{"baseline": fakeCommand(t, mode), "idea": fakeCommand(t, ideaMode)}
	return p
}

// TestExternalRun: an external trainer's trials run through the whole
// protocol; every metric is computed here from its forecasts (checked
// against an independent recomputation), the rerun check reproduces a
// deterministic trainer bit for bit, the report verifies, and a resumed
// run trains nothing and writes the same bytes.
func TestExternalRun(t *testing.T) {
	p := externalProtocol(t, "ok", "ok")
	st, err := trial.OpenStore(t.TempDir())
	require.NoError(t, err)
	o, err := Run(context.Background(), p, Options{Store: st, Workers: 2})
	require.NoError(t, err)
	r := o.Report
	require.Equal(t, []string{"baseline", "idea"}, r.External.Arms)
	rr := r.External.Rerun
	require.NotNil(t, rr)
	require.True(t, rr.Identical && rr.Reproduced, "%+v", rr)
	require.Zero(t, rr.MaxAbsDiff)
	require.Contains(t, r.MechanismSignature.MechanismSignature.NotMeasured, "external trainer")
	require.NotEmpty(t, r.Setup.Protocol.Trainers["idea"].Command)

	// The test metric of baseline cfg 1 on seed 2, recomputed from the
	// fake's forecasting rule and the track's targets.
	d, err := p.Data()
	require.NoError(t, err)
	s := d.Test
	c, seed := p.Baseline[1], p.Seeds[2]
	damp, level := 1-20*c.LR, 0.01*float64(seed%5)
	var sse float64
	for n := range s.N {
		_, y := s.Window(n)
		for k := range s.H {
			e := damp*y[s.T-1] + level - y[s.T+k]
			sse += e * e
		}
	}
	require.InDelta(t, sse/float64(s.N*s.H), r.Baseline.Sweep[1].PerSeed[2], 1e-12)

	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true, Results: []string{st.Dir}}).Mismatches())
	bad := *r
	ext := *r.External
	rep := *ext.Rerun
	rep.MaxAbsDiff = 0.5
	ext.Rerun, bad.External = &rep, &ext
	testkit.RequireNamed(t, fieldsOf(derive.Verify(&bad, derive.VerifyOptions{})), "external.rerun")

	again, err := Run(context.Background(), p, Options{Store: st, Workers: 1})
	require.NoError(t, err)
	require.Zero(t, again.Computed)
	require.Equal(t, marshal(t, o), marshal(t, again))
}

func fieldsOf(f derive.Findings) []string {
	var out []string
	for _, m := range f.Mismatches() {
		out = append(out, m.Field)
	}
	return out
}

// TestExternalFailures: each way a trainer can fail is an error naming
// the trial and the cause, with the tail of its output; the other arm's
// trials are stored and a rerun does not train them again.
func TestExternalFailures(t *testing.T) {
	for _, tc := range []struct {
		mode string
		want []string
	}{
		{"exit1", []string{"exited with exit status 1", "Traceback: ValueError: the fake trainer fails on purpose"}},
		{"hang", []string{"timed out after 1s"}},
		{"rows", []string{"out/test.csv: 31 windows, want 32"}},
		{"nan", []string{"out/val.csv line 5: forecast 1 of window 3 is \"NaN\", not a finite number"}},
		{"missing", []string{"out/val.csv: missing"}},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			p := externalProtocol(t, "ok", tc.mode)
			if tc.mode == "hang" {
				p.Trainers["idea"].TimeoutS = 1
			}
			st, err := trial.OpenStore(t.TempDir())
			require.NoError(t, err)
			_, err = Run(context.Background(), p, Options{Store: st, Workers: 2})
			require.ErrorIs(t, err, trial.ErrTrainer)
			msg := err.Error()
			require.Contains(t, msg, "6 of 12 trials failed in their external trainer")
			require.Contains(t, msg, "trial idea cfg 1 seed 2: ")
			for _, w := range tc.want {
				require.Contains(t, msg, w)
			}
			require.Contains(t, msg, "fake trainer: idea cfg lr", "the output's tail")

			p.Trainers["idea"] = fakeCommand(t, "ok")
			o, err := Run(context.Background(), p, Options{Store: st, Workers: 2})
			require.NoError(t, err)
			require.Equal(t, 6, o.Reused, "the baseline's trials were kept")
		})
	}
}

// TestExternalResume: a run killed mid-trial keeps every finished trial;
// the rerun trains only the others and writes the report of a run in one
// go.
func TestExternalResume(t *testing.T) {
	p := externalProtocol(t, "slow", "slow")
	st, err := trial.OpenStore(t.TempDir())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	finished := 0
	_, err = Run(ctx, p, Options{Store: st, Workers: 1, Progress: func(done, reused, total int) {
		if finished = done; done == 4 {
			cancel()
		}
	}})
	require.ErrorIs(t, err, trial.ErrInterrupted)
	require.Equal(t, 4, finished)

	o, err := Run(context.Background(), p, Options{Store: st, Workers: 2})
	require.NoError(t, err)
	require.Equal(t, 4, o.Reused)
	require.Equal(t, 8, o.Computed)
	fresh, err := Run(context.Background(), p, Options{Workers: 2})
	require.NoError(t, err)
	require.Equal(t, marshal(t, fresh), marshal(t, o))
}

// TestExternalNotReproduced: a trainer whose forecasts move between runs
// of one trial is named in a warning; the report still verifies.
func TestExternalNotReproduced(t *testing.T) {
	p := externalProtocol(t, "nondet", "nondet")
	o, err := Run(context.Background(), p, Options{Workers: 2})
	require.NoError(t, err)
	rr := o.Report.External.Rerun
	require.False(t, rr.Identical)
	require.False(t, rr.Reproduced)
	require.Greater(t, rr.RelDiff, rr.Tolerance)
	require.Contains(t, strings.Join(o.Report.Comparison.Warnings, "\n"), "not reproduced: external trial")
	require.Empty(t, derive.Verify(o.Report, derive.VerifyOptions{}).Mismatches())
}

// TestExternalDiverged: a trainer that says its training diverged gives
// diverged trials, as the built-in model's; an arm may keep the built-in
// model beside an external one.
func TestExternalDiverged(t *testing.T) {
	p := testkit.TinyProtocol()
	p.Trainers = map[string]*protocol.Trainer{"idea": fakeCommand(t, "diverge")}
	o, err := Run(context.Background(), p, Options{Workers: 2})
	require.NoError(t, err)
	r := o.Report
	require.NotNil(t, r.Diverged)
	require.Len(t, r.Diverged.Trials, 3, "idea cfg 1 (lr 0.01) on every seed")
	require.Equal(t, []string{"idea"}, r.External.Arms)
	require.Equal(t, "idea", r.External.Rerun.Arm)
	require.Zero(t, r.External.Rerun.Cfg, "cfg 1 diverged: the rerun draws among the others")
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{}).Mismatches())
}

// TestExternalKey: the trial key holds the trainer and its files' SHA-256:
// editing the script trains that arm again and keeps the other's trials.
func TestExternalKey(t *testing.T) {
	script := filepath.Join(t.TempDir(), "train.py")
	require.NoError(t, os.WriteFile(script, []byte("# v1\n"), 0o644))
	p := externalProtocol(t, "ok", "ok")
	p.Trainers["idea"].Files = []string{script}
	st, err := trial.OpenStore(t.TempDir())
	require.NoError(t, err)
	_, err = Run(context.Background(), p, Options{Store: st, Workers: 2})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(script, []byte("# v2\n"), 0o644))
	o, err := Run(context.Background(), p, Options{Store: st, Workers: 2})
	require.NoError(t, err)
	require.Equal(t, 6, o.Reused)
	require.Equal(t, 6, o.Computed)
	require.Len(t, o.Report.Setup.Protocol.Trainers["idea"].SHA256[script], 64)

	require.NoError(t, os.Remove(script))
	_, err = Run(context.Background(), p, Options{Store: st})
	require.ErrorContains(t, err, "trainers.idea.files")
	require.True(t, errors.Is(err, os.ErrNotExist))
}

// TestExternalShards: an external protocol run in two shards into two
// results directories, then merged, gives the report of a run in one go
// (the merge makes the rerun check where the first directory is).
func TestExternalShards(t *testing.T) {
	p := externalProtocol(t, "ok", "ok")
	var dirs []string
	for i := range 2 {
		st, err := trial.OpenStore(t.TempDir())
		require.NoError(t, err)
		o, err := Run(context.Background(), p, Options{Store: st, Shard: i, Shards: 2, Workers: 2})
		require.NoError(t, err)
		require.Nil(t, o.Report)
		require.Equal(t, 6, o.Computed)
		dirs = append(dirs, st.Dir)
	}
	merged, err := Merge(context.Background(), dirs)
	require.NoError(t, err)
	whole, err := Run(context.Background(), p, Options{Workers: 2})
	require.NoError(t, err)
	require.Equal(t, marshal(t, whole), marshal(t, merged))
}

// TestExternalSequential: a sequential design over external trainers
// carries its last look's rerun check, and verifies.
func TestExternalSequential(t *testing.T) {
	p := externalProtocol(t, "ok", "ok")
	p.Seeds = p.Seeds[:2]
	p.Sequential = &protocol.Sequential{MaxSeeds: 4}
	o, err := Run(context.Background(), p, Options{Workers: 2})
	require.NoError(t, err)
	require.NotNil(t, o.Report.External.Rerun)
	require.True(t, o.Report.External.Rerun.Reproduced)
	require.NotContains(t, strings.Join(o.Report.Comparison.Warnings, "\n"), "rerun check not made")
	require.Empty(t, derive.Verify(o.Report, derive.VerifyOptions{}).Mismatches())
}

// TestExternalReviewCases: the test windows a trainer gets hold no
// targets; forecasts whose error overflows make a diverged trial; an
// external baseline has no skip-path gap; raising a trainer's time limit
// keeps its trials; idea arms sharing a trainer are trained apart (the
// trainer is told the arm); a trainer's children do not outlive it.
func TestExternalReviewCases(t *testing.T) {
	t.Run("test_inputs_only", func(t *testing.T) {
		st, err := trial.OpenStore(t.TempDir())
		require.NoError(t, err)
		_, err = Run(context.Background(), externalProtocol(t, "ok", "ok"), Options{Store: st})
		require.NoError(t, err)
		files, _ := filepath.Glob(filepath.Join(st.Dir, "external", "data", "*", "*.csv"))
		require.Len(t, files, 3)
		for _, f := range files {
			raw, err := os.ReadFile(f)
			require.NoError(t, err)
			head := strings.SplitN(string(raw), "\n", 3)[1]
			require.Equal(t, filepath.Base(f) != "test.csv", strings.Contains(head, ",y."), f)
		}
	})
	t.Run("huge", func(t *testing.T) {
		o, err := Run(context.Background(), externalProtocol(t, "ok", "huge"), Options{Workers: 2})
		require.NoError(t, err)
		require.Len(t, o.Report.Diverged.Trials, 6)
	})
	t.Run("external_baseline_skip", func(t *testing.T) {
		p := externalProtocol(t, "ok", "ok")
		p.Arch.Skip = true
		o, err := Run(context.Background(), p, Options{Workers: 2})
		require.NoError(t, err)
		require.Nil(t, o.Report.Informativeness.LinearPart)
		require.Empty(t, derive.Verify(o.Report, derive.VerifyOptions{}).Mismatches())
	})
	t.Run("timeout_keeps_trials", func(t *testing.T) {
		p := externalProtocol(t, "ok", "ok")
		st, err := trial.OpenStore(t.TempDir())
		require.NoError(t, err)
		_, err = Run(context.Background(), p, Options{Store: st})
		require.NoError(t, err)
		p.Trainers["idea"].TimeoutS, p.Trainers["idea"].Tolerance = 99, 0.01
		o, err := Run(context.Background(), p, Options{Store: st})
		require.NoError(t, err)
		require.Equal(t, 12, o.Reused)
	})
	t.Run("shared_trainer", func(t *testing.T) {
		p := externalProtocol(t, "ok", "arm")
		p.Ideas = []protocol.IdeaArm{{Name: "other", Grid: p.Idea}}
		p.Trainers["other"] = p.Trainers["idea"]
		o, err := Run(context.Background(), p, Options{Workers: 2})
		require.NoError(t, err)
		require.Equal(t, 18, o.Computed, "the idea arms' trials are trained apart")
		require.NotEqual(t, o.Report.Idea.PerSeed, o.Report.Ideas[0].Result.PerSeed)
	})
	t.Run("children_reaped", func(t *testing.T) {
		if _, err := os.Stat("/proc/self/stat"); err != nil {
			t.Skip("no /proc to look at processes")
		}
		st, err := trial.OpenStore(t.TempDir())
		require.NoError(t, err)
		_, err = Run(context.Background(), externalProtocol(t, "ok", "fork"), Options{Store: st})
		require.NoError(t, err)
		pids, _ := filepath.Glob(filepath.Join(st.Dir, "external", "trials", "*", "child.pid"))
		require.NotEmpty(t, pids)
		for _, f := range pids {
			raw, err := os.ReadFile(f)
			require.NoError(t, err)
			pid, err := strconv.Atoi(string(raw))
			require.NoError(t, err)
			// Killed, it may linger as a zombie until something reaps it.
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			running := err == nil && !strings.Contains(string(stat), ") Z ")
			require.False(t, running, "child %d of a finished trial is still running: %s", pid, stat)
		}
	})
}

// TestExternalVerifyRerun: verify names an external block whose rerun
// was moved to another trial, dropped, or called identical with a
// difference.
func TestExternalVerifyRerun(t *testing.T) {
	o, err := Run(context.Background(), externalProtocol(t, "ok", "ok"), Options{Workers: 2})
	require.NoError(t, err)
	for _, tc := range []struct {
		name  string
		edit  func(m *protocol.Reproduction) *protocol.Reproduction
		field string
	}{
		{"moved", func(m *protocol.Reproduction) *protocol.Reproduction { m.Seed = (m.Seed + 1) % 3; return m }, "external.rerun.seed"},
		{"dropped", func(*protocol.Reproduction) *protocol.Reproduction { return nil }, "comparison.warnings"}, // "rerun check missing"
		{"identical", func(m *protocol.Reproduction) *protocol.Reproduction { m.MaxAbsDiff, m.RelDiff = 0.5, 0.5; return m }, "external.rerun"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := o.Report.Marshal()
			require.NoError(t, err)
			r, err := report.Parse(raw, "copy")
			require.NoError(t, err)
			m := *r.External.Rerun
			r.External.Rerun = tc.edit(&m)
			r.Seal()
			testkit.RequireNamed(t, fieldsOf(derive.Verify(r, derive.VerifyOptions{})), tc.field)
		})
	}
}

// TestExternalMergeEdited: merging shards whose trainer file changed
// since they ran is refused, naming the file.
func TestExternalMergeEdited(t *testing.T) {
	script := filepath.Join(t.TempDir(), "train.py")
	require.NoError(t, os.WriteFile(script, []byte("# v1\n"), 0o644))
	p := externalProtocol(t, "ok", "ok")
	p.Trainers["idea"].Files = []string{script}
	st, err := trial.OpenStore(t.TempDir())
	require.NoError(t, err)
	for i := range 2 {
		_, err := Run(context.Background(), p, Options{Store: st, Shard: i, Shards: 2})
		require.NoError(t, err)
	}
	require.NoError(t, os.WriteFile(script, []byte("# v2\n"), 0o644))
	_, err = Merge(context.Background(), []string{st.Dir})
	require.ErrorContains(t, err, "trainers.idea.files: "+script+" changed since the shards ran")
}

// TestReadRerunStrict: a kept rerun check with trailing data or an
// unknown key is refused where the fault is (and the check runs again).
func TestReadRerunStrict(t *testing.T) {
	raw, err := json.Marshal(rerunRecord{ID: "abc", Reproduction: &protocol.Reproduction{Arm: "idea", Identical: true}})
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "rerun.json")
	stricttest.Refuses(t, raw, func(raw []byte) error {
		require.NoError(t, os.WriteFile(path, raw, 0o644))
		_, err := readRerun(path, "abc")
		return err
	})
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	_, err = readRerun(path, "other")
	require.ErrorContains(t, err, "another trial")
}

// TestExternalTokens: an external trainer on a token track gets the
// sequences (the test labels withheld, their positions flagged), writes
// scores at the labelled positions, and the harness scores them itself:
// the fake's trained model (uniform over the answers) scores the chance
// reference's cross-entropy (to rounding), its untrained one (equal
// logits) ln(vocab); its accuracy is recomputed from the labels; the
// rerun check reproduces a trial and the report verifies. A trainer
// whose rows miss or misorder a labelled position fails, naming it.
func TestExternalTokens(t *testing.T) {
	p := protocol.CIProfileFor("mqar")
	p.Trainers = map[string]*protocol.Trainer{"baseline": fakeCommand(t, "ok"), "idea": fakeCommand(t, "ok")}
	o, err := Run(context.Background(), p, Options{Workers: 2})
	require.NoError(t, err)
	r := o.Report
	require.True(t, r.External.Rerun.Identical, "%+v", r.External.Rerun)
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches())

	d, err := p.Data()
	require.NoError(t, err)
	tk := d.Tokens
	chance := math.Log(float64(len(tk.Answers)))
	var first, n float64
	for _, l := range tk.Test.Labels {
		if l >= 0 {
			n++
			if l == tk.Answers[0] {
				first++ // the arg-max of equal scores is the lowest id
			}
		}
	}
	for _, row := range r.Baseline.Sweep {
		for k, v := range row.PerSeed {
			require.InDelta(t, chance, v, 1e-12)
			require.InDelta(t, first/n, row.Accuracy.PerSeed[k], 1e-12)
		}
	}
	require.Equal(t, "chance", r.ReferenceForecasters.Tokens[0].Name)
	require.InDelta(t, r.ReferenceForecasters.Tokens[0].CE, r.Baseline.Sweep[0].PerSeed[0], 1e-12)
	for _, st := range r.Informativeness.StartTest {
		require.InDelta(t, math.Log(float64(tk.Vocab)), st, 1e-12)
	}

	for _, tc := range []struct{ mode, want string }{
		{"rows", "out/test.csv: " + strconv.Itoa(tk.Test.Labelled()-1) + " rows, want " + strconv.Itoa(tk.Test.Labelled())},
		{"order", "out/val.csv line 2: sequence"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			p.Trainers["idea"] = fakeCommand(t, tc.mode)
			_, err := Run(context.Background(), p, Options{Workers: 2})
			require.ErrorIs(t, err, trial.ErrTrainer)
			require.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestExternalRealPanel: on a real panel an external trainer's test
// forecasts are scored in the archive's MASE too (the fake's rule
// recomputed here through MeanMASE), and the report with its mase block
// verifies.
func TestExternalRealPanel(t *testing.T) {
	p := externalProtocol(t, "ok", "ok")
	p.Track = "tsf"
	p.TSF = &track.TSFConfig{Path: filepath.Join("..", "track", "testdata", "tiny-panel.tsf"), T: 8, H: 4}
	require.NoError(t, p.Validate())
	st, err := trial.OpenStore(t.TempDir())
	require.NoError(t, err)
	o, err := Run(context.Background(), p, Options{Store: st, Workers: 2})
	require.NoError(t, err)
	r := o.Report
	require.NotNil(t, r.MASE)
	require.NotNil(t, r.ReferenceForecasters.Theta)
	d, err := p.Data()
	require.NoError(t, err)
	require.NotNil(t, d.Panel)
	s := d.Test
	c, seed := p.Baseline[1], p.Seeds[2]
	damp, level := 1-20*c.LR, 0.01*float64(seed%5)
	pred := make([]float64, s.N*s.H)
	for n := range s.N {
		_, y := s.Window(n)
		for k := range s.H {
			pred[n*s.H+k] = damp*y[s.T-1] + level
		}
	}
	require.InDelta(t, d.Panel.MeanMASE(pred), r.Baseline.Sweep[1].MASE.PerSeed[2], 1e-12)
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Results: []string{st.Dir}}).Mismatches())
}
