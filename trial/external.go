package trial

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/internal/jsonstrict"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"
)

// TrialFile is the JSON file an external trainer is given (its path is
// the command's last argument and $IDEABENCH_TRIAL): what to train and
// where to write. Paths are absolute.
type TrialFile struct {
	Arm  string       `json:"arm"`  // "baseline", "idea" or an idea arm's name
	Cfg  protocol.Cfg `json:"cfg"`  // the sweep's point: lr, epochs, the idea's fields
	Seed uint64       `json:"seed"` // seed the trainer draws its randomness from
	// Arch is the protocol's model size (d, heads, layers, batch, patch,
	// ...), for a trainer that matches the built-in model's.
	Arch protocol.Arch `json:"arch"`
	// Train, Val and Test are the track's windows at the cfg's look-back
	// (the files `ideabench data` writes: a stamp line, a header, one row
	// per window: its index, the inputs x.<channel>.<t> and the targets
	// y.<target>.<k>), normalized as the built-in model sees them. Test
	// holds the inputs only: its targets stay with the harness, which
	// scores the forecasts.
	//
	// On a token track they are its sequences instead (the files
	// `ideabench data` writes for a token track: a header
	// "sequence,token.0,…,label.0,…", one row per sequence, its T token
	// ids and T labels, -1 where a position is not scored). Test holds
	// the tokens and, in place of the labels, flags scored.<t> (1 where
	// the position is scored).
	Train string `json:"train"`
	Val   string `json:"val"`
	Test  string `json:"test"`
	// Out is the folder the trainer writes into: val.csv and test.csv
	// (the trained model's forecasts, or on a token track its
	// log-probabilities at the labelled positions), start_val.csv and
	// start_test.csv (the untrained model's, for what training bought),
	// and optionally result.json (see docs/external.md).
	Out      string   `json:"out"`
	T        int      `json:"t"`                  // look-back: input positions per window (a token track: positions per sequence)
	H        int      `json:"h,omitempty"`        // horizon: forecasts per window (none on a token track)
	Channels []string `json:"channels,omitempty"` // input channels, in the files' order (none on a token track)
	Target   string   `json:"target,omitempty"`   // the channel forecast (none on a token track)
	Windows  struct {
		Train int `json:"train"`
		Val   int `json:"val"`
		Test  int `json:"test"`
	} `json:"windows"` // rows of each file: windows, or sequences on a token track
	// Track, Vocab, Answers and Labelled are set on a token track only:
	// its name, the number of token ids (a row of scores has one per
	// id), the ids a label can take, and the rows of scores val.csv and
	// test.csv must hold (the labelled positions of each split).
	Track    string  `json:"track,omitempty"`
	Vocab    int     `json:"vocab,omitempty"`
	Answers  []int32 `json:"answers,omitempty"`
	Labelled *struct {
		Val  int `json:"val"`
		Test int `json:"test"`
	} `json:"labelled,omitempty"`
}

// TrainerResult is the optional result.json an external trainer writes
// beside its forecasts.
type TrainerResult struct {
	// Diverged says the training diverged (its loss became NaN or Inf):
	// the trial is then recorded as diverged, as the built-in model's is,
	// and no forecasts are read.
	Diverged bool `json:"diverged,omitempty"`
	// ValCurve is the val metric after each epoch, EpochLoss the mean
	// training loss of each epoch (for the report's curves).
	ValCurve  []float64 `json:"val_curve,omitempty"`
	EpochLoss []float64 `json:"epoch_loss,omitempty"`
	// BestEpoch is the epoch whose weights made the forecasts (0: the
	// start); 0 when absent and no curve is given.
	BestEpoch int `json:"best_epoch,omitempty"`
}

// ErrTrainer marks an external trial that failed: the command exited with
// an error, timed out, or wrote forecasts that are missing, malformed, of
// the wrong shape or not finite.
var ErrTrainer = errors.New("external trainer failed")

// TrainerError is one failed external trial.
type TrainerError struct {
	Cause string // what went wrong, with the file or exit status
	Log   string // the tail of the command's output (stdout and stderr)
	Dir   string // the trial's folder: its trial.json, out/ and log.txt
}

func (e *TrainerError) Error() string {
	s := e.Cause + " (trial folder " + e.Dir + ")"
	if strings.TrimSpace(e.Log) != "" {
		s += "; its output ends:\n" + indent(e.Log)
	}
	return s
}

func (e *TrainerError) Unwrap() error { return ErrTrainer }

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "    " + l
	}
	return strings.Join(lines, "\n")
}

// logTail is how much of a failed command's output an error quotes.
const logTail = 2000

// Workspace is the folder external trials run in: the exported windows
// under data/ (written once per data set and look-back, shared by every
// trial) and each trial's folder under trials/ID/. Safe for concurrent
// use.
type Workspace struct {
	Dir string

	mu      sync.Mutex
	exports map[string]*exported
}

type exported struct {
	once  sync.Once
	paths [3]string
	err   error
}

// NewWorkspace returns the workspace in dir, made absolute.
func NewWorkspace(dir string) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return nil, fmt.Errorf("external trainers' folder: %w", err)
	}
	return &Workspace{Dir: abs, exports: map[string]*exported{}}, nil
}

// windows writes ds's three splits (at look-back ds.Train.T) once and
// returns their paths.
func (w *Workspace) windows(p protocol.Protocol, ds *track.Dataset, dataSHA string) ([3]string, error) {
	id := fmt.Sprintf("%s-%s-t%d", p.DataID(dataSHA), protocol.TrainingVersion, ds.Train.T)
	if ds.Tokens != nil {
		id = fmt.Sprintf("%s-%s-tokens", p.DataID(dataSHA), protocol.TrainingVersion)
	}
	w.mu.Lock()
	e, ok := w.exports[id]
	if !ok {
		e = &exported{}
		w.exports[id] = e
	}
	w.mu.Unlock()
	e.once.Do(func() {
		dir := filepath.Join(w.Dir, "data", id)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			e.err = err
			return
		}
		if tk := ds.Tokens; tk != nil {
			for i, s := range []struct {
				name  string
				split *track.TokenSplit
			}{{"train", &tk.Train}, {"val", &tk.Val}, {"test", &tk.Test}} {
				path := filepath.Join(dir, s.name+".csv")
				e.paths[i] = path
				if _, err := os.Stat(path); err == nil {
					continue
				}
				err := atomicfile.Write(path, func(wr io.Writer) error {
					if err := WriteStamp(wr, p.DataID(dataSHA), s.name); err != nil {
						return err
					}
					if s.name == "test" {
						return WriteTokenInputsCSV(wr, s.split)
					}
					return WriteTokensCSV(wr, s.split)
				})
				if err != nil {
					e.err = fmt.Errorf("exporting the %s sequences for external trainers: %w", s.name, err)
					return
				}
			}
			return
		}
		for i, s := range []struct {
			name  string
			split *track.Split
		}{{"train", &ds.Train}, {"val", &ds.Val}, {"test", &ds.Test}} {
			path := filepath.Join(dir, s.name+".csv")
			e.paths[i] = path
			if _, err := os.Stat(path); err == nil {
				continue // written by an earlier run: atomically, so whole
			}
			err := atomicfile.Write(path, func(wr io.Writer) error {
				if err := WriteStamp(wr, p.DataID(dataSHA), s.name); err != nil {
					return err
				}
				if s.name == "test" {
					return WriteInputsCSV(wr, s.split, ds.Channels, ds.Target)
				}
				return WriteWindowsCSV(wr, s.split, ds.Channels, ds.Target)
			})
			if err != nil {
				e.err = fmt.Errorf("exporting the %s windows for external trainers: %w", s.name, err)
				return
			}
		}
	})
	return e.paths, e.err
}

// RunExternal trains trial t with its arm's external trainer
// (p.TrainerOf) on ds and scores the forecasts it writes: Val and Test are
// the mean squared error of the val and test forecasts against the
// windows' targets (normalized scale, as the built-in model's), StartVal
// and StartTest those of the start forecasts (the untrained model's). A trainer that
// fails gives an error wrapping ErrTrainer (a *TrainerError naming the
// cause and quoting its output); a cancelled ctx kills the command and
// gives ErrInterrupted.
func RunExternal(ctx context.Context, w *Workspace, p protocol.Protocol, ds *track.Dataset, dataSHA string, t protocol.Trial) (Result, error) {
	dir := filepath.Join(w.Dir, "trials", p.Key(t, dataSHA).ID())
	return w.run(ctx, p, ds, dataSHA, t, dir)
}

func (w *Workspace) run(ctx context.Context, p protocol.Protocol, ds *track.Dataset, dataSHA string, t protocol.Trial, dir string) (Result, error) {
	tr := p.TrainerOf(t.Arm)
	if tr == nil {
		panic(fmt.Sprintf("trial: RunExternal: arm %s has no external trainer", t.Arm))
	}
	c := p.Cfg(t)
	at := ds.At(c.Context)
	paths, err := w.windows(p, at, dataSHA)
	if err != nil {
		return Result{}, err
	}
	out := filepath.Join(dir, "out")
	if err := os.RemoveAll(out); err != nil {
		return Result{}, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return Result{}, err
	}
	tf := TrialFile{Arm: p.ArmName(t.Arm), Cfg: c, Seed: t.Seed, Arch: p.Arch, Train: paths[0], Val: paths[1], Test: paths[2], Out: out}
	if tk := at.Tokens; tk == nil {
		tf.T, tf.H, tf.Channels, tf.Target = at.Train.T, at.Train.H, at.Channels, at.Channels[at.Target]
		tf.Windows.Train, tf.Windows.Val, tf.Windows.Test = at.Train.N, at.Val.N, at.Test.N
	} else {
		tf.T = tk.Train.T
		tf.Windows.Train, tf.Windows.Val, tf.Windows.Test = tk.Train.N, tk.Val.N, tk.Test.N
		tf.Track, tf.Vocab, tf.Answers = at.Name, tk.Vocab, tk.Answers
		tf.Labelled = &struct {
			Val  int `json:"val"`
			Test int `json:"test"`
		}{tk.Val.Labelled(), tk.Test.Labelled()}
	}
	raw, err := json.MarshalIndent(tf, "", "  ")
	if err != nil {
		return Result{}, err
	}
	trialPath := filepath.Join(dir, "trial.json")
	if err := os.WriteFile(trialPath, append(raw, '\n'), 0o644); err != nil {
		return Result{}, err
	}
	logPath := filepath.Join(dir, "log.txt")
	fail := func(format string, a ...any) (Result, error) {
		return Result{}, &TrainerError{Cause: fmt.Sprintf(format, a...), Log: tail(logPath), Dir: dir}
	}
	if err := w.exec(ctx, tr, trialPath, logPath); err != nil {
		if errors.Is(err, ErrInterrupted) {
			return Result{}, err
		}
		return fail("%v", err)
	}
	var res Result
	if raw, err := os.ReadFile(filepath.Join(out, "result.json")); err == nil {
		tres, err := readTrainerResult(raw)
		if err != nil {
			return fail("%v", err)
		}
		res.ValCurve, res.EpochLoss, res.BestEpoch = tres.ValCurve, tres.EpochLoss, tres.BestEpoch
		if tres.Diverged {
			res.Diverged = true
			res.Val, res.Test = math.Inf(1), math.Inf(1)
			res.ValCurve = nil
			return res, nil
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return fail("out/result.json: %v", err)
	}
	if at.Tokens != nil {
		return scoreTokenOutputs(res, out, at.Tokens, fail)
	}
	var all []float64
	for _, s := range []struct {
		name  string
		split *track.Split
		dst   *float64
	}{{"val.csv", &at.Val, &res.Val}, {"test.csv", &at.Test, &res.Test}} {
		f, err := ReadForecasts(filepath.Join(out, s.name), s.split.N, s.split.H)
		if err != nil {
			return fail("%v", err)
		}
		*s.dst = track.LastPositionMSE(f, s.split) // ReadForecasts gave N·H values
		if s.split == &at.Test && at.Panel != nil {
			// A real panel: the archive's score too, as the built-in
			// model's (evaluateMASE).
			res.TestMASE = at.Panel.MeanMASE(f)
		}
		all = append(all, f...)
	}
	res.Forecasts = forecastsDigest(all)
	if !finite(res.Val) || !finite(res.Test) || !finite(res.TestMASE) {
		// Forecasts so large that their squared error overflows: as a
		// training whose loss overflows, the trial diverged.
		res.Diverged, res.Val, res.Test, res.ValCurve, res.TestMASE = true, math.Inf(1), math.Inf(1), nil, 0
		return res, nil
	}
	sv, err := ReadForecasts(filepath.Join(out, "start_val.csv"), at.Val.N, at.Val.H)
	if err != nil {
		return fail("%v", err)
	}
	st, err := ReadForecasts(filepath.Join(out, "start_test.csv"), at.Test.N, at.Test.H)
	if err != nil {
		return fail("%v", err)
	}
	res.StartVal, res.StartTest = track.LastPositionMSE(sv, &at.Val), track.LastPositionMSE(st, &at.Test)
	if !finite(res.StartVal) || !finite(res.StartTest) {
		return fail("out/start_val.csv, out/start_test.csv: the untrained model's forecasts are so large that their squared error overflows; check the model's initialization")
	}
	if len(res.ValCurve) == 0 {
		res.ValCurve = []float64{res.Val}
		res.BestEpoch = 1
	}
	return res, nil
}

// scoreTokenOutputs scores an external trainer's outputs on a token
// track: the val and test scores (ReadTokenScores) give Val and Test
// (mean cross-entropy per labelled position, ScoreTokens) with ValAcc and
// TestAcc, the start scores StartVal and StartTest.
func scoreTokenOutputs(res Result, out string, tk *track.TokenDataset, fail func(string, ...any) (Result, error)) (Result, error) {
	var all []float64
	for _, s := range []struct {
		name     string
		split    *track.TokenSplit
		ce, acc  *float64
		keepBits bool
	}{
		{"val.csv", &tk.Val, &res.Val, &res.ValAcc, true},
		{"test.csv", &tk.Test, &res.Test, &res.TestAcc, true},
		{"start_val.csv", &tk.Val, &res.StartVal, nil, false},
		{"start_test.csv", &tk.Test, &res.StartTest, nil, false},
	} {
		f, err := ReadTokenScores(filepath.Join(out, s.name), s.split, tk.Vocab)
		if err != nil {
			return fail("%v", err)
		}
		if len(f) == 0 {
			return fail("out/%s: the split has no labelled position to score", s.name)
		}
		ce, acc := ScoreTokens(f, s.split, tk.Vocab)
		if !finite(ce) {
			if !s.keepBits {
				return fail("out/%s: the untrained model's scores are so far apart that their cross-entropy overflows; check the model's initialization", s.name)
			}
			// Scores so far apart that the cross-entropy overflows: as
			// a training whose loss overflows, the trial diverged.
			res.Diverged, res.Val, res.Test, res.ValCurve = true, math.Inf(1), math.Inf(1), nil
			res.ValAcc, res.TestAcc = 0, 0
			return res, nil
		}
		*s.ce = ce
		if s.acc != nil {
			*s.acc = acc
		}
		if s.keepBits {
			all = append(all, f...)
		}
	}
	res.Forecasts = forecastsDigest(all)
	if len(res.ValCurve) == 0 {
		res.ValCurve = []float64{res.Val}
		res.BestEpoch = 1
	}
	return res, nil
}

// exec runs the trainer on trialPath, its output into logPath, killing
// it (and the processes it started) at its time limit or when ctx ends.
func (w *Workspace) exec(ctx context.Context, tr *protocol.Trainer, trialPath, logPath string) error {
	limit := time.Duration(tr.Timeout() * float64(time.Second))
	tctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	log, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer log.Close()
	args := append(append([]string(nil), tr.Command[1:]...), trialPath)
	cmd := exec.CommandContext(tctx, tr.Command[0], args...)
	cmd.Env = append(os.Environ(), "IDEABENCH_TRIAL="+trialPath)
	cmd.Stdout, cmd.Stderr = log, log
	killGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	err = cmd.Run()
	reap(cmd)
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %w", ErrInterrupted, ctx.Err())
	case tctx.Err() != nil:
		return fmt.Errorf("timed out after %v (trainers.*.timeout_s); raise the limit or make the trial cheaper", limit)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return fmt.Errorf("the command %q exited with %v", tr.Command, ee.ProcessState)
	}
	return fmt.Errorf("the command %q did not run: %v; check trainers.*.command", tr.Command, err)
}

// tail is the last logTail bytes of the file at path.
func tail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > logTail {
		f.Seek(st.Size()-logTail, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, logTail))
	if len(b) == logTail {
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return string(b)
}

// ReadForecasts reads a forecasts file of n windows and h steps: an
// optional header row, then one row per window in order, its index n
// then its h forecasts. Every value must be a finite number. A missing
// file gives an error wrapping os.ErrNotExist.
func ReadForecasts(path string, n, h int) ([]float64, error) {
	name := filepath.Base(path)
	out := make([]float64, 0, n*h)
	row := 0
	isHeader := func(first string) bool {
		_, err := strconv.ParseFloat(strings.TrimSpace(first), 64)
		return err != nil
	}
	err := readOutRows(path, "forecasts", isHeader, func(rec []string, line int) error {
		if row >= n {
			return fmt.Errorf("out/%s line %d: more than the %d windows of the split; write one row per window", name, line, n)
		}
		if len(rec) != h+1 {
			return fmt.Errorf("out/%s line %d: %d fields, want %d (the window's index, then its %d forecasts)", name, line, len(rec), h+1, h)
		}
		if k, err := strconv.ParseFloat(strings.TrimSpace(rec[0]), 64); err != nil || k != float64(row) {
			return fmt.Errorf("out/%s line %d: window %q, want %d; write the windows in the order of the windows file", name, line, rec[0], row)
		}
		for j, s := range rec[1:] {
			x, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !finite(x) {
				return fmt.Errorf("out/%s line %d: forecast %d of window %d is %q, not a finite number; a trainer whose training diverged writes {\"diverged\": true} to out/result.json", name, line, j+1, row, s)
			}
			out = append(out, x)
		}
		row++
		return nil
	})
	if err != nil {
		return nil, err
	}
	if row != n {
		return nil, fmt.Errorf("out/%s: %d windows, want %d (one row per window of the split)", name, row, n)
	}
	return out, nil
}

// readOutRows reads an external trainer's output file (out/NAME) as CSV
// and calls row with each record and its line, after an optional header:
// a first record whose first field isHeader says is one (a byte-order
// mark before it is dropped). A missing file gives an error wrapping
// os.ErrNotExist that says the trainer must write its what there; row's
// error stops the reading and is returned.
func readOutRows(path, what string, isHeader func(first string) bool, row func(rec []string, line int) error) error {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("out/%s: missing; the trainer must write its %s there: %w", name, what, os.ErrNotExist)
		}
		return err
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.FieldsPerRecord = -1
	r.ReuseRecord = true
	for first := true; ; first = false {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("out/%s: %v", name, err)
		}
		line, _ := r.FieldPos(0)
		if first {
			rec[0] = strings.TrimPrefix(rec[0], "\ufeff")
			if isHeader(rec[0]) {
				continue
			}
		}
		if err := row(rec, line); err != nil {
			return err
		}
	}
}

// readTrainerResult reads an external trainer's out/result.json
// strictly (jsonstrict) and checks that its curves are finite unless it
// diverged.
func readTrainerResult(raw []byte) (TrainerResult, error) {
	var tres TrainerResult
	if err := jsonstrict.Decode(raw, "out/result.json", "trainer result", &tres); err != nil {
		return TrainerResult{}, fmt.Errorf("%v; write {\"val_curve\": [...], \"epoch_loss\": [...], \"best_epoch\": N} with finite numbers (NaN is not JSON: a training that diverged writes {\"diverged\": true}), or leave it out", err)
	}
	for _, xs := range [][]float64{tres.ValCurve, tres.EpochLoss} {
		for _, x := range xs {
			if !finite(x) && !tres.Diverged {
				return TrainerResult{}, fmt.Errorf("out/result.json: a curve holds %v; write finite numbers, or \"diverged\": true", x)
			}
		}
	}
	return tres, nil
}

// Rerun runs trial t's trainer again, in the rerun/ folder of the
// trial's folder, and compares its val and test forecasts with those of
// the first run, whose result (stored) the report uses. The first run's
// forecasts are read from the trial's folder in w, or in one of the other
// workspaces (the shards of a merged run), where their digest is
// stored.Forecasts; where none holds them, the first run is made again
// first, and a digest other than the stored one sets StoredDiffers.
func Rerun(ctx context.Context, w *Workspace, others []string, p protocol.Protocol, ds *track.Dataset, dataSHA string, t protocol.Trial, stored Result) (*protocol.Reproduction, error) {
	id := p.Key(t, dataSHA).ID()
	dir := filepath.Join(w.Dir, "trials", id)
	at := ds.At(p.Cfg(t).Context)
	read := func(dir string) ([]float64, error) {
		if tk := at.Tokens; tk != nil {
			v, err := ReadTokenScores(filepath.Join(dir, "out", "val.csv"), &tk.Val, tk.Vocab)
			if err != nil {
				return nil, err
			}
			s, err := ReadTokenScores(filepath.Join(dir, "out", "test.csv"), &tk.Test, tk.Vocab)
			return append(v, s...), err
		}
		v, err := ReadForecasts(filepath.Join(dir, "out", "val.csv"), at.Val.N, at.Val.H)
		if err != nil {
			return nil, err
		}
		s, err := ReadForecasts(filepath.Join(dir, "out", "test.csv"), at.Test.N, at.Test.H)
		return append(v, s...), err
	}
	var first []float64
	for _, d := range append([]string{dir}, others...) {
		if d != dir {
			d = filepath.Join(d, "trials", id)
		}
		if f, err := read(d); err == nil && forecastsDigest(f) == stored.Forecasts {
			first = f
			break
		}
	}
	storedDiffers := false
	if first == nil {
		if _, err := w.run(ctx, p, ds, dataSHA, t, dir); err != nil {
			return nil, err
		}
		f, err := read(dir)
		if err != nil {
			return nil, err
		}
		first, storedDiffers = f, forecastsDigest(f) != stored.Forecasts
	}
	if _, err := w.run(ctx, p, ds, dataSHA, t, filepath.Join(dir, "rerun")); err != nil {
		return nil, err
	}
	again, err := read(filepath.Join(dir, "rerun"))
	if err != nil {
		return nil, err
	}
	rep := &protocol.Reproduction{Arm: t.Arm, Cfg: t.Cfg, Seed: t.Seed, Identical: !storedDiffers, StoredDiffers: storedDiffers, Tolerance: p.TrainerOf(t.Arm).RerunTolerance()}
	var ss float64
	for i, x := range first {
		ss += x * x
		if math.Float64bits(x) != math.Float64bits(again[i]) {
			rep.Identical = false
		}
		rep.MaxAbsDiff = max(rep.MaxAbsDiff, math.Abs(x-again[i]))
	}
	rep.RelDiff = RelDiff(rep.MaxAbsDiff, math.Sqrt(ss/float64(len(first))))
	rep.Reproduced = rep.RelDiff <= rep.Tolerance && !storedDiffers
	return rep, nil
}

// RelDiff is diff relative to the scale rms: diff/rms, 0 when diff is 0,
// and +Inf reported as the largest float64 when rms is 0 and diff is not.
func RelDiff(diff, rms float64) float64 {
	switch {
	case diff == 0:
		return 0
	case rms == 0:
		return math.MaxFloat64
	}
	return diff / rms
}

// forecastsDigest is the SHA-256 (hex) of forecasts' float64 bits,
// little-endian: Result.Forecasts of the val forecasts then the test ones.
func forecastsDigest(f []float64) string {
	h := sha256.New()
	b := make([]byte, 8)
	for _, x := range f {
		binary.LittleEndian.PutUint64(b, math.Float64bits(x))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
}
