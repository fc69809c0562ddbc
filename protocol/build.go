package protocol

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/internal/jsonstrict"
	"github.com/ideabench/ideabench/track"
)

// ErrConfig marks every error of Build: the profile, data set, configs
// and settings that choose a protocol do not make one, and the user
// fixes them before anything runs (the command line's exit status 2).
var ErrConfig = errors.New("protocol: invalid configuration")

// ErrInvalid marks a Build error of Protocol.Validate: every setting was
// read, and the protocol they make is invalid.
var ErrInvalid = errors.New("protocol: invalid protocol")

// buildError is an error of Build: it is ErrConfig, and ErrInvalid when
// Validate refused the result.
type buildError struct {
	err     error
	invalid bool
}

// configError marks err as an error of the settings (ErrConfig).
func configError(err error) error { return &buildError{err: err} }

// ConfigError marks err as an error of the settings (ErrConfig), as
// Build's are, without changing its text: for a check of several
// protocols together (a suite's tracks share one alpha).
func ConfigError(err error) error { return configError(err) }

func (e *buildError) Error() string { return e.err.Error() }
func (e *buildError) Unwrap() error { return e.err }
func (e *buildError) Is(target error) bool {
	return target == ErrConfig || e.invalid && target == ErrInvalid
}

// Choice is everything that chooses a protocol: a profile on a track, a
// known data set, then layers of settings. The command line (profile,
// --dataset, --config, flags) and a suite's track (the suite's profile,
// the track's data set, the suite's and the track's protocol configs)
// both describe their protocol as a Choice and build it with Build.
type Choice struct {
	// Profile is the profile the protocol starts from: "full" (or ""),
	// "seed" or "ci" (ProfileFor).
	Profile string
	// Track is the track asked for: a registered kind (track.KindNames). ""
	// takes csv with a Dataset, else the track the last config layer
	// names, else the profile's own. It wins over a config's "track".
	Track string
	// Dataset, when set, is a known data set (track.Known): the csv
	// track on its file, found under DataDir and verified, with its
	// usual protocol (look-back, horizon, split, target, token length).
	Dataset, DataDir string
	// TrackField and DatasetField name Track and Dataset in messages
	// (the command line's "--track" and "--dataset"); "" is "track" and
	// "dataset".
	TrackField, DatasetField string
	// Channels, when set, is the csv track's channels: the data set's
	// (track.KnownData.Config) with a Dataset, else set over the csv
	// block the layers give.
	Channels string
	// Layers are applied in order over the profile and the data set.
	Layers []Layer
	// Recorded, when set, is a protocol a report recorded, and Build
	// makes it again from its settings (verify): a Dataset's file is the
	// path Recorded's data block gives, neither looked up under DataDir
	// nor read, and no file, program or trainer's file is checked to be
	// there (the report's digests answer for them).
	Recorded *Protocol
	// Warn, when set, receives a note for each data block Build leaves
	// out: the block of the track a config names itself, when Track asks
	// for another (a config borrowed for its grids). Without Warn such a
	// block is refused, as any other block of a track that does not run.
	Warn func(msg string)
}

// Layer is one layer of settings over a protocol: a JSON config (the
// keys it gives replace the protocol's, as in Parse), then Set.
type Layer struct {
	// Name names the layer in messages: a config file's path, "suite
	// protocol", "the command-line flags".
	Name string
	// JSON, when not empty, is a config decoded over the protocol.
	JSON []byte
	// Set, when not nil, changes the protocol in Go (command-line flags);
	// its error is reported as it is.
	Set func(*Protocol) error
}

// csvTrack is the kind of every known data set (track.KnownKind) and of
// Choice.Channels, which are options of its block.
const csvTrack = track.KnownKind

// Build makes the protocol c chooses, in this order:
//
//  1. the track: Track, else csv for a Dataset, else the "track" of the
//     last layer that names one, else the profile's own;
//  2. the profile on that track (ProfileFor);
//  3. the data set's csv block and token length (arch.patch);
//  4. each layer in order, the track asked for kept over a config's;
//  5. Channels over the csv block (without a Dataset);
//  6. checks: no layer's config gives the data block of a track that
//     does not run (a panel protocol with a "csv" block would report a
//     csv.path it never read; with Warn, the block of the track a config
//     names itself is left out instead, when Track or Dataset asks for
//     another), nor csv.path beside a Dataset; then the tune block's
//     grids (Protocol.Tuned); then Validate; then the
//     files the protocol reads must be there: the csv file, and each
//     external trainer's program and files.
//
// Every error wraps ErrConfig (and a data set's absence
// track.ErrNotFound); one from Validate also wraps ErrInvalid.
func Build(c Choice) (Protocol, error) {
	bad := func(err error) (Protocol, error) { return Protocol{}, configError(err) }
	trackField, datasetField := cmp.Or(c.TrackField, "track"), cmp.Or(c.DatasetField, "dataset")
	trk := c.Track
	if c.Dataset != "" {
		k, ok := track.LookupKnown(c.Dataset)
		if !ok {
			return bad(fmt.Errorf("%s %q: not a known data set; use one of %s, or a csv file of your own", datasetField, c.Dataset, strings.Join(track.KnownNames(), ", ")))
		}
		if trk != "" && trk != k.TrackKind() {
			return bad(fmt.Errorf("%s names a %s track, not %s %s; drop one of them", datasetField, k.TrackKind(), trackField, trk))
		}
		trk = k.TrackKind()
	}
	if trk == "" {
		for _, l := range c.Layers {
			if t := namedTrack(l.JSON); t != "" {
				trk = t
			}
		}
	}
	p, err := ProfileFor(c.Profile, trk)
	if err != nil {
		return bad(err)
	}
	if c.Dataset != "" {
		k, _ := track.LookupKnown(c.Dataset)
		path, err := k.Find(c.DataDir)
		if c.Recorded != nil {
			path, err = recordedPath(*c.Recorded, k.TrackKind())
		}
		if err != nil {
			return bad(err)
		}
		switch k.TrackKind() {
		case csvTrack:
			cc := k.Config(path, c.Channels)
			p.CSV = &cc
		case "tsf":
			if c.Channels != "" {
				return bad(fmt.Errorf("channels %q: %s is a real panel, one series a line; drop channels", c.Channels, c.Dataset))
			}
			tc := k.TSFConfig(path)
			p.TSF = &tc
		}
		p.Track = k.TrackKind()
		p.Arch.Patch = k.Patch
	}
	profile := withOwnBlocks(p) // what a block left out falls back to; decoding writes into p's blocks
	type givenBy struct{ layer, track string }
	given := map[string][]givenBy{} // track block -> the layers that give it, and the track each names
	for _, l := range c.Layers {
		if len(l.JSON) > 0 {
			if p, err = decodeProtocol(l.JSON, l.Name, p); err != nil {
				return bad(err)
			}
			doc, err := jsonstrict.Parse(l.JSON, l.Name, "config", reflect.TypeFor[Protocol]())
			if err != nil {
				return bad(err)
			}
			vals := doc.Values()
			named := namedTrack(l.JSON)
			for _, v := range vals {
				if len(v.Path) == 0 {
					continue
				}
				key, _ := v.Path[0].(string)
				switch {
				case len(v.Path) == 1 && isKind(key):
					given[key] = append(given[key], givenBy{l.Name, named})
				case len(v.Path) == 2 && key == csvTrack && v.Path[1] == "path" && c.Dataset != "":
					return bad(fmt.Errorf("%s: csv.path: %s %s names the file already; remove csv.path, or drop %s to read this file", l.Name, datasetField, c.Dataset, datasetField))
				}
			}
			if trk != "" {
				p.Track = trk
			}
		}
		if l.Set != nil {
			if err := l.Set(&p); err != nil {
				return bad(err)
			}
		}
	}
	if c.Channels != "" && c.Dataset == "" {
		if p.Track != csvTrack || p.CSV == nil {
			return bad(fmt.Errorf("channels %q needs a csv track: a data set, or a csv block in a config", c.Channels))
		}
		cc := *p.CSV
		cc.Channels = c.Channels
		p.CSV = &cc
	}
	for _, k := range track.Kinds() {
		b := k.Name()
		if b == p.Track {
			continue
		}
		for _, g := range given[b] {
			if g.track != b || c.Track == "" && c.Dataset == "" || c.Warn == nil {
				return bad(fmt.Errorf("%s: %q: the data of the %s track, but this protocol runs the %s track, which would not read it (the report would still record it); remove %q from it, or run the %s track", g.layer, b, b, p.Track, b, b))
			}
			asked := trackField
			if c.Track == "" {
				asked = datasetField
			}
			c.Warn(fmt.Sprintf("%s: its %q block is the data of the %s track it names, but %s asks for the %s track: the block is left out, and the report records the profile's", g.layer, b, b, asked, p.Track))
			k.Restore(&p.Blocks, &profile.Blocks)
		}
	}
	p = p.Tuned()
	if err := p.Validate(); err != nil {
		return p, &buildError{err: err, invalid: true}
	}
	if c.Recorded != nil {
		return p, nil
	}
	if _, err := p.Pin(); err != nil { // every trainer's files are there
		return bad(err)
	}
	for _, name := range slices.Sorted(maps.Keys(p.Trainers)) {
		if tr := p.Trainers[name]; tr != nil {
			if _, err := exec.LookPath(tr.Command[0]); err != nil {
				return bad(fmt.Errorf("trainers.%s.command[0] = %q: %v; give a program on the PATH or its path", name, tr.Command[0], err))
			}
		}
	}
	kind, _ := track.LookupKind(p.Track) // Validate knows it
	for _, f := range kind.Files(&p.Blocks) {
		switch st, err := os.Stat(f.Path); {
		case errors.Is(err, fs.ErrNotExist):
			return bad(fmt.Errorf("%s = %s: no such file; give the path of %s", f.Field, f.Path, f.What))
		case err != nil:
			return bad(fmt.Errorf("%s = %s: %w", f.Field, f.Path, err))
		case st.IsDir():
			return bad(fmt.Errorf("%s = %s: a directory; give the path of %s in it", f.Field, f.Path, f.What))
		}
	}
	return p, nil
}

// recordedPath is the file of the data block of kind that the recorded
// protocol p read.
func recordedPath(p Protocol, kind string) (string, error) {
	k, ok := track.LookupKind(kind)
	if ok {
		for _, f := range k.Files(&p.Blocks) {
			return f.Path, nil
		}
	}
	return "", fmt.Errorf("the recorded protocol has no %s file", kind)
}

// namedTrack is the "track" a JSON config names, "" when it names none
// or is no JSON object (decodeProtocol says what is wrong with it).
func namedTrack(raw []byte) string {
	var v struct {
		Track string `json:"track"`
	}
	json.Unmarshal(raw, &v)
	return v.Track
}

// withOwnBlocks is p with copies of its data blocks, which decoding a
// config over p writes into.
func withOwnBlocks(p Protocol) Protocol {
	p.Blocks = p.Blocks.Clone()
	return p
}

// isKind reports whether key names a registered track kind, the key of
// its data block.
func isKind(key string) bool {
	_, ok := track.LookupKind(key)
	return ok
}

// MaxConfigBytes bounds a config file (ReadConfig): a grid of a million
// cfgs fits.
const MaxConfigBytes = 64 << 20

// ReadConfig reads a config file of at most MaxConfigBytes.
func ReadConfig(path string) ([]byte, error) {
	raw, err := inputfile.Read(path, MaxConfigBytes)
	if err != nil {
		return nil, fmt.Errorf("protocol: config: %w", err)
	}
	return raw, nil
}
