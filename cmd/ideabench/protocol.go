package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"
)

// protoFlags are the flags that choose a protocol, shared by run, train
// and data: a profile, a config file over it, then the track flags over
// both.
type protoFlags struct {
	fs                                   *flag.FlagSet
	warn                                 io.Writer // notes on the protocol built
	config, profile, track, data, target *string
	features, split, seeds               *string
	dataset, dataDir, channels           *string
	t, h, patch                          *int
	// idea and ideas are run's --idea and --ideas (ideaFlags); nil on
	// the commands without them.
	idea, ideas *string
}

// ideaFlags adds --idea and --ideas to the flags (run's): the idea arm,
// and further idea arms, each on the baseline's grid.
func (f *protoFlags) ideaFlags() {
	f.idea = f.fs.String("idea", "", "the idea arm: a registered idea, with parameters as name:k=v,k=v (e.g. gate:rho=0.9,beta=0.5 or ema:alpha=0.2), trained on the baseline's grid; replaces the profile's or config's idea arm (\"ideabench help run\" lists the ideas)")
	f.ideas = f.fs.String("ideas", "", "further idea arms, ';'-separated, each on the baseline's grid (e.g. 'conv;ema;rezero'), after the config's; Holm adjusts their p-values")
}

func protocolFlags(fs *flag.FlagSet, warn io.Writer) *protoFlags {
	return &protoFlags{
		fs:       fs,
		warn:     warn,
		config:   fs.String("config", "", "JSON protocol file, applied over the profile"),
		profile:  fs.String("profile", "full", "starting protocol: full (the default), seed (the seed report's protocol) or ci (small data)"),
		track:    fs.String("track", "", "panel, sequence or csv (default: the profile's or config's track)"),
		data:     fs.String("data", "", "csv track: the CSV file (first column a timestamp)"),
		target:   fs.String("target", "", "csv track: the column to forecast (e.g. OT)"),
		features: fs.String("features", "", "csv track: input columns, comma-separated (default: all; the target is always one)"),
		split:    fs.String("csv-split", "", "csv track: ett-hour, ett-minute or fractions (default: by the file's length and step)"),
		t:        fs.Int("context", 0, "csv track: context length, the config's csv.t (default 96)"),
		h:        fs.Int("horizon", 0, "csv track: horizon, the config's csv.h (default 96)"),
		dataset:  fs.String("dataset", "", "csv track on a known data set, found by name under --data-dir and verified by its SHA-256, with its papers' split, target, look-back and horizon: "+strings.Join(track.KnownNames(), ", ")+" (ideabench datasets lists them)"),
		dataDir:  fs.String("data-dir", defaultDataDir(), "where --dataset looks for its file (default $IDEABENCH_DATA, else the current directory)"),
		channels: fs.String("channels", "", "csv track: target (forecast the target column), independent (forecast every column, each channel alone through one shared model: the multivariate setting) or mixed (every column, through one shared model that sees all of them)"),
		patch:    fs.Int("patch", 0, "input positions per token, the config's arch.patch (must divide the context; e.g. 12 for --context 36)"),
		seeds:    fs.String("seeds", "", "the training seeds, over the profile's and config's: N (seeds 0..N-1), A-B (A to B), or a list such as 0,1,5-7"),
	}
}

// defaultDataDir is --data-dir's default: $IDEABENCH_DATA, else ".".
func defaultDataDir() string {
	if d := os.Getenv("IDEABENCH_DATA"); d != "" {
		return d
	}
	return "."
}

// maxSeedsFlag bounds --seeds: every seed trains every cfg of every arm.
const maxSeedsFlag = 4096

// parseSeeds reads --seeds: "N" is the N seeds 0..N-1; otherwise a
// comma-separated list of seeds and ranges "A-B" (inclusive).
func parseSeeds(s string) ([]uint64, error) {
	bad := func(why string) error {
		return fmt.Errorf("--seeds %q: %s; write N (seeds 0..N-1), A-B, or a list such as 0,1,5-7", s, why)
	}
	num := func(x string) (uint64, error) {
		if x == "" || strings.TrimLeft(x, "0123456789") != "" {
			return 0, bad(fmt.Sprintf("%q is not a whole number >= 0", x))
		}
		v, err := strconv.ParseUint(x, 10, 64)
		if err != nil {
			return 0, bad(fmt.Sprintf("%q is out of range", x))
		}
		return v, nil
	}
	parts := strings.Split(strings.TrimSpace(s), ",")
	if len(parts) == 1 && !strings.Contains(parts[0], "-") {
		n, err := num(parts[0])
		if err != nil {
			return nil, err
		}
		if n < 2 || n > maxSeedsFlag {
			return nil, bad(fmt.Sprintf("%d seeds; a paired comparison needs 2 to %d", n, maxSeedsFlag))
		}
		out := make([]uint64, n)
		for i := range out {
			out[i] = uint64(i)
		}
		return out, nil
	}
	var out []uint64
	for _, part := range parts {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := num(lo)
		if err != nil {
			return nil, err
		}
		b := a
		if isRange {
			if b, err = num(hi); err != nil {
				return nil, err
			}
		}
		if b < a {
			return nil, bad(fmt.Sprintf("the range %d-%d runs backwards", a, b))
		}
		if b-a >= maxSeedsFlag || len(out)+int(b-a+1) > maxSeedsFlag {
			return nil, bad(fmt.Sprintf("more than %d seeds", maxSeedsFlag))
		}
		for v := a; ; v++ {
			out = append(out, v)
			if v == b {
				break
			}
		}
	}
	return out, nil
}

// protocol builds and validates the chosen protocol (protocol.Build,
// as a suite builds each track's): the profile on the final track (the
// flag's, else the config file's), the data set, the config file, then
// the flags. Errors wrap errUsage.
func (f *protoFlags) protocol() (protocol.Protocol, error) {
	set := map[string]bool{}
	f.fs.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	ch := protocol.Choice{Profile: *f.profile, DataDir: *f.dataDir, TrackField: "--track", DatasetField: "--dataset",
		Warn: func(msg string) { fmt.Fprintln(f.warn, "warning:", msg) }}
	if set["track"] {
		ch.Track = *f.track
	}
	if set["dataset"] {
		if set["data"] {
			return protocol.Protocol{}, fmt.Errorf("%w: --dataset and --data both name the file; give one", errUsage)
		}
		ch.Dataset = *f.dataset
	}
	if set["channels"] {
		ch.Channels = *f.channels
	}
	if *f.config != "" {
		raw, err := protocol.ReadConfig(*f.config)
		if err != nil {
			return protocol.Protocol{}, fmt.Errorf("%w: %v", errUsage, err)
		}
		ch.Layers = append(ch.Layers, protocol.Layer{Name: *f.config, JSON: raw})
	}
	var csvFlags []string
	for _, name := range []string{"data", "target", "features", "csv-split", "context", "horizon", "channels"} {
		if set[name] {
			csvFlags = append(csvFlags, "--"+name)
		}
	}
	ch.Layers = append(ch.Layers, protocol.Layer{Name: "the command-line flags", Set: func(p *protocol.Protocol) error {
		if set["seeds"] {
			seeds, err := parseSeeds(*f.seeds)
			if err != nil {
				return err
			}
			p.Seeds = seeds
		}
		if len(csvFlags) > 0 && p.Track != "csv" {
			return fmt.Errorf("%s: the csv track's settings, but the protocol runs the %s track; add --track csv, or drop them", strings.Join(csvFlags, ", "), p.Track)
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
		if set["patch"] {
			p.Arch.Patch = *f.patch
		}
		if f.idea != nil && set["idea"] {
			ic, err := idea.Parse(*f.idea)
			if err != nil {
				return fmt.Errorf("--idea %q: %w", *f.idea, err)
			}
			p.Idea = harness.IdeaGrid(p.Baseline, ic)
		}
		if f.ideas != nil && set["ideas"] {
			for _, name := range strings.Split(*f.ideas, ";") {
				name = strings.TrimSpace(name)
				ic, err := idea.Parse(name)
				if err != nil {
					return fmt.Errorf("--ideas: %q: %w", name, err)
				}
				p.Ideas = append(p.Ideas, protocol.IdeaArm{Name: name, Grid: harness.IdeaGrid(p.Baseline, ic)})
			}
		}
		return nil
	}})
	p, err := protocol.Build(ch)
	if errors.Is(err, protocol.ErrInvalid) && *f.config != "" {
		return p, fmt.Errorf("%w: config %s with the command-line flags: %w", errUsage, *f.config, err)
	}
	if err != nil {
		return p, fmt.Errorf("%w: %w", errUsage, err)
	}
	return p, nil
}
