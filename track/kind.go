package track

import (
	"context"
	"fmt"
	"slices"
)

// Kind is a kind of track: everything the layers above track (protocol,
// harness, derive, report, plots, the command line) ask of a track,
// so that none of them decides anything by a kind's name. A kind owns
// one block of a protocol's JSON (its field in Blocks, keyed by its
// name), builds its Dataset from it, and says what its models are
// trained on, how they are scored, against which references, and when
// a tuned baseline is good enough for the track to judge an idea.
//
// A kind is registered once (kinds, or Register from an init function)
// and looked up by name (LookupKind).
type Kind interface {
	// Name is the kind's name: a protocol's "track" and the JSON key of
	// its block.
	Name() string

	// Validate reports every unusable field of the kind's block in b,
	// each shaped "<name>.<key> = <value>: <what is wrong>; <fix>", or
	// "<name>: missing; ..." when b lacks the block.
	Validate(b *Blocks) []error
	// Profile sets the kind's block in b to its value under the named
	// profile ("full", "ci" or "seed") and returns the training the
	// profile gives the track (ignored by "seed", which keeps its own).
	Profile(name string, b *Blocks) Training
	// Restore sets the kind's block in dst to the one in src.
	Restore(dst, src *Blocks)
	// Describe says, in sentences of its own and of no idea, what the
	// track asks of a model; the report's rationale
	// (mechanism_signature.track_rationale) follows it with what the
	// idea acts on (protocol.Rationale).
	Describe(b *Blocks) string
	// Key is the kind's part of a trial key: the sequence block (zero
	// unless the kind reads it) and the kind's entry of KeyBlocks;
	// dataSHA is the SHA-256 of the data file (Data), empty for a
	// generated track.
	Key(b *Blocks, dataSHA string) (SequenceConfig, KeyBlocks)

	// Window is the track's context length and horizon; false when b
	// lacks the block.
	Window(b *Blocks) (t, h int, ok bool)
	// LookBacks reports whether the kind cuts its windows at several
	// look-backs (a grid's Cfg.Context).
	LookBacks() bool
	// Several reports whether the track forecasts several series (the
	// series layout of Split, Dataset.Series).
	Several(b *Blocks) bool
	// Files lists the files the block reads, each with the JSON path
	// that names it, so they can be checked before anything runs.
	Files(b *Blocks) []File
	// GeneratedBytes is about the memory of a generated track's windows,
	// read from its block before they are drawn; 0 for a track read
	// from a file, whose size Data checks.
	GeneratedBytes(b *Blocks) float64
	// Data builds the track at every look-back of contexts (ascending;
	// the track's own t among them), reading its files until ctx is
	// done, and returns the SHA-256 of its data file ("" for a
	// generated track). With maxBytes > 0 a track read from a file whose
	// windows would need more returns a *LimitError; an error of the
	// block's settings against the data is a *ConfigError.
	Data(ctx context.Context, b *Blocks, contexts []int, maxBytes float64) (ds *Dataset, sha string, err error)

	// Loss is the name of the training loss of the track's models in
	// labels ("MSE").
	Loss() string
	// Metric is the name of the test metric in labels ("MSE").
	Metric() string
	// MetricScope says what the metric is taken over, after its name in
	// a sentence: "of the last position" (the H forecasts of each
	// window's last position), "over the labelled positions".
	MetricScope() string
	// LowerIsBetter reports the metric's direction.
	LowerIsBetter() bool
	// Tokens reports whether the track's models read token ids (the
	// Dataset's Tokens) rather than forecast windows.
	Tokens() bool
	// References fits the kind's reference predictors on the train
	// split of ds at each look-back of contexts and scores them on val
	// and test (References).
	References(ds *Dataset, contexts []int) (*Forecasters, error)
	// Judge sets the best reference of f, the baseline's margin over it
	// and whether the baseline, of test mean baseline, is competent
	// (Forecasters.Judge): the rule without which a track cannot judge
	// an idea.
	Judge(f *Forecasters, baseline float64)
}

// Training is what a profile trains on a track (Kind.Profile): the
// learning rates both arms sweep, the epochs, early stopping and epoch
// size of every cfg, and the model's tokens, normalization, skip path
// and loss (the fields of the protocol's arch with those names).
type Training struct {
	LRs          []float64
	Epochs       int
	Patience     int
	EpochWindows int
	Patch        int
	Norm         string
	Skip         bool
	SkipStart    string
	Loss         string

	// D and Batch are the model's width and the training batch; 0 is
	// the profile's (32 and 32). WeightDecay and Warmup are AdamW's decay
	// and the warmup fraction of every cfg; 0 is the profile's (0.05
	// each).
	D, Batch            int
	WeightDecay, Warmup float64
}

// Blocks are the data blocks of a protocol, one per kind, under the
// kind's name. The sequence block is always present (the seed report's
// schema); every other kind's block is a pointer left out when nil.
type Blocks struct {
	Sequence SequenceConfig `json:"sequence"`        // data of the sequence track
	Panel    *PanelConfig   `json:"panel,omitempty"` // data of the panel track
	CSV      *CSVConfig     `json:"csv,omitempty"`   // data of the csv track
	TSF      *TSFConfig     `json:"tsf,omitempty"`   // data of the tsf track (a real panel)

	// The token tracks' blocks (kind_token.go).
	MQAR          *MQARConfig             `json:"mqar,omitempty"`
	ForgetMQAR    *ForgettingMQARConfig   `json:"forget-mqar,omitempty"`
	Recall        *MADRecallConfig        `json:"recall,omitempty"`
	NoisyRecall   *MADRecallConfig        `json:"noisy-recall,omitempty"`
	FuzzyRecall   *MADFuzzyRecallConfig   `json:"fuzzy-recall,omitempty"`
	SelectiveCopy *MADSelectiveCopyConfig `json:"selective-copy,omitempty"`
}

// DefaultBlocks are the blocks every profile starts from: the default
// sequence block, no other.
func DefaultBlocks() Blocks { return Blocks{Sequence: DefaultSequenceConfig()} }

// Clone returns b with copies of its pointer blocks, so that decoding
// into the copy leaves b unchanged.
func (b Blocks) Clone() Blocks {
	if b.Panel != nil {
		c := *b.Panel
		b.Panel = &c
	}
	if b.CSV != nil {
		c := *b.CSV
		c.Features = slices.Clone(c.Features)
		b.CSV = &c
	}
	b.TSF = clonePtr(b.TSF)
	b.MQAR, b.ForgetMQAR, b.Recall = clonePtr(b.MQAR), clonePtr(b.ForgetMQAR), clonePtr(b.Recall)
	b.NoisyRecall, b.FuzzyRecall, b.SelectiveCopy = clonePtr(b.NoisyRecall), clonePtr(b.FuzzyRecall), clonePtr(b.SelectiveCopy)
	return b
}

// KeyBlocks are the kinds' entries of a trial key (Kind.Key) after the
// sequence block; each is left out when nil.
type KeyBlocks struct {
	CSV   *CSVKey      `json:"csv,omitempty"`   // the csv track; its Sequence is then zero
	TSF   *TSFKey      `json:"tsf,omitempty"`   // the tsf track; its Sequence is then zero
	Panel *PanelConfig `json:"panel,omitempty"` // the panel track; its Sequence is then zero

	// The token tracks' blocks; each track's Sequence is then zero.
	MQAR          *MQARConfig             `json:"mqar,omitempty"`
	ForgetMQAR    *ForgettingMQARConfig   `json:"forget-mqar,omitempty"`
	Recall        *MADRecallConfig        `json:"recall,omitempty"`
	NoisyRecall   *MADRecallConfig        `json:"noisy-recall,omitempty"`
	FuzzyRecall   *MADFuzzyRecallConfig   `json:"fuzzy-recall,omitempty"`
	SelectiveCopy *MADSelectiveCopyConfig `json:"selective-copy,omitempty"`
}

// File is a file a block reads (Kind.Files).
type File struct {
	Field string // its JSON path, e.g. "csv.path"
	Path  string
	What  string // what it is, in messages: "the csv file"
}

// ConfigError is an error of a block's settings against the data it
// reads (a column the file lacks, too few rows for the split): the user
// fixes the settings. Its text is Err's.
type ConfigError struct{ Err error }

func (e *ConfigError) Error() string { return e.Err.Error() }
func (e *ConfigError) Unwrap() error { return e.Err }

// LimitError says that a track's windows would need Need bytes, more
// than the memory at hand (Kind.Data).
type LimitError struct {
	// What names the windows, e.g. "the csv track's windows of ETTh1.csv".
	What string
	// Need is the memory they would need, in bytes.
	Need float64
	// Fix says how to need less.
	Fix string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("track: %s need about %.3g bytes; %s", e.What, e.Need, e.Fix)
}

// GeneratedLimit returns a *LimitError when the windows of the generated
// track of kind k, as its block in b describes them (Kind.GeneratedBytes),
// need more than maxBytes: the check to make before drawing them, which
// Data cannot, as the drawing is its first step. nil when they fit,
// when maxBytes is 0 and for a track read from a file (Data checks its
// windows from the file).
func GeneratedLimit(k Kind, b *Blocks, maxBytes float64) error {
	need := k.GeneratedBytes(b)
	if maxBytes <= 0 || need <= maxBytes {
		return nil
	}
	// A kind names the fields that size its windows; a registered kind
	// that does not is told to shrink its block.
	fix := fmt.Sprintf("shrink the %s block's windows", k.Name())
	if s, ok := k.(interface{ shrink() string }); ok {
		fix = s.shrink()
	}
	return &LimitError{What: fmt.Sprintf("the %s track's windows", k.Name()), Need: need, Fix: fix}
}

// kinds is the registry of track kinds, in the order messages list
// them: one line each.
var kinds = []Kind{
	panelKind{},
	sequenceKind{},
	csvKind{},
	tsfKind{},
	tokenKinds[0], // mqar
	tokenKinds[1], // forget-mqar
	tokenKinds[2], // recall
	tokenKinds[3], // noisy-recall
	tokenKinds[4], // fuzzy-recall
	tokenKinds[5], // selective-copy
}

// Register adds a kind to the registry. A kind without a name or with
// the name of a registered one is a programmer error.
func Register(k Kind) {
	if k.Name() == "" {
		panic("track: Register: a kind needs a name")
	}
	if _, dup := LookupKind(k.Name()); dup {
		panic("track: Register: kind " + k.Name() + " is registered already")
	}
	kinds = append(kinds, k)
}

// LookupKind returns the registered kind of that name.
func LookupKind(name string) (Kind, bool) {
	i := slices.IndexFunc(kinds, func(k Kind) bool { return k.Name() == name })
	if i < 0 {
		return nil, false
	}
	return kinds[i], true
}

// KindNames lists the registered kinds' names, sorted.
func KindNames() []string {
	out := make([]string, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, k.Name())
	}
	slices.Sort(out)
	return out
}

// Kinds lists the registered kinds in registry order (panel, sequence,
// csv, then those Register added), the order messages list them in.
func Kinds() []Kind { return slices.Clone(kinds) }
