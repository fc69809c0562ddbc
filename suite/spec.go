package suite

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/internal/jsonstrict"
	"github.com/ideabench/ideabench/protocol"

	"github.com/ideabench/ideabench/suitereport"
)

// Default is the default suite: the panel and sequence tracks, and the
// public data sets of the LTSF benchmarks, each univariate on its usual
// look-back and horizon (ETTh1, ETTm1, weather, illness), for
// development; the monthly sunspot series held out for confirmation.
// Data sets absent from the data directory are skipped.
func Default() suitereport.Spec {
	return suitereport.Spec{Name: "default", Profile: "full", MinEffectPct: 1, Tracks: []suitereport.TrackSpec{
		{Name: "panel", Track: "panel"},
		{Name: "sequence", Track: "sequence"},
		{Name: "ETTh1", Dataset: "ETTh1"},
		{Name: "ETTm1", Dataset: "ETTm1"},
		{Name: "weather", Dataset: "weather"},
		{Name: "illness", Dataset: "illness", Patch: 12},
		{Name: "sunspots", Dataset: "sunspots", Confirm: true},
	}}
}

// CI is the default suite's synthetic tracks in the ci profile: seconds,
// for tests.
func CI() suitereport.Spec {
	return suitereport.Spec{Name: "ci", Profile: "ci", MinEffectPct: 1, Tracks: []suitereport.TrackSpec{
		{Name: "panel", Track: "panel"},
		{Name: "sequence", Track: "sequence"},
	}}
}

// Recall is the recall suite: synthetic recall tasks on which the field
// judges sequence-mixing ideas, which no n-gram or linear map solves.
// MQAR, forgetting MQAR, MAD's fuzzy and noisy in-context recall for
// development; MAD's selective copying and MQAR at twice the length
// (t 64: gaps twice as long, a size not tuned on) held out for
// confirmation.
func Recall() suitereport.Spec {
	return suitereport.Spec{Name: "recall", Profile: "full", MinEffectPct: 1, Tracks: recallTracks()}
}

// RecallCI is the recall suite in the ci profile: seconds, for tests.
func RecallCI() suitereport.Spec {
	return suitereport.Spec{Name: "recall-ci", Profile: "ci", MinEffectPct: 1, Tracks: recallTracks()}
}

func recallTracks() []suitereport.TrackSpec {
	return []suitereport.TrackSpec{
		{Name: "mqar", Track: "mqar"},
		{Name: "forget-mqar", Track: "forget-mqar"},
		{Name: "fuzzy-recall", Track: "fuzzy-recall"},
		{Name: "noisy-recall", Track: "noisy-recall"},
		{Name: "selective-copy", Track: "selective-copy", Confirm: true},
		{Name: "mqar-long", Track: "mqar", Protocol: []byte(`{"mqar": {"t": 64}}`), Confirm: true},
	}
}

// RecallLadder is the recall tasks at rungs of growing difficulty, each
// task one ladder along its own axis (TrackSpec.Ladder), run on request:
// MQAR's pairs at a fixed length and width (2, 4 as the recall suite,
// 8: Zoology's axis, on which attention holds and a gated convolution
// falls), forgetting MQAR's updated keys (0: plain recall, 1 as the
// recall suite, 2), fuzzy recall's motif length (2, 3 as the recall
// suite) and noisy recall's noise fraction (0.1, 0.2 as the recall
// suite, 0.4). Every rung trains with its task's recall-suite budget.
func RecallLadder() suitereport.Spec {
	rung := func(name, trk, ladder, block string) suitereport.TrackSpec {
		t := suitereport.TrackSpec{Name: name, Track: trk, Ladder: ladder}
		if block != "" {
			t.Protocol = []byte(block)
		}
		return t
	}
	return suitereport.Spec{Name: "recall-ladder", Profile: "full", MinEffectPct: 1, Tracks: []suitereport.TrackSpec{
		rung("mqar-pairs2", "mqar", "mqar-pairs", `{"mqar": {"pairs": 2}}`),
		rung("mqar-pairs4", "mqar", "mqar-pairs", ""),
		rung("mqar-pairs8", "mqar", "mqar-pairs", `{"mqar": {"pairs": 8}}`),
		rung("forget-mqar-updates0", "forget-mqar", "forget-mqar-updates", `{"forget-mqar": {"updates": 0}}`),
		rung("forget-mqar-updates1", "forget-mqar", "forget-mqar-updates", ""),
		rung("forget-mqar-updates2", "forget-mqar", "forget-mqar-updates", `{"forget-mqar": {"updates": 2}}`),
		rung("fuzzy-recall-motif2", "fuzzy-recall", "fuzzy-recall-motif", `{"fuzzy-recall": {"key_motif": 2, "value_motif": 2}}`),
		rung("fuzzy-recall-motif3", "fuzzy-recall", "fuzzy-recall-motif", ""),
		rung("noisy-recall-noise0.1", "noisy-recall", "noisy-recall-noise", `{"noisy-recall": {"noise": 0.1}}`),
		rung("noisy-recall-noise0.2", "noisy-recall", "noisy-recall-noise", ""),
		rung("noisy-recall-noise0.4", "noisy-recall", "noisy-recall-noise", `{"noisy-recall": {"noise": 0.4}}`),
	}}
}

// builtin are the built-in suites in the order help lists them, each
// with what it holds.
var builtin = []struct {
	name, does string
	spec       func() suitereport.Spec
}{
	{"default", "panel, sequence, and the known data sets found under --data-dir; sunspots held out", Default},
	{"ci", "the default suite's synthetic tracks at ci size: seconds", CI},
	{"recall", "the token recall tasks: MQAR, forgetting MQAR, fuzzy and noisy recall; selective copying and MQAR at t 64 held out", Recall},
	{"recall-ci", "the recall suite at ci size: seconds", RecallCI},
	{"recall-ladder", "each recall task at two or three rungs of difficulty along its own axis, and the trend of each idea's effect up them: on request (hours)", RecallLadder},
}

// Names lists the built-in suites (Named).
func Names() []string {
	var out []string
	for _, b := range builtin {
		out = append(out, b.name)
	}
	return out
}

// Describe says what each built-in suite holds, "name (what), ...", for
// help texts.
func Describe() string {
	var out []string
	for _, b := range builtin {
		out = append(out, b.name+" ("+b.does+")")
	}
	return strings.Join(out, ", ")
}

// Named returns a built-in suite (Names); "" is "default".
func Named(name string) (suitereport.Spec, error) {
	if name == "" {
		name = "default"
	}
	for _, b := range builtin {
		if b.name == name {
			return b.spec(), nil
		}
	}
	return suitereport.Spec{}, fmt.Errorf("suite: %q is no built-in suite; use %s, or a suite file (JSON)", name, strings.Join(Names(), ", "))
}

// Load reads a suite file strictly (jsonstrict), with a bound on its
// size: JSON with the fields of suitereport.Spec, nothing after it,
// unknown and repeated keys refused, each fault named with its
// line:column and JSON path; then validated.
func Load(path string) (suitereport.Spec, error) {
	s, _, err := load(path)
	return s, err
}

// load is Load, with the SHA-256 of the file's bytes.
func load(path string) (suitereport.Spec, string, error) {
	raw, err := inputfile.Read(path, protocol.MaxConfigBytes)
	if err != nil {
		return suitereport.Spec{}, "", fmt.Errorf("suite: %w", err)
	}
	sum := sha256.Sum256(raw)
	var s suitereport.Spec
	if err := jsonstrict.Decode(raw, path, "suite file", &s); err != nil {
		return suitereport.Spec{}, "", fmt.Errorf("suite: %w", err)
	}
	if err := s.Validate(); err != nil {
		return suitereport.Spec{}, "", fmt.Errorf("suite: %s: %w", path, err)
	}
	return s, hex.EncodeToString(sum[:]), nil
}

// Open returns the suite that name gives, as `ideabench suite --suite`
// takes it: a suite file (a name ending in .json, Load) or a built-in
// suite (Named), with its source, which the suite report records
// (Options.Source).
func Open(name string) (suitereport.Spec, *suitereport.Source, error) {
	if strings.HasSuffix(name, ".json") {
		s, sum, err := load(name)
		return s, &suitereport.Source{File: name, FileSHA256: sum}, err
	}
	s, err := Named(name)
	if name == "" {
		name = "default"
	}
	return s, &suitereport.Source{Builtin: name}, err
}

// WithIdeas returns s with the idea arms ideas added after its own (the
// command line's --ideas), validated.
func WithIdeas(s suitereport.Spec, ideas []string) (suitereport.Spec, error) {
	if len(ideas) == 0 {
		return s, nil
	}
	s.Ideas = append(slices.Clip(s.Ideas), ideas...)
	return s, s.Validate()
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
func TrackProtocol(s suitereport.Spec, t suitereport.TrackSpec, dataDir string) (protocol.Protocol, error) {
	p, err := protocol.Build(trackChoice(s, t, dataDir))
	if err != nil {
		return p, fmt.Errorf("suite: track %s: %w", t.Name, err)
	}
	return p, nil
}

// trackChoice is the protocol.Choice of track t of s (TrackProtocol).
func trackChoice(s suitereport.Spec, t suitereport.TrackSpec, dataDir string) protocol.Choice {
	ch := protocol.Choice{Profile: s.WithDefaults().Profile, Track: t.Track, Dataset: t.Dataset, DataDir: dataDir, Channels: t.Channels,
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
		if !(p.Alpha < 0.5) {
			return fmt.Errorf("alpha = %v: a suite's equivalence test runs at level 1 - 2·alpha, so alpha must be below 0.5; use e.g. 0.05", p.Alpha)
		}
		for _, name := range s.Ideas {
			if err := p.SetIdea(name, true); err != nil {
				return fmt.Errorf("ideas: %q: %w", name, err)
			}
		}
		return nil
	}})
	return ch
}
