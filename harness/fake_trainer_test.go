package harness

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/trial"
)

// TestMain lets the test binary act as an external trainer: run as
// `harness.test fake-trainer MODE TRIAL.json`, it trains nothing, forecasts
// by a damped last value (the damping set by the cfg's lr, the level by
// the seed), writes what the contract asks, and exits. MODE makes it
// misbehave as a broken trainer does.
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == "fake-trainer" {
		if err := fakeTrainer(os.Args[2], os.Args[len(os.Args)-1]); err != nil {
			fmt.Fprintln(os.Stderr, "fake trainer:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// fakeCommand is the trainer command of the test binary in mode.
func fakeCommand(t *testing.T, mode string) *protocol.Trainer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return &protocol.Trainer{Command: []string{exe, "fake-trainer", mode}, TimeoutS: 20}
}

func fakeTrainer(mode, path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var tf trial.TrialFile
	if err := json.Unmarshal(raw, &tf); err != nil {
		return err
	}
	if os.Getenv("IDEABENCH_TRIAL") != path {
		return fmt.Errorf("IDEABENCH_TRIAL = %q, want the trial file %q", os.Getenv("IDEABENCH_TRIAL"), path)
	}
	fmt.Printf("fake trainer: %s cfg lr %g seed %d\n", tf.Arm, tf.Cfg.LR, tf.Seed)
	switch mode {
	case "exit1":
		fmt.Fprintln(os.Stderr, "Traceback: ValueError: the fake trainer fails on purpose")
		return fmt.Errorf("failing on purpose")
	case "hang":
		time.Sleep(time.Hour)
	case "missing":
		return nil
	case "diverge":
		if tf.Cfg.LR > 0.005 {
			return os.WriteFile(filepath.Join(tf.Out, "result.json"), []byte(`{"diverged": true}`), 0o644)
		}
	case "slow":
		time.Sleep(150 * time.Millisecond)
	case "fork":
		// A child left running: it must not outlive the trial.
		child := exec.Command("sleep", "30")
		if err := child.Start(); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(filepath.Dir(tf.Out), "child.pid"), []byte(strconv.Itoa(child.Process.Pid)), 0o644); err != nil {
			return err
		}
	}
	if tf.Vocab > 0 {
		return fakeTokens(mode, &tf)
	}
	damp := 1 - 20*tf.Cfg.LR
	level := 0.01 * float64(tf.Seed%5)
	if mode == "arm" {
		level += float64(len(tf.Arm)) // the forecasts depend on the arm's name
	}
	if mode == "nondet" {
		level += 1e-3 * float64(time.Now().UnixNano()%1000)
	}
	for _, s := range []struct {
		in, out, start string
		n              int
	}{{tf.Val, "val.csv", "start_val.csv", tf.Windows.Val}, {tf.Test, "test.csv", "start_test.csv", tf.Windows.Test}} {
		last, err := lastInputs(s.in, fmt.Sprintf("x.%s.%d", tf.Target, tf.T-1))
		if err != nil {
			return err
		}
		if len(last) != s.n {
			return fmt.Errorf("%s: %d windows, the trial file says %d", s.in, len(last), s.n)
		}
		var b, st strings.Builder
		b.WriteString("window")
		for k := 1; k <= tf.H; k++ {
			b.WriteString(",y" + strconv.Itoa(k))
		}
		b.WriteString("\n")
		st.WriteString(b.String())
		n := len(last)
		if mode == "rows" && s.out == "test.csv" {
			n--
		}
		for w := range n {
			fmt.Fprintf(&b, "%d", w)
			fmt.Fprintf(&st, "%d", w)
			for k := range tf.H {
				v := damp*last[w] + level
				if mode == "huge" {
					v = 1e200
				}
				if mode == "nan" && w == 3 && k == 0 && s.out == "val.csv" {
					v = math.NaN()
				}
				fmt.Fprintf(&b, ",%s", strconv.FormatFloat(v, 'g', -1, 64))
				fmt.Fprintf(&st, ",0")
			}
			b.WriteString("\n")
			st.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(tf.Out, s.out), []byte(b.String()), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tf.Out, s.start), []byte(st.String()), 0o644); err != nil {
			return err
		}
	}
	curve := `{"val_curve": [0.9, 0.8], "epoch_loss": [1.0, 0.9]}`
	return os.WriteFile(filepath.Join(tf.Out, "result.json"), []byte(curve), 0o644)
}

// lastInputs reads the column named col of a windows file: each window's
// last input of the target.
func lastInputs(path, col string) ([]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	head, err := r.Read()
	if err != nil {
		return nil, err
	}
	c := slices.Index(head, col)
	if c < 0 {
		return nil, fmt.Errorf("%s: no column %s", path, col)
	}
	var out []float64
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		x, err := strconv.ParseFloat(rec[c], 64)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
}

// fakeTokens is the fake trainer on a token track: at each labelled
// position its trained model gives the answers (tf.Answers) equal
// log-probabilities and every other id none (-1e30); its untrained model
// gives every id the score 0 (logits, not log-probabilities: the harness
// normalizes them). Mode "rows" leaves a row out of test.csv, "order"
// swaps two rows of val.csv.
func fakeTokens(mode string, tf *trial.TrialFile) error {
	for _, s := range []struct {
		in, out, start string
		n, rows        int
	}{{tf.Val, "val.csv", "start_val.csv", tf.Windows.Val, tf.Labelled.Val}, {tf.Test, "test.csv", "start_test.csv", tf.Windows.Test, tf.Labelled.Test}} {
		pos, n, err := labelledPositions(s.in)
		if err != nil {
			return err
		}
		if n != s.n || len(pos) != s.rows {
			return fmt.Errorf("%s: %d sequences and %d labelled positions, the trial file says %d and %d", s.in, n, len(pos), s.n, s.rows)
		}
		if mode == "rows" && s.out == "test.csv" {
			pos = pos[:len(pos)-1]
		}
		if mode == "order" && s.out == "val.csv" {
			pos[0], pos[1] = pos[1], pos[0]
		}
		answer := make([]bool, tf.Vocab)
		for _, a := range tf.Answers {
			answer[a] = true
		}
		var b, st strings.Builder
		b.WriteString("sequence,position")
		for j := range tf.Vocab {
			fmt.Fprintf(&b, ",lp.%d", j)
		}
		b.WriteString("\n")
		lp := strconv.FormatFloat(-math.Log(float64(len(tf.Answers))), 'g', -1, 64)
		for _, p := range pos {
			fmt.Fprintf(&b, "%d,%d", p[0], p[1])
			fmt.Fprintf(&st, "%d,%d", p[0], p[1])
			for j := range tf.Vocab {
				v := "-1e30"
				if answer[j] {
					v = lp
				}
				b.WriteString("," + v)
				st.WriteString(",0")
			}
			b.WriteString("\n")
			st.WriteString("\n")
		}
		if err := os.WriteFile(filepath.Join(tf.Out, s.out), []byte(b.String()), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(tf.Out, s.start), []byte(st.String()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// labelledPositions reads a token sequences file (with labels, or with
// scored flags in their place) and returns its labelled positions
// (sequence, position) in order and its number of sequences.
func labelledPositions(path string) ([][2]int, int, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comment = '#'
	head, err := r.Read()
	if err != nil {
		return nil, 0, err
	}
	t := (len(head) - 1) / 2
	scored := head[t+1] == "scored.0"
	var pos [][2]int
	n := 0
	for ; ; n++ {
		rec, err := r.Read()
		if err == io.EOF {
			return pos, n, nil
		}
		if err != nil {
			return nil, 0, err
		}
		for k, v := range rec[t+1:] {
			if (scored && v == "1") || (!scored && v != "-1") {
				pos = append(pos, [2]int{n, k})
			}
		}
	}
}
