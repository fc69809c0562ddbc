package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/ideabench/ideabench/protocol"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/stats"
	"github.com/ideabench/ideabench/track"
)

// Spec is a suite: the tracks on which one idea is compared with the
// baseline, and the settings of the aggregate.
type Spec struct {
	// Name names the suite in its report.
	Name string `json:"name"`
	// Profile is the protocol every track starts from: "full" (the
	// default) or "ci".
	Profile string `json:"profile,omitempty"`
	// Protocol, when set, is a protocol config (the JSON of a --config
	// file) applied over every track's profile: the idea's grid, seeds,
	// alpha. A track's own Protocol is applied after it.
	Protocol json.RawMessage `json:"protocol,omitempty"`
	// Ideas adds an idea arm per entry to every track: the idea as the
	// command line writes it (name or name:k=v,...: conv,
	// gate:rho=0.9,beta=0.5), trained on the track's baseline grid
	// (harness.WithIdea of each baseline cfg), so its grid pairs with the
	// baseline's. The aggregates then compare every idea arm (Aggregate.Ideas).
	Ideas []string `json:"ideas,omitempty"`
	// MinEffectPct is the smallest improvement that matters, in percent:
	// the region of practical equivalence is ±ln(1 + MinEffectPct/100)
	// on the log ratio. Default 1.
	MinEffectPct float64 `json:"min_effect_pct,omitempty"`
	// IncludeAll puts every track into the aggregate, also those whose
	// report says they cannot judge an idea (Informativeness.CanJudge).
	IncludeAll bool `json:"include_all,omitempty"`
	// Tracks are run in order, the development tracks first, then the
	// confirmation tracks.
	Tracks []TrackSpec `json:"tracks"`
}

// TrackSpec is one track of a suite.
type TrackSpec struct {
	// Name names the track in the suite: its report is Name.json and its
	// trials Name.trials in the suite's directory. Letters, digits, '.',
	// '_' and '-'.
	Name string `json:"name"`
	// Track is "panel", "sequence" or "csv"; a Dataset makes it csv.
	Track string `json:"track,omitempty"`
	// Dataset is a known data set (track.Known), found by name under the
	// data directory and verified; a track whose file is absent is
	// skipped with a note.
	Dataset string `json:"dataset,omitempty"`
	// Channels is the csv track's channels ("", "independent", "mixed").
	Channels string `json:"channels,omitempty"`
	// Patch, when set, is the model's arch.patch: input positions per
	// token, a divisor of the look-back (a data set brings its own,
	// track.KnownData.Patch).
	Patch int `json:"patch,omitempty"`
	// Protocol, when set, is applied over the suite's Protocol.
	Protocol json.RawMessage `json:"protocol,omitempty"`
	// Confirm holds the track out: it runs after the development tracks,
	// once the idea's settings are fixed, and its result is reported
	// apart from theirs (a confirmation of the development result).
	Confirm bool `json:"confirm,omitempty"`
}

// Default is the default suite: the panel and sequence tracks, and the
// public data sets of the LTSF benchmarks, each univariate on its usual
// look-back and horizon (ETTh1, ETTm1, weather, illness), for
// development; the monthly sunspot series held out for confirmation.
// Data sets absent from the data directory are skipped.
func Default() Spec {
	return Spec{Name: "default", Profile: "full", MinEffectPct: 1, Tracks: []TrackSpec{
		{Name: "panel", Track: "panel"},
		{Name: "sequence", Track: "sequence"},
		{Name: "ETTh1", Dataset: "ETTh1"},
		{Name: "ETTm1", Dataset: "ETTm1"},
		{Name: "weather", Dataset: "weather"},
		{Name: "illness", Dataset: "illness"},
		{Name: "sunspots", Dataset: "sunspots", Confirm: true},
	}}
}

// CI is the default suite's synthetic tracks in the ci profile: seconds,
// for tests.
func CI() Spec {
	return Spec{Name: "ci", Profile: "ci", MinEffectPct: 1, Tracks: []TrackSpec{
		{Name: "panel", Track: "panel"},
		{Name: "sequence", Track: "sequence"},
	}}
}

// Named returns a built-in suite: "default" or "ci".
func Named(name string) (Spec, error) {
	switch name {
	case "default", "":
		return Default(), nil
	case "ci":
		return CI(), nil
	}
	return Spec{}, fmt.Errorf("suite: %q is no built-in suite; use default or ci, or a suite file (JSON)", name)
}

// Load reads a suite file: JSON with the fields of Spec, unknown keys
// refused.
func Load(path string) (Spec, error) {
	raw, err := inputfile.Read(path, protocol.MaxConfigBytes)
	if err != nil {
		return Spec{}, fmt.Errorf("suite: %w", err)
	}
	var s Spec
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return Spec{}, fmt.Errorf("suite: %s: %w; see Spec in package suite for the fields", path, err)
	}
	if err := s.Validate(); err != nil {
		return Spec{}, fmt.Errorf("suite: %s: %w", path, err)
	}
	return s, nil
}

var nameRE = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// Validate reports every invalid field of s, each naming its JSON path
// and the fix.
func (s Spec) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf(format, a...)) }
	if s.Profile != "" && s.Profile != "full" && s.Profile != "ci" {
		bad("profile = %q: use full or ci", s.Profile)
	}
	if err := stats.CheckMinEffectPct(s.MinEffectPct); err != nil {
		bad("min_effect_pct = %v: %v (0 or left out: 1)", s.MinEffectPct, err)
	}
	if len(s.Tracks) == 0 {
		bad("tracks: empty; name at least one track, e.g. {\"name\": \"panel\", \"track\": \"panel\"}")
	}
	seenIdea := map[string]bool{}
	for i, name := range s.Ideas {
		switch _, err := idea.Parse(name); {
		case err != nil:
			bad("ideas[%d] = %q: %v", i, name, err)
		case name == "baseline" || name == "idea":
			bad("ideas[%d] = %q: the name of an arm every track has; name a registered idea", i, name)
		case seenIdea[name]:
			bad("ideas[%d] = %q: given twice; give each idea once", i, name)
		}
		seenIdea[name] = true
	}
	seen := map[string]bool{}
	for i, t := range s.Tracks {
		at := fmt.Sprintf("tracks[%d]", i)
		switch {
		case !nameRE.MatchString(t.Name) || t.Name == "." || t.Name == "..":
			bad("%s.name = %q: use letters, digits, '.', '_' and '-' (it names the track's files)", at, t.Name)
		case seen[strings.ToLower(t.Name)]:
			bad("%s.name = %q: a second track of that name; names must differ (also in case)", at, t.Name)
		}
		seen[strings.ToLower(t.Name)] = true
		if t.Dataset != "" {
			if _, ok := track.LookupKnown(t.Dataset); !ok {
				bad("%s.dataset = %q: not a known data set; use one of %s", at, t.Dataset, strings.Join(track.KnownNames(), ", "))
			}
			if t.Track != "" && t.Track != "csv" {
				bad("%s: dataset %q is a csv track, not track %q; drop track", at, t.Dataset, t.Track)
			}
		} else if t.Track == "" {
			bad("%s: neither track nor dataset; give one (track panel, sequence or csv with its protocol's csv block, or a dataset)", at)
		}
	}
	return errors.Join(errs...)
}

// minEffectPct is MinEffectPct, 1 when unset.
func (s Spec) minEffectPct() float64 {
	if s.MinEffectPct == 0 {
		return 1
	}
	return s.MinEffectPct
}

func (s Spec) profile() string {
	if s.Profile == "" {
		return "full"
	}
	return s.Profile
}

// ordered returns the tracks in the order they run: development, then
// confirmation, each in the spec's order.
func (s Spec) ordered() []TrackSpec {
	var dev, conf []TrackSpec
	for _, t := range s.Tracks {
		if t.Confirm {
			conf = append(conf, t)
		} else {
			dev = append(dev, t)
		}
	}
	return append(dev, conf...)
}

// TrackProtocol returns track t's protocol, built by protocol.Build (as
// the command line builds a run's) in this order: the suite's profile on
// its track; the data set's csv block and token length (its file found
// under dataDir and verified); the suite's protocol config; the track's
// patch; the track's protocol config; the idea arms of Ideas; the
// track's channels (over any csv block the configs gave); validated. A
// data set whose file is absent gives an error wrapping
// track.ErrNotFound; every error of the settings wraps
// protocol.ErrConfig.
func (s Spec) TrackProtocol(t TrackSpec, dataDir string) (protocol.Protocol, error) {
	ch := protocol.Choice{Profile: s.profile(), Track: t.Track, Dataset: t.Dataset, DataDir: dataDir, Channels: t.Channels,
		Layers: []protocol.Layer{{Name: "suite protocol", JSON: s.Protocol}}}
	if t.Patch != 0 {
		ch.Layers = append(ch.Layers, protocol.Layer{Name: "patch", Set: func(p *protocol.Protocol) error {
			p.Arch.Patch = t.Patch
			return nil
		}})
	}
	ch.Layers = append(ch.Layers, protocol.Layer{Name: "track " + t.Name + " protocol", JSON: t.Protocol}, protocol.Layer{Name: "suite", Set: func(p *protocol.Protocol) error {
		if p.Sequential != nil {
			return errors.New("a sequential protocol decides per track; drop its sequential block (the suite decides over all tracks)")
		}
		for _, name := range s.Ideas {
			ic, err := idea.Parse(name)
			if err != nil {
				return fmt.Errorf("ideas: %q: %w", name, err)
			}
			arm := protocol.IdeaArm{Name: name}
			for _, c := range p.Baseline {
				arm.Grid = append(arm.Grid, harness.WithIdea(c, ic))
			}
			p.Ideas = append(p.Ideas, arm)
		}
		return nil
	}})
	p, err := protocol.Build(ch)
	if err != nil {
		return p, fmt.Errorf("suite: track %s: %w", t.Name, err)
	}
	return p, nil
}
