package track

import (
	"context"
	"errors"
	"fmt"
)

// csvKind is a real series read from a CSV file (CSV) under the
// protocol's "csv" block.
type csvKind struct{ forecastKind }

func (csvKind) Name() string { return "csv" }

func (csvKind) Validate(b *Blocks) []error {
	if b.CSV == nil {
		return []error{errors.New(`csv: missing; the csv track needs {"path": FILE, "target": COLUMN, "t": 96, "h": 96}`)}
	}
	return unjoin(b.CSV.Validate()) // its errors name csv.<key> already
}

// Profile: d=32, 4 heads, L=2, batch 32, tokens of 16 positions, norm
// "last", the linear skip path starting where val prefers (skip_start
// "val"), the last token's forecast trained; 20 epochs (ci: 2), patience
// 5, of at most 32768 windows: all of ETTh1's 8449, and a seeded sample
// of the 765 576 of weather's 21 channels, so early stopping looks at
// val every 32768 windows and the protocol fits an hour at 2 workers.
// The block comes from the caller.
func (csvKind) Profile(name string, _ *Blocks) Training {
	tr := Training{LRs: []float64{0.0001, 0.0003, 0.001}, Epochs: 20, Patience: 5, EpochWindows: 32768,
		Patch: 16, Norm: "last", Skip: true, SkipStart: "val", Loss: "last"}
	if name == "ci" {
		tr.Epochs = 2
	}
	return tr
}

func (csvKind) Restore(dst, src *Blocks) { dst.CSV = src.CSV }

func (csvKind) Describe(b *Blocks) string {
	if b.CSV == nil {
		return sequenceDescription
	}
	return fmt.Sprintf("CSV forecast of %s (T=%d, H=%d): a real series, whose temporal correlations span many tokens.", b.CSV.Target, b.CSV.T, b.CSV.H)
}

// CSVKey is what a csv-track trial depends on: the task on the file and
// the file's content (not its path, so a moved file keeps its trials).
type CSVKey struct {
	Target    string   `json:"target"`
	Features  []string `json:"features,omitempty"`
	T         int      `json:"t"`
	H         int      `json:"h"`
	Split     string   `json:"split,omitempty"`
	TrainFrac float64  `json:"train_frac,omitempty"`
	ValFrac   float64  `json:"val_frac,omitempty"`
	// Channels is csv.channels: "independent" and "mixed" train on every
	// column's windows, so their trials are not the target's.
	Channels string `json:"channels,omitempty"`
	SHA256   string `json:"sha256"`
}

func (csvKind) Key(b *Blocks, dataSHA string) (SequenceConfig, KeyBlocks) {
	c := b.CSV
	if c == nil {
		return b.Sequence, KeyBlocks{}
	}
	return SequenceConfig{}, KeyBlocks{CSV: &CSVKey{Target: c.Target, Features: c.Features, T: c.T, H: c.H, Split: c.Split,
		TrainFrac: c.TrainFrac, ValFrac: c.ValFrac, Channels: c.Channels, SHA256: dataSHA}}
}

func (csvKind) Window(b *Blocks) (t, h int, ok bool) {
	if b.CSV == nil {
		return 0, 0, false
	}
	return b.CSV.T, b.CSV.H, true
}

func (csvKind) LookBacks() bool                { return true }
func (csvKind) Several(b *Blocks) bool         { return b.CSV != nil && b.CSV.Several() }
func (csvKind) GeneratedBytes(*Blocks) float64 { return 0 }

func (csvKind) Files(b *Blocks) []File {
	if b.CSV == nil {
		return nil
	}
	return []File{{Field: "csv.path", Path: b.CSV.Path, What: "the csv file"}}
}

// Data reads the file, refuses windows beyond maxBytes (csvBytes), then
// cuts the track at every look-back: the same rows, regions and
// normalization (Dataset.Other).
func (csvKind) Data(ctx context.Context, b *Blocks, contexts []int, maxBytes float64) (*Dataset, string, error) {
	if b.CSV == nil {
		return nil, "", errors.New("track: the csv track needs a csv block")
	}
	tab, err := LoadCSVContext(ctx, b.CSV.Path)
	if err != nil {
		return nil, "", err
	}
	if n := csvBytes(*b.CSV, tab, contexts); maxBytes > 0 && n > maxBytes {
		return nil, "", &LimitError{What: fmt.Sprintf("the csv track's windows of %s", b.CSV.Path), Need: n,
			Fix: fmt.Sprintf("forecast fewer columns (csv.features), use csv.channels %q (each column alone, its rows only), or a shorter look-back", ChannelsIndependent)}
	}
	ds, err := CSV(tab, *b.CSV)
	if err != nil {
		return nil, "", &ConfigError{err}
	}
	for _, t := range contexts {
		if t == ds.Train.T {
			continue
		}
		c := *b.CSV
		c.T = t
		o, err := CSV(tab, c)
		if err != nil {
			return nil, "", &ConfigError{fmt.Errorf("protocol: the look-back %d of the grid: %w", t, err)}
		}
		if ds.Other == nil {
			ds.Other = map[int]*Dataset{}
		}
		ds.Other[t] = o
	}
	return ds, tab.SHA256, nil
}

// csvBytes is about the memory of the csv track's splits on tab at every
// look-back: windows copied one by one (the target forecast from C
// columns: N·(T·C+T+H) values), every column's rows once (channels
// "independent"), or C rotated copies of them (channels "mixed": C²·rows
// values).
func csvBytes(cc CSVConfig, tab *Table, contexts []int) float64 {
	c := len(tab.Columns)
	if len(cc.Features) > 0 {
		c = len(cc.Features) + 1
	}
	rows := float64(tab.Rows())
	var b float64
	for _, t := range contexts {
		switch cc.Channels {
		case ChannelsIndependent:
			b += 8 * rows * float64(c)
		case ChannelsMixed:
			b += 8 * rows * float64(c) * float64(c+1)
		default:
			b += 8 * rows * float64(t*c+t+cc.H)
		}
	}
	return b
}
