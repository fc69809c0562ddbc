package protocol

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/ideabench/ideabench/track"
	"github.com/stretchr/testify/require"
)

// useRE finds the value a message tells the user to use: "use 18, the
// nearest divisor", "use 336, the nearest multiple", "such as 4".
var useRE = regexp.MustCompile(`(?:; use|such as) (\d+)`)

// TestHintsWork: the value each divisibility error suggests, pasted
// back, validates: arch.patch (a divisor of the track's t and of every
// cfg's context, so the hint does not trade one error for another),
// cfg.context (a multiple of the patch within bounds) and arch.heads.
func TestHintsWork(t *testing.T) {
	csvOn := func(t0, patch int, contexts ...int) Protocol {
		p := CIProfileFor("csv")
		p.CSV = &track.CSVConfig{Path: "x.csv", Target: "OT", T: t0, H: 8}
		p.Arch.Patch = patch
		for i, k := range contexts {
			c := p.Baseline[0]
			c.Context = k
			if i < len(p.Baseline) {
				p.Baseline[i].Context, p.Idea[i].Context = k, k
			} else {
				p.Baseline, p.Idea = append(p.Baseline, c), append(p.Idea, c)
			}
		}
		return p
	}
	for _, tc := range []struct {
		name  string
		p     Protocol
		field string // the message the hint is taken from
		set   func(p *Protocol, v int)
	}{
		{"patch_of_t", csvOn(36, 16), "arch.patch", func(p *Protocol, v int) { p.Arch.Patch = v }},
		{"patch_of_prime_t", csvOn(97, 16), "arch.patch", func(p *Protocol, v int) { p.Arch.Patch = v }},
		// 18 divides 36 but not the contexts 48 and 96: the hint is a
		// divisor of all three.
		{"patch_of_t_and_contexts", csvOn(36, 16, 48, 96), "arch.patch", func(p *Protocol, v int) { p.Arch.Patch = v }},
		{"context_multiple", csvOn(96, 16, 100), "baseline[0].context", func(p *Protocol, v int) {
			p.Baseline[0].Context, p.Idea[0].Context = v, v
		}},
		{"context_small", csvOn(96, 16, 3), "baseline[0].context", func(p *Protocol, v int) {
			p.Baseline[0].Context, p.Idea[0].Context = v, v
		}},
		// Near the bound the nearest multiple rounds down.
		{"context_at_bound", csvOn(96, 6, maxContext), "baseline[0].context", func(p *Protocol, v int) {
			p.Baseline[0].Context, p.Idea[0].Context = v, v
		}},
		{"heads", func() Protocol { p := CIProfile(); p.Arch.Heads = 5; return p }(), "arch.heads", func(p *Protocol, v int) { p.Arch.Heads = v }},
		{"heads_prime_d", func() Protocol { p := CIProfile(); p.Arch.D, p.Arch.Heads = 37, 4; return p }(), "arch.heads", func(p *Protocol, v int) { p.Arch.Heads = v }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var hint string
			for _, m := range messages(t, tc.p.Validate()) {
				if regexp.MustCompile(`^` + regexp.QuoteMeta(tc.field) + ` = `).MatchString(m) {
					hint = m
				}
			}
			require.NotEmpty(t, hint, "a message on %s", tc.field)
			m := useRE.FindStringSubmatch(hint)
			require.NotNil(t, m, "the message suggests a value: %s", hint)
			v, err := strconv.Atoi(m[1])
			require.NoError(t, err)
			q := tc.p
			q.Baseline, q.Idea = append([]Cfg(nil), tc.p.Baseline...), append([]Cfg(nil), tc.p.Idea...)
			tc.set(&q, v)
			require.NoError(t, q.Validate(), "after the hint of %q", hint)
		})
	}
}
