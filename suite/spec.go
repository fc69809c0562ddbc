package suite

import (
	"encoding/json"
	"fmt"

	"github.com/ideabench/ideabench/internal/jsonstrict"
	"github.com/ideabench/ideabench/protocol"

	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/suitereport"
	"github.com/ideabench/ideabench/track"
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

// Named returns a built-in suite: "default" or "ci".
func Named(name string) (suitereport.Spec, error) {
	switch name {
	case "default", "":
		return Default(), nil
	case "ci":
		return CI(), nil
	}
	return suitereport.Spec{}, fmt.Errorf("suite: %q is no built-in suite; use default or ci, or a suite file (JSON)", name)
}

// Load reads a suite file strictly (jsonstrict): JSON with the fields of
// suitereport.Spec, nothing after it, unknown and repeated keys refused,
// each fault named with its line:column and JSON path; then validated.
func Load(path string) (suitereport.Spec, error) {
	var s suitereport.Spec
	if err := jsonstrict.ReadFile(path, "suite file", &s); err != nil {
		return suitereport.Spec{}, fmt.Errorf("suite: %w", err)
	}
	if err := s.Validate(); err != nil {
		return suitereport.Spec{}, fmt.Errorf("suite: %s: %w", path, err)
	}
	return s, nil
}

// TrackProtocol returns track t's protocol, in this order: the suite's
// profile on its track; the data set's csv block (its file found under
// dataDir and verified); the suite's protocol config; the track's patch;
// the track's protocol config; the track's channels (over any csv block
// the configs gave); the idea arms of Ideas; validated. A data set whose
// file is absent gives an error wrapping track.ErrNotFound.
func TrackProtocol(s suitereport.Spec, t suitereport.TrackSpec, dataDir string) (protocol.Protocol, error) {
	trk := t.Track
	if t.Dataset != "" {
		trk = "csv"
	}
	p, err := protocol.ProfileFor(s.WithDefaults().Profile, trk)
	if err != nil {
		return p, fmt.Errorf("suite: track %s: %w", t.Name, err)
	}
	if t.Dataset != "" {
		k, _ := track.LookupKnown(t.Dataset)
		path, err := k.Find(dataDir)
		if err != nil {
			return p, fmt.Errorf("suite: track %s: %w", t.Name, err)
		}
		c := k.Config(path, t.Channels)
		p.CSV, p.Track = &c, "csv"
	}
	decode := func(raw json.RawMessage, name string) error {
		if len(raw) == 0 {
			return nil
		}
		q, err := protocol.DecodeProtocol(raw, name, p)
		if err != nil {
			return fmt.Errorf("suite: track %s: %w", t.Name, err)
		}
		p = q
		return nil
	}
	if err := decode(s.Protocol, "suite protocol"); err != nil {
		return p, err
	}
	if t.Patch != 0 {
		p.Arch.Patch = t.Patch
	}
	if err := decode(t.Protocol, "track "+t.Name+" protocol"); err != nil {
		return p, err
	}
	if t.Channels != "" && t.Dataset == "" {
		if p.CSV == nil {
			return p, fmt.Errorf("suite: track %s: channels %q needs a csv track: a dataset, or a csv block in its protocol", t.Name, t.Channels)
		}
		c := *p.CSV
		c.Channels = t.Channels
		p.CSV = &c
	}
	for _, name := range s.Ideas {
		ic, err := idea.Parse(name)
		if err != nil {
			return p, fmt.Errorf("suite: ideas: %q: %w", name, err)
		}
		arm := protocol.IdeaArm{Name: name}
		for _, c := range p.Baseline {
			arm.Grid = append(arm.Grid, harness.WithIdea(c, ic))
		}
		p.Ideas = append(p.Ideas, arm)
	}
	if err := p.Validate(); err != nil {
		return p, fmt.Errorf("suite: track %s: %w", t.Name, err)
	}
	if p.Sequential != nil {
		return p, fmt.Errorf("suite: track %s: a sequential protocol decides per track; drop its sequential block (the suite decides over all tracks)", t.Name)
	}
	return p, nil
}
