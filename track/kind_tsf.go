package track

import (
	"context"
	"errors"
	"fmt"
)

// TSFConfig is the tsf track's block: a real panel (NewRealPanel) from
// a .tsf file of the Monash archive.
type TSFConfig struct {
	// Path is the .tsf file.
	Path string `json:"path"`
	// T is the look-back in steps.
	T int `json:"t"`
	// H is the horizon. The archive's is the file's @horizon; another
	// makes the run another task than the archive's, which the report's
	// data notes say (NewRealPanel) and beside which the archive's
	// published MASE is not shown.
	H int `json:"h"`
	// Period is the MASE and seasonal naive lag; 0 takes the archive's
	// for the file's @frequency (MASEPeriod).
	Period int `json:"period,omitempty"`
}

// TSFKey is what a tsf-track trial depends on: the task on the file and
// the file's content (not its path).
type TSFKey struct {
	T      int    `json:"t"`
	H      int    `json:"h"`
	Period int    `json:"period,omitempty"`
	SHA256 string `json:"sha256"`
	// MASE says the trial records its test MASE (trial.Result.TestMASE)
	// beside its MSE; a record made before it did has another key.
	MASE bool `json:"mase"`
}

// tsfKind is the tsf track: one global model over the series of a .tsf
// file, cut by the archive's protocol.
type tsfKind struct{ forecastKind }

func (tsfKind) Name() string { return "tsf" }

func (tsfKind) Validate(b *Blocks) []error {
	c := b.TSF
	if c == nil {
		return []error{errors.New(`tsf: missing; the tsf track needs its block, e.g. {"path": "electricity_weekly_dataset.tsf", "t": 52, "h": 8}`)}
	}
	var errs []error
	if c.Path == "" {
		errs = append(errs, errors.New("tsf.path: empty; name the .tsf file"))
	}
	if c.T < 1 {
		errs = append(errs, fmt.Errorf("tsf.t = %d: the look-back must be at least 1; e.g. 52 (a year of weeks)", c.T))
	}
	if c.H < 1 {
		errs = append(errs, fmt.Errorf("tsf.h = %d: the horizon must be at least 1; the archive's is the file's @horizon (8 for its weekly sets)", c.H))
	}
	if c.Period < 0 {
		errs = append(errs, fmt.Errorf("tsf.period = %d: must be at least 1, or 0 for the archive's period of the file's @frequency", c.Period))
	}
	return errs
}

// Profile: the block is the user's (its file); full trains 96 epochs of
// at most 32768 windows in patches of 4 steps, and as the csv track's
// model does: each window minus its last value (norm "last"), the last
// token's forecast trained, and a linear skip path that starts at the
// shared least-squares fit of the normalized windows (the centred map,
// under norm "last"), so the model starts as that reference and early
// stopping keeps it unless training beats it on val (without them the model of the panel track's profile ends
// 24% worse than the per-series map on NN5 weekly); ci 3 epochs.
func (tsfKind) Profile(name string, b *Blocks) Training {
	tr := Training{LRs: []float64{0.0003, 0.001, 0.003}, Epochs: 96, Patience: 12, EpochWindows: 32768, Patch: 4,
		Norm: "last", Skip: true, SkipStart: "val", Loss: "last"}
	if name == "ci" {
		tr.Epochs, tr.Patience = 3, 3
	}
	return tr
}

func (tsfKind) Restore(dst, src *Blocks) { dst.TSF = src.TSF }

func (tsfKind) Describe(b *Blocks) string {
	t := 0
	if b.TSF != nil {
		t = b.TSF.T
	}
	return fmt.Sprintf("Real panel forecast (the Monash archive's protocol): many short real series and one global model over all of them, each series normalized by its own training part, a look-back of %d steps.", t)
}

func (tsfKind) Key(b *Blocks, dataSHA string) (SequenceConfig, KeyBlocks) {
	c := b.TSF
	if c == nil {
		return b.Sequence, KeyBlocks{}
	}
	return SequenceConfig{}, KeyBlocks{TSF: &TSFKey{T: c.T, H: c.H, Period: c.Period, SHA256: dataSHA, MASE: true}}
}

func (tsfKind) Window(b *Blocks) (t, h int, ok bool) {
	if b.TSF == nil {
		return 0, 0, false
	}
	return b.TSF.T, b.TSF.H, true
}

// References are the forecasting kinds' references, and the archive's
// (RealPanel.AddReferences): SES, Theta, and every reference's MASE.
func (k tsfKind) References(ds *Dataset, contexts []int) (*Forecasters, error) {
	f, err := k.forecastKind.References(ds, contexts)
	if err != nil || ds.Panel == nil {
		return f, err
	}
	if err := ds.Panel.AddReferences(f); err != nil {
		return nil, err
	}
	return f, nil
}

func (tsfKind) LookBacks() bool                { return false }
func (tsfKind) Several(*Blocks) bool           { return false }
func (tsfKind) GeneratedBytes(*Blocks) float64 { return 0 }

func (tsfKind) Files(b *Blocks) []File {
	if b.TSF == nil {
		return nil
	}
	return []File{{Field: "tsf.path", Path: b.TSF.Path, What: "the .tsf file"}}
}

// Data reads the file and cuts the real panel; its windows beyond
// maxBytes are refused.
func (tsfKind) Data(ctx context.Context, b *Blocks, _ []int, maxBytes float64) (*Dataset, string, error) {
	c := b.TSF
	if c == nil {
		return nil, "", errors.New("track: the tsf track needs a tsf block")
	}
	f, err := LoadTSFContext(ctx, c.Path)
	if err != nil {
		return nil, "", err
	}
	h := c.H
	var n float64
	for _, s := range f.Series {
		n += float64(max(len(s.Values)-3*h-c.T+1, 0) + 2)
	}
	if need := windowBytes(int(n), c.T, h, 1); maxBytes > 0 && need > maxBytes {
		return nil, "", &LimitError{What: fmt.Sprintf("the tsf track's windows of %s", c.Path), Need: need, Fix: "use a shorter look-back (tsf.t)"}
	}
	p, err := NewRealPanel(f, RealPanelConfig{T: c.T, H: c.H, Period: c.Period})
	if err != nil {
		return nil, "", &ConfigError{err}
	}
	p.Dataset.Name = "tsf"
	return p.Dataset, f.SHA256, nil
}
