package protocol

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/track"
)

// Data is a protocol's track, built: the dataset and the identity of its
// source data, which trial ids include.
type Data struct {
	*track.Dataset
	// SHA256 is the hex SHA-256 of the csv track's file; empty for the
	// sequence track, which its config fixes.
	SHA256 string
}

// Data builds the protocol's track through its kind (track.Kind.Data):
// generated from its block, or read from its file.
func (p Protocol) Data() (*Data, error) { return p.data(context.Background(), 0) }

// data builds the track, refusing a file's windows beyond maxBytes (0:
// no limit). An error of the block's settings against the data is
// ErrConfig; windows beyond maxBytes are ErrBeyondLimits.
func (p Protocol) data(ctx context.Context, maxBytes float64) (*Data, error) {
	k, ok := track.LookupKind(p.Track)
	if !ok {
		return nil, fmt.Errorf("protocol: track = %q: unknown track; use %s", p.Track, orList(kindNames()))
	}
	ds, sha, err := k.Data(ctx, &p.Blocks, p.Contexts(), maxBytes)
	var ce *track.ConfigError
	var le *track.LimitError
	switch {
	case errors.As(err, &le):
		return nil, limitError(le, maxBytes)
	case errors.As(err, &ce):
		return nil, configError(ce.Err)
	case err != nil:
		return nil, err
	}
	return &Data{Dataset: ds, SHA256: sha}, nil
}

// Contexts lists the look-backs the grids name (Cfg.Context, 0 read as
// the track's t), ascending, without repeats.
func (p Protocol) Contexts() []int {
	t, _ := p.window()
	seen := map[int]bool{}
	var out []int
	for _, c := range append(append(append([]Cfg(nil), p.Baseline...), p.Idea...), ideaGrids(p)...) {
		k := c.Context
		if k == 0 {
			k = t
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Rationale is the report's mechanism_signature.track_rationale: what
// the track asks of a model (track.Kind.Describe), then what the idea
// arm's idea acts on (idea.Spec.Rationale), so each idea reads its own
// reason. The gate on the sequence track reads the seed report's own
// sentence (track.SeedRationale), which says both in one.
func Rationale(p Protocol) string {
	var ic idea.Config
	if len(p.Idea) > 0 {
		ic = p.Idea[0].IdeaConfig()
	}
	k, ok := track.LookupKind(p.Track)
	if !ok || (p.Track == "sequence" && ic.Name == "gate") {
		return track.SeedRationale
	}
	why := idea.RationaleOf(ic)
	if why == "" {
		return k.Describe(&p.Blocks)
	}
	return k.Describe(&p.Blocks) + " " + why
}

// limitError is the refusal of le, a track's windows beyond maxBytes,
// wrapping ErrBeyondLimits.
func limitError(le *track.LimitError, maxBytes float64) error {
	return fmt.Errorf("protocol: %w: %s need about %s of memory but %s is available; %s", ErrBeyondLimits, le.What, bytesText(le.Need), bytesText(maxBytes), le.Fix)
}

// generatedLimit refuses a generated track whose windows alone exceed
// maxBytes (track.GeneratedLimit), before any is drawn; nil for a track
// read from a file, which Data checks from the file.
func (p Protocol) generatedLimit(maxBytes float64) error {
	k, ok := p.Kind()
	if !ok {
		return nil
	}
	var le *track.LimitError
	if errors.As(track.GeneratedLimit(k, &p.Blocks, maxBytes), &le) {
		return limitError(le, maxBytes)
	}
	return nil
}

// DataWithin builds the protocol's data (Data), first refusing a
// generated track whose windows alone exceed l.MaxBytes, before any is
// drawn, and a track read from a file whose windows would, read from its
// file before they are cut (track.Kind.Data); each refusal names the
// block's fields to lower. Reading the file stops once ctx is done.
// CheckBefore weighs the models beside the windows as well.
func (p Protocol) DataWithin(ctx context.Context, l Limits) (*Data, error) {
	if err := p.generatedLimit(l.MaxBytes); err != nil {
		return nil, err
	}
	return p.data(ctx, l.MaxBytes)
}

// Kind returns the protocol's track kind (track.LookupKind); false for
// a track no kind is registered under, which Validate refuses.
func (p Protocol) Kind() (track.Kind, bool) { return track.LookupKind(p.Track) }

// Direction is the direction of the track's metric
// (track.Kind.LowerIsBetter); lower is better on an unknown track.
func (p Protocol) Direction() stats.Direction {
	if k, ok := p.Kind(); ok && !k.LowerIsBetter() {
		return stats.HigherIsBetter
	}
	return stats.LowerIsBetter
}

// MetricName is the name of the track's test metric in labels
// (track.Kind.Metric); "MSE" on an unknown track.
func (p Protocol) MetricName() string {
	if k, ok := p.Kind(); ok {
		return k.Metric()
	}
	return "MSE"
}

// References fits the track kind's reference predictors on ds at the
// grid's look-backs (track.Kind.References).
func (p Protocol) References(ds *track.Dataset) (*track.Forecasters, error) {
	k, ok := p.Kind()
	if !ok {
		return nil, fmt.Errorf("protocol: track = %q: unknown track; use %s", p.Track, orList(kindNames()))
	}
	return k.References(ds, p.Contexts())
}

// Judge sets the best reference of f, the baseline's margin over it and
// its competence from the baseline's test mean (track.Kind.Judge).
func (p Protocol) Judge(f *track.Forecasters, baseline float64) {
	if k, ok := p.Kind(); ok {
		k.Judge(f, baseline)
		return
	}
	f.Judge(baseline)
}
