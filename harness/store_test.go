package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

	"github.com/stretchr/testify/require"
)

func marshal(t *testing.T, o *Outcome) string {
	t.Helper()
	b, err := o.Report.Marshal()
	require.NoError(t, err)
	return string(b)
}

// TestResume: a run stopped after some trials and rerun on the same store
// gives the same report, bit for bit, training only the missing trials; a
// corrupt record is reported and recomputed.
func TestResume(t *testing.T) {
	p := testkit.TinyProtocol()
	ref, err := Run(context.Background(), p, Options{Workers: 2})
	require.NoError(t, err)
	want := marshal(t, ref)
	n := len(p.Trials())

	s, err := trial.OpenStore(t.TempDir())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	o, err := Run(ctx, p, Options{Workers: 1, Store: s, Progress: func(done, _, _ int) {
		if done == 5 {
			cancel()
		}
	}})
	require.ErrorIs(t, err, trial.ErrInterrupted)
	require.Equal(t, 5, o.Computed)

	var calls [][3]int
	o, err = Run(context.Background(), p, Options{Workers: 2, Store: s, Progress: func(done, reused, total int) {
		calls = append(calls, [3]int{done, reused, total})
	}})
	require.NoError(t, err)
	require.Equal(t, 5, o.Reused)
	require.Equal(t, [3]int{5, 5, n}, calls[0], "one call before training, with the reused trials")
	require.Len(t, calls, 1+n-5, "then one per trained trial")
	require.Equal(t, [3]int{n, 5, n}, calls[len(calls)-1])
	require.Equal(t, n-5, o.Computed)
	require.Equal(t, want, marshal(t, o))

	// Corrupt one record: it is named, recomputed and rewritten.
	k := p.Key(p.Trials()[3], "")
	path := s.Path(k.ID())
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, raw[:len(raw)-9], 0o644))
	var warned []string
	o, err = Run(context.Background(), p, Options{Store: s, Warn: func(m string) { warned = append(warned, m) }})
	require.NoError(t, err)
	require.Equal(t, n-1, o.Reused)
	require.Equal(t, 1, o.Computed)
	require.Len(t, warned, 1)
	require.Contains(t, warned[0], k.ID())
	require.Contains(t, warned[0], "recomputing")
	require.Equal(t, want, marshal(t, o))
	fixed, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, raw, fixed, "the recomputed record has the same bytes")
}

// TestShardMerge: shards into separate directories, or into one shared
// directory, merge into the single-process report; merge refuses
// missing, conflicting, foreign-protocol and foreign-version results.
func TestShardMerge(t *testing.T) {
	p := testkit.TinyProtocol()
	ref, err := Run(context.Background(), p, Options{})
	require.NoError(t, err)
	want := marshal(t, ref)

	const n = 3
	shared := t.TempDir()
	var dirs []string
	for i := range n {
		dir := t.TempDir()
		dirs = append(dirs, dir)
		for _, d := range []string{dir, shared} {
			s, err := trial.OpenStore(d)
			require.NoError(t, err)
			o, err := Run(context.Background(), p, Options{Store: s, Shard: i, Shards: n})
			require.NoError(t, err)
			require.Nil(t, o.Report, "a shard writes no report")
			require.Equal(t, len(p.Trials())/n, o.Reused+o.Computed)
		}
	}
	for name, ds := range map[string][]string{"separate": dirs, "shared": {shared}} {
		t.Run(name, func(t *testing.T) {
			o, err := Merge(context.Background(), ds)
			require.NoError(t, err)
			require.Equal(t, want, marshal(t, o))
		})
	}

	t.Run("missing", func(t *testing.T) {
		_, err := Merge(context.Background(), dirs[:2])
		require.ErrorContains(t, err, "trials missing")
		require.ErrorContains(t, err, "--shard 2/3")
	})
	t.Run("conflict", func(t *testing.T) {
		c := copyDir(t, dirs[0])
		tr := p.Trials()[0]
		r := ref.Results[0]
		r.Test += 1e-9
		s := &trial.Store{Dir: c}
		require.NoError(t, s.Save(p.Key(tr, ""), r))
		_, err := Merge(context.Background(), append([]string{c}, dirs...))
		require.ErrorContains(t, err, "different results")
	})
	t.Run("other_protocol", func(t *testing.T) {
		q := p
		q.Alpha = 0.1
		s, err := trial.OpenStore(t.TempDir())
		require.NoError(t, err)
		_, err = Run(context.Background(), q, Options{Store: s, Shard: 0, Shards: n})
		require.NoError(t, err)
		_, err = Merge(context.Background(), []string{dirs[1], dirs[2], s.Dir})
		require.ErrorContains(t, err, "merge only shards of one protocol")
	})
	t.Run("other_version", func(t *testing.T) {
		c := copyDir(t, dirs[0])
		path := filepath.Join(c, trial.ManifestName(0, n))
		raw, err := os.ReadFile(path)
		require.NoError(t, err)
		edited := strings.Replace(string(raw), protocol.TrainingVersion, "train-old", 1)
		require.NoError(t, os.WriteFile(path, []byte(edited), 0o644))
		_, err = Merge(context.Background(), []string{c, dirs[1], dirs[2]})
		require.ErrorContains(t, err, "training version train-old")
	})
	t.Run("corrupt", func(t *testing.T) {
		c := copyDir(t, dirs[0])
		k := p.Key(p.Trials()[0], "")
		require.NoError(t, os.WriteFile((&trial.Store{Dir: c}).Path(k.ID()), []byte(`{"id":`), 0o644))
		_, err := Merge(context.Background(), []string{c, dirs[1], dirs[2]})
		require.ErrorIs(t, err, trial.ErrCorrupt)
	})
	t.Run("not_results", func(t *testing.T) {
		_, err := Merge(context.Background(), []string{t.TempDir()})
		require.ErrorContains(t, err, "no protocol.json or shard-*.json manifest")
	})
	t.Run("bad_shard", func(t *testing.T) {
		_, err := Run(context.Background(), p, Options{Shard: 3, Shards: 3, Store: &trial.Store{Dir: t.TempDir()}})
		require.ErrorContains(t, err, "shard 3 of 3")
		_, err = Run(context.Background(), p, Options{Shard: 0, Shards: 2})
		require.ErrorContains(t, err, "needs a results directory")
	})
}

// TestDivergence: a cfg whose loss blows up is recorded as diverged, never
// selected over a finite one, counted as the worst finite metric in the
// comparison, and the report is finite, valid JSON that verifies.
func TestDivergence(t *testing.T) {
	p := testkit.TinyProtocol()
	p.Idea[1].LR = 1e10 // Adam steps of 1e10: the loss overflows within a few steps
	s, err := trial.OpenStore(t.TempDir())
	require.NoError(t, err)
	o, err := Run(context.Background(), p, Options{Store: s})
	require.NoError(t, err)
	r := o.Report
	require.NotNil(t, r.Diverged)
	require.Len(t, r.Diverged.Trials, len(p.Seeds))
	for i, d := range r.Diverged.Trials {
		require.Equal(t, report.DivergedTrial{Arm: "idea", Cfg: 1, Seed: p.Seeds[i], Step: d.Step}, d)
		require.Positive(t, d.Step)
	}
	worstVal, worstTest := math.Inf(-1), math.Inf(-1)
	for _, res := range o.Results {
		if !res.Diverged {
			worstVal, worstTest = max(worstVal, res.Val), max(worstTest, res.Test)
		}
	}
	require.Equal(t, worstVal, r.Diverged.ValSubstitute)
	require.Equal(t, worstTest, r.Diverged.TestSubstitute)
	row := r.MechanismSignature.IdeaSweep[1]
	for _, v := range row.Result.PerSeed {
		require.Equal(t, worstTest, v)
	}
	require.Equal(t, p.Idea[0], r.MechanismSignature.ObservedBestCfg, "the diverged cfg is never selected")
	require.Contains(t, strings.Join(r.Comparison.Warnings, "\n"), "3 trial(s) diverged")
	data, err := r.Marshal()
	require.NoError(t, err)
	require.True(t, json.Valid(data))
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches())
	var tampered report.Report
	require.NoError(t, json.Unmarshal(data, &tampered))
	tampered.MechanismSignature.IdeaSweep[1].Result.PerSeed[0] = 0.1
	var fields []string
	for _, f := range derive.Verify(&tampered, derive.VerifyOptions{}).Mismatches() {
		fields = append(fields, f.Field)
	}
	// A diverged seed's metric that is not the substitute is a mismatch.
	testkit.RequireNamed(t, fields, "mechanism_signature.idea_sweep[1].result.per_seed[0]")

	// Stored diverged trials are reused as diverged.
	o2, err := Run(context.Background(), p, Options{Store: s})
	require.NoError(t, err)
	require.Equal(t, len(p.Trials()), o2.Reused)
	require.Equal(t, marshal(t, o), marshal(t, o2))

	// A baseline diverging on every seed of every cfg is an error naming
	// the arm, its cfgs and the fix (it once failed in the informativeness
	// gaps with "no paired seeds; run at least 2 seeds per arm").
	for i := range p.Baseline {
		p.Baseline[i].LR = 1e10
	}
	_, err = Run(context.Background(), p, Options{})
	require.ErrorContains(t, err, "the baseline arm diverged (loss NaN or Inf) on every one of its 3 seeds in every cfg: cfg 0 (lr 1e+10), cfg 1 (lr 1e+10); there is no baseline to compare the idea with: lower the baseline's learning rates (try 1e+09")
	require.NotContains(t, err.Error(), "no paired seeds")

	// Every trial diverging is an error, not a report.
	p.Idea[0].LR = 1e10
	_, err = Run(context.Background(), p, Options{})
	require.ErrorContains(t, err, "every trial diverged")
}

func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

func TestManifestTampered(t *testing.T) {
	p := testkit.TinyProtocol()
	s, err := trial.OpenStore(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, s.WriteManifest(p, "", 0, 1))
	path := filepath.Join(s.Dir, "protocol.json")
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(raw), `"alpha": 0.05`, `"alpha": 0.01`, 1)), 0o644))
	_, err = Merge(context.Background(), []string{s.Dir})
	require.ErrorContains(t, err, "does not match its protocol")
}

// TestWaitNotes: a run that waits on a trial another live process holds
// the lease of says so at once, names the trial and the lease's holder,
// and says again, with the time waited, while the wait lasts; it then
// trains the trial once the lease is gone.
func TestWaitNotes(t *testing.T) {
	defer func(d time.Duration) { WaitNote = d }(WaitNote)
	WaitNote = 20 * time.Millisecond
	p := testkit.TinyProtocol()
	s, err := trial.OpenStore(t.TempDir())
	require.NoError(t, err)
	first := p.Trials()[0]
	lease := filepath.Join(s.Dir, "trials", p.Key(first, "").ID()+".lease")
	host, _ := os.Hostname()
	// This process is alive, so its lease is not stale.
	require.NoError(t, os.WriteFile(lease, []byte(fmt.Sprintf(`{"pid": %d, "host": %q, "since": "2026-12-05T00:00:00Z"}`, os.Getpid(), host)), 0o644))
	var mu sync.Mutex
	var notes []string
	done := make(chan error)
	go func() {
		_, err := Run(context.Background(), p, Options{Store: s, Note: func(msg string) {
			mu.Lock()
			defer mu.Unlock()
			notes = append(notes, msg)
			if len(notes) == 3 {
				os.Remove(lease) // the other process is done with it
			}
		}})
		done <- err
	}()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the run still waits 30 s after the lease was removed")
	}
	mu.Lock()
	defer mu.Unlock()
	require.GreaterOrEqual(t, len(notes), 3)
	want := fmt.Sprintf("waiting for 1 trial that another process sharing %s trains; the first, baseline cfg 0 seed 0 (pid %d on host %s, renewed ", s.Dir, os.Getpid(), host)
	for i, n := range notes {
		require.True(t, strings.HasPrefix(n, want), "note %d: %s", i, n)
		require.Regexp(t, `: \d+s so far$`, n)
	}
	require.True(t, strings.HasSuffix(notes[0], ": 0s so far"), notes[0])
	got, _ := filepath.Glob(filepath.Join(s.Dir, "trials", "*.json"))
	require.Len(t, got, len(p.Trials()), "the trial waited on is trained once its lease is gone")
}
