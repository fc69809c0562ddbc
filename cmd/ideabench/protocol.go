package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

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
	t, h, patch, tune                    *int
	// idea and ideas are run's --idea and --ideas (ideaFlags); nil on
	// the commands without them.
	idea, ideas *string
}

// ideaFlags adds --idea and --ideas to the flags (run's): the idea arm,
// and further idea arms, each on the baseline's grid.
func (f *protoFlags) ideaFlags() {
	f.idea = f.fs.String("idea", "", "the idea arm: a registered idea, with parameters as name:k=v,k=v (e.g. gate:rho=0.9,beta=0.5 or ema:lambda=0.2), trained on the baseline's grid; replaces the profile's or config's idea arm (\"ideabench help run\" lists the ideas)")
	f.ideas = f.fs.String("ideas", "", "further idea arms, ';'-separated, each on the baseline's grid (e.g. 'conv;ema;rezero'), after the config's; Holm adjusts their p-values")
}

func protocolFlags(fs *flag.FlagSet, warn io.Writer) *protoFlags {
	return &protoFlags{
		fs:       fs,
		warn:     warn,
		config:   fs.String("config", "", "JSON protocol file, applied over the profile"),
		profile:  fs.String("profile", "full", "starting protocol: full (the default), seed (the seed report's protocol) or ci (small data)"),
		track:    fs.String("track", "", "the track: "+strings.Join(track.KindNames(), ", ")+" (default: the profile's or config's track; tsf for a --data file named .tsf)"),
		data:     fs.String("data", "", "the data file: for the csv track a CSV file (first column a timestamp), for the tsf track a .tsf file of the Monash archive's format (a name ending .tsf chooses the tsf track)"),
		target:   fs.String("target", "", "csv track: the column to forecast (e.g. OT)"),
		features: fs.String("features", "", "csv track: input columns, comma-separated (default: all; the target is always one)"),
		split:    fs.String("csv-split", "", "csv track: ett-hour, ett-minute or fractions (default: by the file's length and step)"),
		t:        fs.Int("context", 0, "csv and tsf tracks: context length, the config's csv.t (default 96) or tsf.t (needed with --data FILE.tsf unless a config gives it)"),
		h:        fs.Int("horizon", 0, "csv and tsf tracks: horizon, the config's csv.h (default 96) or tsf.h (default: the config's, else the .tsf file's @horizon)"),
		dataset:  fs.String("dataset", "", "the csv track (the tsf track for the Monash archive's sets) on a known data set, found by name under --data-dir and verified by its SHA-256, with its papers' split, target, look-back and horizon: "+strings.Join(track.KnownNames(), ", ")+" (ideabench datasets lists them)"),
		dataDir:  fs.String("data-dir", defaultDataDir(), "where --dataset looks for its file (default $IDEABENCH_DATA, else the current directory)"),
		channels: fs.String("channels", "", "csv track: target (forecast the target column), independent (forecast every column, each channel alone through one shared model: the multivariate setting) or mixed (every column, through one shared model that sees all of them)"),
		patch:    fs.Int("patch", 0, "input positions per token, the config's arch.patch (must divide the context; e.g. 12 for --context 36)"),
		tune:     fs.Int("tune", 0, "search every arm's own space on N cfgs each (the protocol's tune block; the full profile tunes 6, ci as many as its rates): the baseline its learning rate, each idea the rate and its parameters over the ranges its papers state (ideabench help run lists them; --idea NAME:k=lo..hi narrows or widens one), so an idea that needs tuning pays for it from the same budget; 0 runs the profile's fixed grids, the idea at fixed settings"),
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
	tsfData := set["data"] && isTSFPath(*f.data)
	if tsfData && !set["track"] {
		ch.Track = tsfTrack // only the tsf track reads a .tsf file
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
		switch {
		case tsfData && p.Track != tsfTrack:
			// Only --track gets here: without it the file's extension
			// chose the tsf track.
			return fmt.Errorf("--data %s: a .tsf file, which only the tsf track reads, but --track asks for the %s track; use --track tsf (or drop --track)%s", *f.data, p.Track, tsfRunHint(*f.data, 0, tsfPatch(*f.profile)))
		case p.Track == tsfTrack:
			if err := f.tsfBlock(p, set); err != nil {
				return err
			}
		case len(csvFlags) > 0 && p.Track != "csv":
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
		switch {
		case set["tune"] && *f.tune == 0:
			*p = p.Untuned()
		case set["tune"]:
			t := protocol.Tune{Seed: 1}
			if p.Tune != nil {
				t = *p.Tune
			}
			t.Cfgs = *f.tune
			p.Tune = &t
		}
		if f.idea != nil && set["idea"] {
			if err := p.SetIdea(*f.idea, false); err != nil {
				return fmt.Errorf("--idea %q: %w", *f.idea, err)
			}
		}
		if f.ideas != nil && set["ideas"] {
			for _, name := range strings.Split(*f.ideas, ";") {
				if err := p.SetIdea(strings.TrimSpace(name), true); err != nil {
					return fmt.Errorf("--ideas: %q: %w", name, err)
				}
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

// tsfTrack is the track kind that reads a .tsf file (the Monash
// archive's format); a --data file of that extension chooses it.
const tsfTrack = "tsf"

// isTSFPath reports whether path names a .tsf file, by its extension
// (as the archive names its files).
func isTSFPath(path string) bool { return strings.EqualFold(filepath.Ext(path), ".tsf") }

// tsfRunHint is ", e.g. ideabench run --track tsf --data PATH --context
// N" with a look-back N that fits the .tsf file at path at horizon h (0:
// its @horizon) and token length patch (lookBackHint); "" when none
// does or the file cannot be read.
func tsfRunHint(path string, h, patch int) string {
	t := lookBackHint(path, h, patch)
	if t == 0 {
		return ""
	}
	return fmt.Sprintf(", e.g. ideabench run --track tsf --data %s --context %d", shellQuote(path), t)
}

// lookBackHint is a look-back for the .tsf file at path at horizon h (0:
// its @horizon) and token length patch: a season of its @frequency
// (track.MASEPeriod: weekly 52, monthly 12, ...; else 4 tokens) rounded
// up to a multiple of patch, at most
// what its shortest series leaves after a validation and a test horizon,
// a multiple of patch; 0 when none fits or the file cannot be read.
func lookBackHint(path string, h, patch int) int {
	f, err := track.LoadTSF(path)
	if err != nil || len(f.Series) == 0 {
		return 0
	}
	if h == 0 {
		h = f.Horizon
	}
	patch = max(patch, 1)
	t := 4 * patch
	if period, err := track.MASEPeriod(f.Frequency); err == nil && period > 1 {
		t = (period + patch - 1) / patch * patch
	}
	shortest := len(f.Series[0].Values)
	for _, s := range f.Series {
		shortest = min(shortest, len(s.Values))
	}
	t = min(t, shortest-2*h)
	t -= t % patch
	if h < 1 || t < patch {
		return 0
	}
	return t
}

// tsfPatch is the token length the tsf track takes under profile
// (protocol.ProfileFor), 1 when the profile is unknown.
func tsfPatch(profile string) int {
	p, err := protocol.ProfileFor(profile, tsfTrack)
	if err != nil {
		return 1
	}
	return max(p.Arch.Patch, 1)
}

// tsfBlock sets p's tsf block from the flags over the config's: --data
// its file, --context its look-back, --horizon its horizon. Without a
// horizon from the flag or the config it takes the file's @horizon,
// reading the file's header here (so a file that is no .tsf file, or
// has a malformed header, is refused before anything runs). The csv
// track's column flags are refused: the tsf track forecasts every
// series of its file.
func (f *protoFlags) tsfBlock(p *protocol.Protocol, set map[string]bool) error {
	var columns []string
	for _, name := range []string{"target", "features", "csv-split", "channels"} {
		if set[name] {
			columns = append(columns, "--"+name)
		}
	}
	if len(columns) > 0 {
		return fmt.Errorf("%s: the csv track's column settings, but the tsf track forecasts every series of its file; drop them", strings.Join(columns, ", "))
	}
	if !set["data"] && !set["context"] && !set["horizon"] {
		return nil // the config's block as it is
	}
	var c track.TSFConfig
	if p.TSF != nil {
		c = *p.TSF
	}
	if set["data"] {
		c.Path = *f.data
	}
	if set["context"] {
		c.T = *f.t
	}
	if set["horizon"] {
		c.H = *f.h
	}
	field := "--data " + c.Path
	if !set["data"] {
		field = "tsf.path = " + c.Path
	}
	if c.Path == "" {
		var given []string
		for _, name := range []string{"context", "horizon"} {
			if set[name] {
				given = append(given, "--"+name)
			}
		}
		return fmt.Errorf("%s: the tsf track's settings, but no file to read; add --data FILE.tsf", strings.Join(given, ", "))
	}
	if c.H == 0 && !set["horizon"] { // --horizon 0 is Validate's to refuse
		head, err := track.LoadTSFHeader(c.Path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s: no such file; give the path of the .tsf file", field)
		case err != nil:
			return err
		case head.Horizon == 0:
			return fmt.Errorf("%s: the file has no @horizon line; add --horizon N, the steps to forecast", field)
		}
		c.H = head.Horizon
	}
	if c.T == 0 && !set["context"] {
		return fmt.Errorf("%s: the tsf track needs a look-back; add --context N, the steps each forecast sees, a multiple of the token length arch.patch = %d%s", field, p.Arch.Patch, tsfRunHint(c.Path, c.H, p.Arch.Patch))
	}
	p.TSF = &c
	return nil
}
