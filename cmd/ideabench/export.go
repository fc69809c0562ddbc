package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/internal/safetensors"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// Checkpoint metadata keys written by train (besides the model config).
const (
	metaChannels = "ideabench.channels"   // JSON list of input channel names, model order
	metaTarget   = "ideabench.target"     // index of the target among them
	metaNorm     = "ideabench.norm"       // JSON {"mean": [...], "std": [...]} per channel, train rows
	metaProtocol = "ideabench.protocol"   // JSON protocol the trial came from
	metaTrial    = "ideabench.trial"      // JSON {"arm", "cfg", "seed", "val", "test"}
	metaBatch    = "ideabench.eval_batch" // windows per forward pass in evaluation (the float64 sum runs batch by batch)
	metaData     = "ideabench.data"       // the protocol's data id (protocol.Protocol.DataID), stamped on exported windows too
	metaSeries   = "ideabench.series"     // csv channels independent or mixed: JSON list of the forecast columns, series k forecasting the k-th
)

// cmdTrain trains one trial and saves its checkpoint.
func cmdTrain(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("train")
	pf := protocolFlags(fs, stderr)
	arm := fs.String("arm", "idea", "baseline or idea")
	cfg := fs.Int("cfg", 0, "index into the arm's grid")
	seed := fs.Uint64("seed", 0, "training seed")
	out := fs.String("out", "model.safetensors", "checkpoint file (safetensors)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	p, err := pf.protocol()
	if err != nil {
		return err
	}
	grid := p.Idea
	switch *arm {
	case "idea":
	case "baseline":
		grid = p.Baseline
	default:
		return fmt.Errorf("%w: --arm = %q: use baseline or idea", errUsage, *arm)
	}
	if *cfg < 0 || *cfg >= len(grid) {
		return fmt.Errorf("%w: --cfg = %d: the %s grid has cfgs 0..%d", errUsage, *cfg, *arm, len(grid)-1)
	}
	if k, ok := p.Kind(); ok && k.Several(&p.Blocks) && p.Arch.SkipStart != "" {
		return fmt.Errorf("%w: arch.skip_start %q on a track of several series: the model may forecast with each channel's closed-form map beside it, so its checkpoint alone is not the forecaster; train and score it with ideabench run, or start the skip path at the shared fit with a config of {\"arch\": {\"skip_start\": \"\"}}", errUsage, p.Arch.SkipStart)
	}
	if err := checkOutputs([]output{{named: named{"--out", *out}}}, protocolInputs(*pf.config, p), nil); err != nil {
		return err
	}
	var made madeDirs
	defer made.undoOnError(&err)
	if err := checkWritable(&made, *out); err != nil {
		return err
	}
	limits, err := machineLimits(defaultMaxHours)
	if err != nil {
		return err
	}
	d, err := p.DataWithin(ctx, limits)
	if err == nil {
		q := p
		q.Baseline, q.Idea, q.Ideas, q.Sequential = []protocol.Cfg{grid[*cfg]}, nil, nil, nil
		err = q.Estimate(d.Dataset, 1, trial.Costs(q)).Check(limits, 1)
	}
	if errors.Is(err, protocol.ErrBeyondLimits) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if err != nil {
		return err
	}
	c := grid[*cfg]
	// One trial: its products may use every core (the same bits).
	defer transformer.SetThreads(transformer.SetThreads(runtime.GOMAXPROCS(0)))
	m, res, err := trial.TrainTrial(ctx, p, d.Dataset, c, *seed)
	if err != nil {
		return fmt.Errorf("%s cfg %d seed %d: %w", *arm, *cfg, *seed, err)
	}
	meta := map[string]string{metaTarget: strconv.Itoa(d.Target), metaBatch: strconv.Itoa(p.Arch.Batch), metaData: p.DataID(d.SHA256)}
	if len(d.Series) > 0 {
		b, err := json.Marshal(d.Series)
		if err != nil {
			return err
		}
		meta[metaSeries] = string(b)
	}
	for k, v := range map[string]any{
		metaChannels: d.Channels,
		metaNorm:     map[string][]float64{"mean": d.Norm.Mean, "std": d.Norm.Std},
		metaProtocol: p,
		metaTrial:    map[string]any{"arm": *arm, "cfg": *cfg, "seed": *seed, "val": res.Val, "test": res.Test},
	} {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("checkpoint metadata %s: %w", k, err)
		}
		meta[k] = string(b)
	}
	if err := transformer.SaveCheckpoint(*out, m, meta); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s cfg %d (lr %g, rho %g, beta %g) seed %d: val %.6g, test %.6g\ncheckpoint: %s\n",
		*arm, *cfg, c.LR, c.Rho, c.Beta, *seed, res.Val, res.Test, *out)
	return nil
}

// cmdData exports a split's evaluation windows as a windows CSV.
func cmdData(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	fs := newFlags("data")
	pf := protocolFlags(fs, stderr)
	split := fs.String("split", "test", "train, val or test")
	out := fs.String("out", "windows.csv", "windows CSV to write; - writes it to standard output")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	p, err := pf.protocol()
	if err != nil {
		return err
	}
	switch *split {
	case "train", "val", "test":
	default:
		return fmt.Errorf("%w: --split = %q: use train, val or test", errUsage, *split)
	}
	var made madeDirs
	defer made.undoOnError(&err)
	if *out != "-" {
		if err := checkOutputs([]output{{named: named{"--out", *out}}}, protocolInputs(*pf.config, p), nil); err != nil {
			return err
		}
		if err := checkWritable(&made, *out); err != nil {
			return err
		}
	}
	d, err := p.DataWithin(ctx, protocol.Limits{})
	if err != nil {
		return err
	}
	// body writes the split after the stamp: a token track's sequences,
	// or a forecasting track's windows.
	var body func(io.Writer) error
	var summary string
	if td := d.Tokens; td != nil {
		s := map[string]*track.TokenSplit{"train": &td.Train, "val": &td.Val, "test": &td.Test}[*split]
		body = func(w io.Writer) error { return trial.WriteTokensCSV(w, s) }
		summary = fmt.Sprintf("%d %s sequences of %d tokens, %d labelled positions, vocabulary %d", s.N, *split, s.T, s.Labelled(), td.Vocab)
	} else {
		s := map[string]*track.Split{"train": &d.Train, "val": &d.Val, "test": &d.Test}[*split]
		body = func(w io.Writer) error { return trial.WriteWindowsCSV(w, s, d.Channels, d.Target) }
		summary = fmt.Sprintf("%d %s windows, T=%d, H=%d, channels %v, target %s", s.N, *split, s.T, s.H, d.Channels, d.Channels[d.Target])
	}
	write := func(w io.Writer) error {
		if err := trial.WriteStamp(w, p.DataID(d.SHA256), *split); err != nil {
			return err
		}
		return body(w)
	}
	if *out == "-" {
		if err := write(stdout); err != nil {
			return fmt.Errorf("--out -: %w", err)
		}
		fmt.Fprintln(stderr, summary)
		return nil
	}
	if err := atomicfile.Write(*out, write); err != nil {
		return fmt.Errorf("--out %s: %w", *out, err)
	}
	fmt.Fprintf(stdout, "%s: %s\n", *out, summary)
	return nil
}

// cmdEval scores a checkpoint on a windows CSV.
func cmdEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("eval")
	ckpt := fs.String("checkpoint", "", "checkpoint from ideabench train")
	data := fs.String("data", "", "windows CSV from ideabench data")
	anyData := fs.Bool("any-data", false, "score windows exported under another protocol (by default eval refuses them)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	if *ckpt == "" || *data == "" {
		return fmt.Errorf("%w: eval needs --checkpoint FILE and --data FILE.csv", errUsage)
	}
	_, meta, err := safetensors.ReadFile(*ckpt)
	if err != nil {
		return fmt.Errorf("--checkpoint %s: %w", *ckpt, err)
	}
	// The report sums squared errors batch by batch: score in batches of
	// the trial's size to reproduce its bits.
	batch := 64
	if b, err := strconv.Atoi(meta[metaBatch]); err == nil && b > 0 {
		batch = b
	}
	m, _, err := transformer.LoadCheckpoint[float32](*ckpt, batch)
	if err != nil {
		return fmt.Errorf("--checkpoint %s: %w", *ckpt, err)
	}
	f, err := os.Open(*data)
	if err != nil {
		return fmt.Errorf("--data: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	first, _ := br.Peek(256)
	line, _, _ := strings.Cut(string(first), "\n")
	id, split, stamped := trial.ReadStamp(line)
	want, known := meta[metaData]
	switch {
	case stamped && known && id != want && !*anyData:
		return fmt.Errorf("%s holds windows of another protocol (data %s, %s split) than the checkpoint was trained on (data %s): export them with ideabench data and the checkpoint's protocol, or pass --any-data to score them anyway", *data, id, split, want)
	case !stamped:
		fmt.Fprintf(stderr, "note: %s carries no ideabench data stamp; eval cannot check it holds windows of the checkpoint's protocol\n", *data)
	}
	if rest, _ := br.Peek(4096); m.Config.Vocab > 0 || trial.IsTokensHeader(afterStamp(string(rest))) {
		if m.Config.Vocab == 0 {
			return fmt.Errorf("%s holds token sequences but the checkpoint is a forecaster; score it on windows of its track", *data)
		}
		ts, err := trial.ReadTokensCSV(br, *data, m.Config.Vocab)
		if err != nil {
			return err
		}
		ce, acc, err := trial.EvaluateTokens(m, ts)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "cross-entropy %s, accuracy %s over %d labelled positions of %d sequences\n",
			strconv.FormatFloat(ce, 'g', -1, 64), strconv.FormatFloat(acc, 'g', -1, 64), ts.Labelled(), ts.N)
		return nil
	}
	s, channels, target, err := trial.ReadWindowsCSV(br, *data)
	if err != nil {
		return err
	}
	if want, ok := meta[metaChannels]; ok {
		got, _ := json.Marshal(channels)
		if string(got) != want || meta[metaTarget] != strconv.Itoa(target) {
			return fmt.Errorf("%s has channels %s (target %d) but the checkpoint was trained on %s (target %s); export the windows of its track", *data, got, target, want, meta[metaTarget])
		}
	}
	mse, err := trial.Evaluate(m, s)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "mse %s over %d windows (last position, %d steps, normalized scale)\n", strconv.FormatFloat(mse, 'g', -1, 64), s.N, s.H)
	return nil
}

// afterStamp is the first line of text after the data stamp, if any
// (trial.WriteStamp).
func afterStamp(text string) string {
	line, rest, _ := strings.Cut(text, "\n")
	if _, _, ok := trial.ReadStamp(line); ok {
		line, _, _ = strings.Cut(rest, "\n")
	}
	return line
}
