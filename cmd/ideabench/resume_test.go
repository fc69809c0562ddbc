package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMain lets the tests run this binary's main as a child process (to
// kill it): with IDEABENCH_MAIN=1 the test binary is ideabench.
func TestMain(m *testing.M) {
	if os.Getenv("IDEABENCH_MAIN") == "1" {
		os.Args = append([]string{"ideabench"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child starts ideabench with args as a separate process.
func child(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "IDEABENCH_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())
	return cmd, &stderr
}

// waitTrials waits until dir holds at least n trial records.
func waitTrials(t *testing.T, cmd *exec.Cmd, dir string, n int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		got, _ := filepath.Glob(filepath.Join(dir, "trials", "*.json"))
		if len(got) >= n {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	t.Fatalf("no %d trial records in %s after 60 s", n, dir)
}

// withoutRun is the report minus its volatile "run" block.
func withoutRun(t *testing.T, path string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(raw, &m))
	require.Contains(t, m, "run")
	delete(m, "run")
	b, err := json.Marshal(m)
	require.NoError(t, err)
	return string(b)
}

var ref struct {
	once   sync.Once
	report string
	err    error
}

// reference runs the ci profile uninterrupted in-process, once.
func reference(t *testing.T) string {
	t.Helper()
	ref.once.Do(func() {
		dir, err := os.MkdirTemp("", "ideabench-ref-")
		if err != nil {
			ref.err = err
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "ref.json")
		var stdout, stderr bytes.Buffer
		if ref.err = run(context.Background(), []string{"run", "--profile", "ci", "--out", out, "--quiet"}, &stdout, &stderr); ref.err == nil {
			ref.report = withoutRun(t, out)
		}
	})
	require.NoError(t, ref.err)
	return ref.report
}

// ciTrials are the trials of the ci profile's run: 3 cfgs an arm on 8
// seeds, and the cfg a step below the grid that the grid extension adds
// to each arm (the choice takes the smallest rate).
const ciTrials = (3 + 1) * 2 * 8

// TestKillResume: SIGKILL in the middle of a run loses no finished trial;
// rerunning the same command trains only the rest and writes the report
// of an uninterrupted run (everything but the volatile run block, byte for
// byte).
func TestKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the ci protocol twice")
	}
	want := reference(t)
	dir := t.TempDir()
	out, results := filepath.Join(dir, "r.json"), filepath.Join(dir, "trials")
	args := []string{"run", "--profile", "ci", "--out", out, "--results", results, "--workers", "1", "--quiet"}
	cmd, _ := child(t, args...)
	waitTrials(t, cmd, results, 10)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	require.Error(t, cmd.Wait())
	_, err := os.Stat(out)
	require.True(t, errors.Is(err, os.ErrNotExist), "no report from a killed run")
	done, _ := filepath.Glob(filepath.Join(results, "trials", "*.json"))
	require.GreaterOrEqual(t, len(done), 10)
	require.Less(t, len(done), ciTrials, "killed before the end")

	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), args, &stdout, &stderr), stderr.String())
	require.Contains(t, stdout.String(), "trials reused")
	require.Equal(t, want, withoutRun(t, out))
	reused, trained := trialCounts(t, out)
	require.Equal(t, len(done), reused)
	require.Equal(t, ciTrials-len(done), trained)
}

// trialCounts reads trials_reused and trials_run from the run block of
// the report at path.
func trialCounts(t *testing.T, path string) (reused, trained int) {
	t.Helper()
	var r struct {
		Run struct {
			Reused int `json:"trials_reused"`
			Run    int `json:"trials_run"`
		} `json:"run"`
	}
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &r))
	return r.Run.Reused, r.Run.Run
}

// TestInterrupt: SIGINT (and SIGTERM) stop a run cleanly: the running
// trials finish and are saved, the message says how to resume, the exit
// status is 130, and the rerun completes the same report.
func TestInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the ci protocol")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out, results := filepath.Join(dir, "r.json"), filepath.Join(dir, "trials")
			args := []string{"run", "--profile", "ci", "--out", out, "--results", results, "--workers", "2", "--quiet"}
			cmd, stderr := child(t, args...)
			waitTrials(t, cmd, results, 4)
			require.NoError(t, cmd.Process.Signal(sig))
			err := cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, stderr.String())
			require.Equal(t, 130, ee.ExitCode(), stderr.String())
			require.Contains(t, stderr.String(), "rerun the same command to resume")
			require.Contains(t, stderr.String(), "run interrupted")
			_, err = os.Stat(out)
			require.True(t, errors.Is(err, os.ErrNotExist), "no report from an interrupted run")
			// Every trial the message counts is on disk, none half-written.
			tmp, _ := filepath.Glob(filepath.Join(results, "trials", ".*"))
			require.Empty(t, tmp, "no temporary files left")
			var stdout bytes.Buffer
			stderr.Reset()
			require.NoError(t, run(context.Background(), args, &stdout, stderr), stderr.String())
		})
	}
}

// TestShardMergeCLI: n shard processes into one shared results directory
// (as Kubernetes Indexed Job pods, index from the environment) and merge
// reproduce the single-process report.
func TestShardMergeCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the ci protocol twice")
	}
	want := reference(t)
	results := t.TempDir()
	const n = 4
	var cmds []*exec.Cmd
	var errs []*bytes.Buffer
	for i := range n {
		cmd := exec.Command(os.Args[0], "run", "--profile", "ci", "--results", results, "--workers", "1", "--quiet")
		cmd.Env = append(os.Environ(), "IDEABENCH_MAIN=1", "JOB_COMPLETION_INDEX="+string(rune('0'+i)), "IDEABENCH_SHARDS=4")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		require.NoError(t, cmd.Start())
		cmds, errs = append(cmds, cmd), append(errs, &stderr)
	}
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), errs[i].String())
	}
	for i := range n {
		_, err := os.Stat(filepath.Join(results, "shard-"+string(rune('0'+i))+"-of-4.json"))
		require.NoError(t, err)
	}
	out := filepath.Join(t.TempDir(), "merged.json")
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"merge", "--out", out, results}, &stdout, &stderr), stderr.String())
	require.Equal(t, want, withoutRun(t, out))

	err := run(context.Background(), []string{"merge", "--out", out, t.TempDir()}, &stdout, &stderr)
	require.ErrorContains(t, err, "no protocol.json or shard-*.json manifest")
}

func TestParseShard(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		name    string
		flag    string
		env     func(string) string
		i, n    int
		wantErr string
	}{
		{"none", "", env(), 0, 1, ""},
		{"flag", "2/5", env(), 2, 5, ""},
		{"flag_over_env", "1/2", env(envIndex, "3", envShards, "4"), 1, 2, ""},
		{"env", "", env(envIndex, "3", envShards, "4"), 3, 4, ""},
		{"env_no_total", "", env(envIndex, "3"), 0, 0, "IDEABENCH_SHARDS is not"},
		{"env_no_index", "", env(envShards, "4"), 0, 0, "JOB_COMPLETION_INDEX is not"},
		{"index_too_big", "5/5", env(), 0, 0, "0 <= I < N"},
		{"negative", "-1/5", env(), 0, 0, "0 <= I < N"},
		{"zero_total", "0/0", env(), 0, 0, "N >= 1"},
		{"not_numbers", "a/b", env(), 0, 0, "want I/N"},
		{"no_slash", "3", env(), 0, 0, "want I/N"},
		{"env_garbage", "", env(envIndex, "x", envShards, "4"), 0, 0, "$JOB_COMPLETION_INDEX/$IDEABENCH_SHARDS = x/4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i, n, err := parseShard(tc.flag, tc.env)
			if tc.wantErr != "" {
				require.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, [2]int{tc.i, tc.n}, [2]int{i, n})
		})
	}
}

// TestCooperate: two processes running one protocol into one results
// directory, without --shard, share the work through trial leases: each
// trial is trained once, by one of them, and both write the report of a
// single uninterrupted run.
func TestCooperate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the ci protocol")
	}
	want := reference(t)
	dir := t.TempDir()
	results := filepath.Join(dir, "trials")
	var cmds []*exec.Cmd
	var errs []*bytes.Buffer
	for i := range 2 {
		cmd, stderr := child(t, "run", "--profile", "ci", "--out", filepath.Join(dir, fmt.Sprintf("r%d.json", i)), "--results", results, "--workers", "1", "--quiet")
		cmds, errs = append(cmds, cmd), append(errs, stderr)
	}
	trained := 0
	for i, cmd := range cmds {
		require.NoError(t, cmd.Wait(), errs[i].String())
		out := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		require.Equal(t, want, withoutRun(t, out))
		reused, run := trialCounts(t, out)
		require.Equal(t, ciTrials, reused+run)
		trained += run
	}
	require.Equal(t, ciTrials, trained, "each trial trained by one process only")
	leases, _ := filepath.Glob(filepath.Join(results, "trials", "*.lease*"))
	require.Empty(t, leases, "every lease released")
}

// TestWaitOnLease: a run that waits on a trial whose lease another live
// process holds says so on stderr at once, naming the trial and the
// holder, with the progress bar drawn again below the note; it trains
// the trial once the lease is gone.
func TestWaitOnLease(t *testing.T) {
	dir := t.TempDir()
	results := filepath.Join(dir, "r.trials")
	fs := newFlags("run")
	pf := protocolFlags(fs, io.Discard)
	require.NoError(t, fs.Parse([]string{"--config", "testdata/tiny.json"}))
	p, err := pf.protocol()
	require.NoError(t, err)
	lease := filepath.Join(results, "trials", p.Key(p.Trials()[0], "").ID()+".lease")
	require.NoError(t, os.MkdirAll(filepath.Dir(lease), 0o755))
	host, _ := os.Hostname()
	// The test's own process: alive, so the lease is not stale.
	require.NoError(t, os.WriteFile(lease, []byte(fmt.Sprintf(`{"pid": %d, "host": %q, "since": "2026-12-05T00:00:00Z"}`, os.Getpid(), host)), 0o644))
	cmd := exec.Command(os.Args[0], "run", "--config", "testdata/tiny.json", "--out", filepath.Join(dir, "r.json"), "--workers", "1")
	cmd.Env = append(os.Environ(), "IDEABENCH_MAIN=1")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	require.NoError(t, cmd.Start())
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), "so far") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, os.Remove(lease))
	require.NoError(t, cmd.Wait(), stderr.String())
	out := stderr.String()
	want := fmt.Sprintf("\nwaiting for 1 trial that another process sharing %s trains; the first, baseline cfg 0 seed 0 (pid %d on host %s, renewed ", results, os.Getpid(), host)
	require.Contains(t, out, want)
	i := strings.Index(out, want)
	after := out[i+1:]
	line, rest, _ := strings.Cut(after, "\n")
	require.Regexp(t, `: \d+s so far$`, line)
	require.True(t, strings.HasPrefix(rest, "[#"), "the bar is drawn again below the note: %q", rest)
	require.Contains(t, out, "12/12 trials")
}

// lockedBuffer is a bytes.Buffer a child process writes while the test
// reads it.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
