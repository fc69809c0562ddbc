package protocol

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/track"
)

// TestRationale: a report's track rationale is the track's description
// followed by the idea's own sentence, so an idea never reads another's
// reason; the gate on the sequence track keeps the seed report's
// sentence.
func TestRationale(t *testing.T) {
	for _, name := range idea.Names() {
		s, _ := idea.Lookup(name)
		require.NotEmpty(t, s.Rationale, "idea %s has no rationale", name)
	}
	with := func(p Protocol, name string) Protocol {
		ic := idea.Config{Name: name}
		if s, _ := idea.Lookup(name); len(s.Params) > 0 {
			m := map[string]float64{}
			for _, q := range s.Params {
				m[q.Name] = q.Default
			}
			ic.Params = idea.NewParams(m)
		}
		p.Idea = []Cfg{p.Baseline[0].WithIdea(ic)}
		return p
	}
	seed := SeedProfile()
	require.Equal(t, track.SeedRationale, Rationale(seed))
	require.Equal(t, "Sequence forecast contains multi-token temporal correlations and matches the proposed per-token fading-memory transformer gate.", Rationale(seed))

	tracks := map[string]Protocol{"sequence": seed}
	for _, trk := range []string{"panel", "mqar", "forget-mqar"} {
		p, err := ProfileFor("ci", trk)
		require.NoError(t, err)
		tracks[trk] = p
	}
	for trk, p := range tracks {
		for _, name := range idea.Names() {
			if trk == "sequence" && name == "gate" {
				continue
			}
			t.Run(trk+"/"+name, func(t *testing.T) {
				s, _ := idea.Lookup(name)
				got := Rationale(with(p, name))
				require.True(t, strings.HasSuffix(got, " "+s.Rationale), "%q does not end with %s's rationale", got, name)
				if name != "gate" {
					require.NotContains(t, got, "fading-memory", "%s reads the gate's reason", name)
				}
			})
		}
	}
}
