package protocol

import (
	"context"
	"fmt"
	"slices"

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

// Data builds the protocol's track: the sequence track from its config,
// or the csv track from its file.
func (p Protocol) Data() (*Data, error) {
	switch p.Track {
	case "csv":
		if p.CSV == nil {
			return nil, fmt.Errorf("protocol: the csv track needs a csv block")
		}
		tab, err := track.LoadCSV(p.CSV.Path)
		if err != nil {
			return nil, err
		}
		return p.csvData(tab)
	case "panel":
		if p.Panel == nil {
			return nil, fmt.Errorf("protocol: the panel track needs a panel block")
		}
		ds, err := track.Panel(*p.Panel)
		if err != nil {
			return nil, fmt.Errorf("protocol: panel: %w", err)
		}
		return &Data{Dataset: ds}, nil
	default:
		ds, err := track.Sequence(p.Sequence)
		if err != nil {
			return nil, fmt.Errorf("protocol: sequence: %w", err)
		}
		return &Data{Dataset: ds}, nil
	}
}

// csvData builds the csv track of p on the table tab (Data). An error is
// of the settings (ErrConfig): the file was read, and the csv block asks
// for what it does not hold (a column, rows for the split and window),
// or for a column that cannot be standardized.
func (p Protocol) csvData(tab *track.Table) (*Data, error) {
	ds, err := track.CSV(tab, *p.CSV)
	if err != nil {
		return nil, configError(err)
	}
	for _, t := range p.Contexts() {
		if t == ds.Train.T {
			continue
		}
		c := *p.CSV
		c.T = t
		o, err := track.CSV(tab, c)
		if err != nil {
			return nil, configError(fmt.Errorf("protocol: the look-back %d of the grid: %w", t, err))
		}
		if ds.Other == nil {
			ds.Other = map[int]*track.Dataset{}
		}
		ds.Other[t] = o
	}
	return &Data{Dataset: ds, SHA256: tab.SHA256}, nil
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

// Rationale is the report's mechanism_signature.track_rationale.
func Rationale(p Protocol) string {
	if p.Track == "panel" {
		return PanelRationale
	}
	if p.Track == "csv" && p.CSV != nil {
		return fmt.Sprintf("Multivariate CSV forecast of %s (T=%d, H=%d): real series with daily and weekly cycles carry multi-token temporal correlations, where a per-token fading-memory gate can act.", p.CSV.Target, p.CSV.T, p.CSV.H)
	}
	return TrackRationale
}

// PanelRationale is the report's rationale for the panel track.
const PanelRationale = "Panel forecast: every window is its own series of sinusoids under AR(1) noise, so the model must infer periods, amplitudes and phases in context; a per-token fading-memory gate can weigh the evidence it accumulates over the window."

// TrackRationale is the seed report's rationale for the sequence track.
const TrackRationale = "Sequence forecast contains multi-token temporal correlations and matches the proposed per-token fading-memory transformer gate."

// DataWithin builds the protocol's data (Data), first refusing a
// generated track whose windows alone exceed l.MaxBytes, and a csv track
// whose windows would (csvBytes), read from its file before they are cut.
// Reading the file stops once ctx is done (track.LoadCSVContext).
func (p Protocol) DataWithin(ctx context.Context, l Limits) (*Data, error) {
	if b := p.dataEstimate(); l.MaxBytes > 0 && b > l.MaxBytes {
		return nil, fmt.Errorf("protocol: %w: the %s track's windows need about %s of memory but %s is available; lower its train_windows, val_windows or test_windows", ErrBeyondLimits, p.Track, bytesText(b), bytesText(l.MaxBytes))
	}
	if p.Track != "csv" || p.CSV == nil {
		return p.Data()
	}
	tab, err := track.LoadCSVContext(ctx, p.CSV.Path)
	if err != nil {
		return nil, err
	}
	if b := p.csvBytes(tab); l.MaxBytes > 0 && b > l.MaxBytes {
		return nil, fmt.Errorf("protocol: %w: the csv track's windows of %s need about %s of memory but %s is available; forecast fewer columns (csv.features), use csv.channels %q (each column alone, its rows only), or a shorter look-back", ErrBeyondLimits, p.CSV.Path, bytesText(b), bytesText(l.MaxBytes), track.ChannelsIndependent)
	}
	return p.csvData(tab)
}

// csvBytes is about the memory of the csv track's splits on tab at every
// look-back of the grid: windows copied one by one (the target forecast
// from C columns: N·(T·C+T+H) values), every column's rows once
// (channels "independent"), or C rotated copies of them (channels
// "mixed": C²·rows values).
func (p Protocol) csvBytes(tab *track.Table) float64 {
	c := len(tab.Columns)
	if len(p.CSV.Features) > 0 {
		c = len(p.CSV.Features) + 1
	}
	rows := float64(tab.Rows())
	var b float64
	for _, t := range p.Contexts() {
		switch p.CSV.Channels {
		case track.ChannelsIndependent:
			b += 8 * rows * float64(c)
		case track.ChannelsMixed:
			b += 8 * rows * float64(c) * float64(c+1)
		default:
			b += 8 * rows * float64(t*c+t+p.CSV.H)
		}
	}
	return b
}
