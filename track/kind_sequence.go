package track

import (
	"context"
	"fmt"
)

// SeedRationale is the seed report's rationale: the sequence track with
// the fading-memory gate, in one sentence.
const SeedRationale = "Sequence forecast contains multi-token temporal correlations and matches the proposed per-token fading-memory transformer gate."

// sequenceDescription is the sequence track's description for any idea.
const sequenceDescription = "Sequence forecast: every window continues one series, which carries multi-token temporal correlations."

// sequenceKind is the sequence track (Sequence) under the protocol's
// "sequence" block, which every protocol carries.
type sequenceKind struct{ forecastKind }

func (sequenceKind) Name() string { return "sequence" }

func (sequenceKind) Validate(b *Blocks) []error {
	c := b.Sequence
	if err := c.Validate(); err != nil {
		return blockErrors("sequence", err)
	}
	if c.TrainWindows < c.T+1 {
		return []error{fmt.Errorf("sequence.train_windows = %d: the linear reference forecaster needs at least sequence.t+1 = %d; raise it to %d or more", c.TrainWindows, c.T+1, c.T+1)}
	}
	return nil
}

// Profile: full runs one long nearly linear-Gaussian series with the
// linear skip path, which starts the model at linear_ar, on 8x the seed
// report's windows; ci on 128/64/64 windows; seed keeps the seed
// report's.
func (sequenceKind) Profile(name string, b *Blocks) Training {
	tr := Training{LRs: []float64{0.0015, 0.005, 0.015}, Epochs: 12, Patience: 3, Patch: 4, Skip: true}
	switch name {
	case "full":
		b.Sequence.TrainWindows = 8192
	case "ci":
		b.Sequence.TrainWindows, b.Sequence.ValWindows, b.Sequence.TestWindows = 128, 64, 64
		tr.Epochs = 3
	}
	return tr
}

func (sequenceKind) Restore(dst, src *Blocks) { dst.Sequence = src.Sequence }

func (sequenceKind) Describe(*Blocks) string { return sequenceDescription }

func (sequenceKind) Key(b *Blocks, _ string) (SequenceConfig, KeyBlocks) {
	return b.Sequence, KeyBlocks{}
}

func (sequenceKind) Window(b *Blocks) (t, h int, ok bool) {
	return b.Sequence.T, b.Sequence.H, true
}

func (sequenceKind) LookBacks() bool      { return false }
func (sequenceKind) Several(*Blocks) bool { return false }
func (sequenceKind) Files(*Blocks) []File { return nil }

// GeneratedBytes counts the series and the windows cut from it.
func (sequenceKind) GeneratedBytes(b *Blocks) float64 {
	c := b.Sequence
	return 2 * windowBytes(c.TrainWindows+c.ValWindows+c.TestWindows, c.T, c.H, 1)
}

// shrink names the fields that size the windows (GeneratedLimit).
func (sequenceKind) shrink() string {
	return "lower sequence.train_windows, sequence.val_windows or sequence.test_windows, or sequence.t"
}

func (sequenceKind) Data(_ context.Context, b *Blocks, _ []int, _ float64) (*Dataset, string, error) {
	ds, err := Sequence(b.Sequence)
	if err != nil {
		return nil, "", fmt.Errorf("track: sequence: %w", err)
	}
	return ds, "", nil
}
