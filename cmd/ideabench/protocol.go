package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/track"
)

// protoFlags are the flags that choose a protocol, shared by run, train
// and data: a profile, a config file over it, then the track flags over
// both.
type protoFlags struct {
	fs                                   *flag.FlagSet
	config, profile, track, data, target *string
	features, split                      *string
	t, h                                 *int
}

func protocolFlags(fs *flag.FlagSet) *protoFlags {
	return &protoFlags{
		fs:       fs,
		config:   fs.String("config", "", "JSON protocol file, applied over the profile"),
		profile:  fs.String("profile", "full", "starting protocol: full (the default), seed (the seed report's protocol) or ci (small data)"),
		track:    fs.String("track", "", "panel, sequence or csv (default: the profile's or config's track)"),
		data:     fs.String("data", "", "csv track: the CSV file (first column a timestamp)"),
		target:   fs.String("target", "", "csv track: the column to forecast (e.g. OT)"),
		features: fs.String("features", "", "csv track: input columns, comma-separated (default: all; the target is always one)"),
		split:    fs.String("csv-split", "", "csv track: ett-hour, ett-minute or fractions (default: by the file's length and step)"),
		t:        fs.Int("context", 0, "csv track: context length, the config's csv.t (default 96)"),
		h:        fs.Int("horizon", 0, "csv track: horizon, the config's csv.h (default 96)"),
	}
}

// protocol builds and validates the chosen protocol; errors wrap
// errUsage.
func (f *protoFlags) protocol() (harness.Protocol, error) {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	// The profile is taken on the final track (the flag's, else the
	// config file's), so --track csv brings the csv track's model and
	// grids.
	trk := ""
	if *f.config != "" {
		t, err := harness.ConfigTrack(*f.config)
		if err != nil {
			return harness.Protocol{}, fmt.Errorf("%w: %v", errUsage, err)
		}
		trk = t
	}
	if set["track"] {
		trk = *f.track
	}
	p, err := harness.ProfileFor(*f.profile, trk)
	if err != nil {
		return p, fmt.Errorf("%w: --profile: %v", errUsage, err)
	}
	if *f.config != "" {
		if p, err = harness.LoadProtocol(*f.config, p); err != nil {
			return p, fmt.Errorf("%w: %v", errUsage, err)
		}
	}
	if set["track"] {
		p.Track = *f.track
	}
	csvFlag := set["data"] || set["target"] || set["features"] || set["csv-split"] || set["context"] || set["horizon"]
	if csvFlag && !set["track"] && p.Track != "csv" {
		return p, fmt.Errorf("%w: --data, --target, --features, --csv-split, --context and --horizon describe the csv track; add --track csv", errUsage)
	}
	if p.Track == "csv" {
		c := track.CSVConfig{T: 96, H: 96}
		if p.CSV != nil {
			c = *p.CSV
		}
		if set["data"] {
			c.Path = *f.data
		}
		if set["target"] {
			c.Target = *f.target
		}
		if set["features"] {
			c.Features = strings.Split(*f.features, ",")
		}
		if set["csv-split"] {
			c.Split = *f.split
		}
		if set["context"] {
			c.T = *f.t
		}
		if set["horizon"] {
			c.H = *f.h
		}
		p.CSV = &c
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("%w: %v", errUsage, err)
	}
	return p, nil
}
