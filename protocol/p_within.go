package protocol

import (
	"fmt"

	"github.com/ideabench/ideabench/track"
)

// DataWithin builds the protocol's data (Data), first refusing a
// generated track whose windows alone exceed l.MaxBytes, and a csv track
// whose windows would (csvBytes), read from its file before they are cut.
func (p Protocol) DataWithin(l Limits) (*Data, error) {
	if b := p.dataEstimate(); l.MaxBytes > 0 && b > l.MaxBytes {
		return nil, fmt.Errorf("harness: %w: the %s track's windows need about %s of memory but %s is available; lower its train_windows, val_windows or test_windows", ErrBeyondLimits, p.Track, bytesText(b), bytesText(l.MaxBytes))
	}
	if p.Track != "csv" || p.CSV == nil {
		return p.Data()
	}
	tab, err := track.LoadCSV(p.CSV.Path)
	if err != nil {
		return nil, err
	}
	if b := p.csvBytes(tab); l.MaxBytes > 0 && b > l.MaxBytes {
		return nil, fmt.Errorf("harness: %w: the csv track's windows of %s need about %s of memory but %s is available; forecast fewer columns (csv.features), use csv.channels %q (each column alone, its rows only), or a shorter look-back", ErrBeyondLimits, p.CSV.Path, bytesText(b), bytesText(l.MaxBytes), track.ChannelsIndependent)
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
