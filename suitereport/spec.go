package suitereport

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/idea"
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
	// (protocol.Cfg.WithIdea of each baseline cfg), so its grid pairs with the
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
	// Ladder, when set, names a difficulty ladder the track is a rung
	// of: the tracks of one ladder are one task along one axis of
	// difficulty (MQAR's pairs, a noise fraction), in the order the
	// suite lists them, easiest first, and the report says per idea how
	// its effect moves up the ladder (Report.Ladders). A ladder has at
	// least two rungs, all development or all held out.
	Ladder string `json:"ladder,omitempty"`
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
		switch _, _, err := idea.ParseSpace(name); {
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
			k, ok := track.LookupKnown(t.Dataset)
			if !ok {
				bad("%s.dataset = %q: not a known data set; use one of %s", at, t.Dataset, strings.Join(track.KnownNames(), ", "))
			} else if t.Track != "" && t.Track != k.TrackKind() {
				bad("%s: dataset %q is a %s track, not track %q; drop track", at, t.Dataset, k.TrackKind(), t.Track)
			}
		} else if t.Track == "" {
			bad("%s: neither track nor dataset; give one (track panel, sequence or csv with its protocol's csv block, or a dataset)", at)
		}
	}
	rungs, confirm := map[string][]int{}, map[string]bool{}
	for i, t := range s.Tracks {
		if t.Ladder == "" {
			continue
		}
		at := fmt.Sprintf("tracks[%d].ladder", i)
		switch r := rungs[t.Ladder]; {
		case !nameRE.MatchString(t.Ladder):
			bad("%s = %q: use letters, digits, '.', '_' and '-'", at, t.Ladder)
		case len(r) > 0 && confirm[t.Ladder] != t.Confirm:
			bad("%s = %q: the ladder's rung %s is %s and this one is not; a ladder's rungs are all development or all held out", at, t.Ladder, s.Tracks[r[0]].Name, heldWord(confirm[t.Ladder]))
		}
		rungs[t.Ladder], confirm[t.Ladder] = append(rungs[t.Ladder], i), t.Confirm
	}
	for _, name := range slices.Sorted(maps.Keys(rungs)) {
		if r := rungs[name]; len(r) < 2 {
			bad("tracks[%d].ladder = %q: a ladder of one rung; give at least two tracks that ladder, or drop it", r[0], name)
		}
	}
	return errors.Join(errs...)
}

func heldWord(confirm bool) string {
	if confirm {
		return "held out"
	}
	return "a development track"
}

// WithDefaults returns s with its defaults in place of unset fields:
// Profile "full", MinEffectPct 1. A report keeps the spec as written.
func (s Spec) WithDefaults() Spec {
	if s.Profile == "" {
		s.Profile = "full"
	}
	if s.MinEffectPct == 0 {
		s.MinEffectPct = 1
	}
	return s
}

// Ordered returns the tracks in the order they run: development, then
// confirmation, each in the spec's order.
func (s Spec) Ordered() []TrackSpec {
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
