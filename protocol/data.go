package protocol

import (
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
			return nil, fmt.Errorf("harness: the csv track needs a csv block")
		}
		tab, err := track.LoadCSV(p.CSV.Path)
		if err != nil {
			return nil, err
		}
		return p.csvData(tab)
	case "panel":
		if p.Panel == nil {
			return nil, fmt.Errorf("harness: the panel track needs a panel block")
		}
		ds, err := track.Panel(*p.Panel)
		if err != nil {
			return nil, fmt.Errorf("harness: panel: %w", err)
		}
		return &Data{Dataset: ds}, nil
	default:
		ds, err := track.Sequence(p.Sequence)
		if err != nil {
			return nil, fmt.Errorf("harness: sequence: %w", err)
		}
		return &Data{Dataset: ds}, nil
	}
}

// csvData builds the csv track of p on the table tab (Data).
func (p Protocol) csvData(tab *track.Table) (*Data, error) {
	ds, err := track.CSV(tab, *p.CSV)
	if err != nil {
		return nil, err
	}
	for _, t := range p.Contexts() {
		if t == ds.Train.T {
			continue
		}
		c := *p.CSV
		c.T = t
		o, err := track.CSV(tab, c)
		if err != nil {
			return nil, fmt.Errorf("harness: the look-back %d of the grid: %w", t, err)
		}
		if ds.Other == nil {
			ds.Other = map[int]*track.Dataset{}
		}
		ds.Other[t] = o
	}
	return &Data{Dataset: ds, SHA256: tab.SHA256}, nil
}

// contexts lists the look-backs the grids name (Cfg.Context, 0 read as
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

// trackRationale is the report's mechanism_signature.track_rationale.
func Rationale(p Protocol) string {
	if p.Track == "panel" {
		return PanelRationale
	}
	if p.Track == "csv" && p.CSV != nil {
		return fmt.Sprintf("Multivariate CSV forecast of %s (T=%d, H=%d): real series with daily and weekly cycles carry multi-token temporal correlations, where a per-token fading-memory gate can act.", p.CSV.Target, p.CSV.T, p.CSV.H)
	}
	return TrackRationale
}
