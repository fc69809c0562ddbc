package protocol

import (
	"math"
	"testing"

	"github.com/ideabench/ideabench/idea"
	"github.com/stretchr/testify/require"
)

// TestHalton: the radical inverse by hand (base 2: 1/2, 1/4, 3/4; base
// 3: 1/3, 2/3, 1/9), the primes, and a point's coordinates are the
// inverse shifted modulo 1, the same for the same seed and others for
// another.
func TestHalton(t *testing.T) {
	for _, c := range []struct {
		n, b int
		want float64
	}{{1, 2, 0.5}, {2, 2, 0.25}, {3, 2, 0.75}, {1, 3, 1.0 / 3}, {2, 3, 2.0 / 3}, {3, 3, 1.0 / 9}, {0, 5, 0}} {
		require.InDelta(t, c.want, radicalInverse(c.n, c.b), 1e-15, "n %d base %d", c.n, c.b)
	}
	require.Equal(t, []int{2, 3, 5, 7, 11}, []int{nthPrime(0), nthPrime(1), nthPrime(2), nthPrime(3), nthPrime(4)})
	a, b := Tune{Seed: 1}.Point(4, 3), Tune{Seed: 1}.Point(4, 3)
	require.Equal(t, a, b)
	require.NotEqual(t, a, Tune{Seed: 2}.Point(4, 3))
	p0, p1 := Tune{Seed: 1}.Point(0, 1)[0], Tune{Seed: 1}.Point(1, 1)[0]
	d := math.Mod(p1-p0+1, 1)
	require.InDelta(t, 0.75, d, 1e-12, "points 1 and 2 of base 2 (1/2 and 1/4) stay 3/4 apart modulo 1 after one shift")
}

// TestTuned: with a tune block every arm trains tune.cfgs cfgs; cfg j of
// every arm has the same learning rate, within the range and to three
// digits, and the baseline's recipe; an idea arm's parameters are drawn
// over its space, its others fixed as its cfgs give them; the design is
// the seed's; and Validate refuses a grid that is not the draws.
func TestTuned(t *testing.T) {
	p := CIProfile()
	p.Tune = &Tune{Cfgs: 6, Seed: 1}
	fox := idea.Config{Name: "fox"}
	p.Idea = IdeaGrid(p.Baseline, fox)
	p.Ideas = []IdeaArm{{Name: "alibi:scale=2", Grid: IdeaGrid(p.Baseline, idea.Config{Name: "alibi", Params: idea.NewParams(map[string]float64{"scale": 2})})}}
	p.Tune.Spaces = map[string]idea.Space{"ideas[0]": {}} // alibi at its fixed scale
	lo, hi := p.Baseline[0].LR, p.Baseline[len(p.Baseline)-1].LR
	q := p.Tuned()
	require.NoError(t, q.Validate())
	require.Equal(t, idea.Range{Lo: lo, Hi: hi, Scale: idea.ScaleLog}, q.Tune.LR, "the range defaults to the baseline grid's")
	require.Equal(t, idea.Space{"bias": {Lo: 0, Hi: 4}}, q.Tune.Spaces["idea"], "fox's declared space")
	require.Len(t, q.Baseline, 6)
	biases := map[float64]bool{}
	for j := range q.Baseline {
		b, x, y := q.Baseline[j], q.Idea[j], q.Ideas[0].Grid[j]
		require.True(t, b.LR >= lo*0.999 && b.LR <= hi*1.001, "lr %v in [%v, %v]", b.LR, lo, hi)
		require.Equal(t, round3(b.LR), b.LR)
		require.Equal(t, b.LR, x.LR, "cfg %d: one rate for every arm", j)
		require.Equal(t, b.LR, y.LR)
		require.Equal(t, b.Recipe(), x.Recipe())
		require.Equal(t, b.Budget(), x.Budget())
		bias, _ := x.Params.Get("bias")
		require.True(t, bias >= 0 && bias <= 4, "bias %v", bias)
		biases[bias] = true
		scale, _ := y.Params.Get("scale")
		require.Equal(t, 2.0, scale, "a fixed parameter stays")
	}
	require.Len(t, biases, 6, "the design spreads the bias over its range")
	require.True(t, biases[0], "cfg 0 starts fox where its code does, bias 0")
	b0, _ := q.Idea[0].Params.Get("bias")
	require.Equal(t, 0.0, b0)

	narrow := p
	narrow.Tune = &Tune{Cfgs: 6, Seed: 1, Spaces: map[string]idea.Space{"idea": {"bias": {Lo: 1, Hi: 3}}, "ideas[0]": {}}}
	b0, _ = narrow.Tuned().Idea[0].Params.Get("bias")
	require.Equal(t, 1.0, b0, "a default outside a narrowed range starts at its nearest bound")
	require.Equal(t, q, q.Tuned(), "drawing again gives the same grids")

	other := p
	other.Tune = &Tune{Cfgs: 6, Seed: 2, Spaces: p.Tune.Spaces}
	require.NotEqual(t, q.Idea, other.Tuned().Idea, "another seed, another design")

	edited := q
	edited.Idea = append([]Cfg(nil), q.Idea...)
	edited.Idea[2].LR *= 2
	require.ErrorContains(t, edited.Validate(), "idea[2] = lr ")
	require.ErrorContains(t, edited.Validate(), "the tune block draws every grid")

	for _, c := range []struct {
		name string
		edit func(p *Protocol)
		want string
	}{
		{"one cfg", func(p *Protocol) { p.Tune.Cfgs = 1 }, "tune.cfgs = 1: must be in [2, "},
		{"linear lr", func(p *Protocol) { p.Tune.LR = idea.Range{Lo: 0.001, Hi: 0.01} }, "tune.lr = 0.001..0.01: the learning rate's range is lo..hi on a log scale"},
		{"no such arm", func(p *Protocol) { p.Tune.Spaces = map[string]idea.Space{"ideas[3]": {}} }, "tune.spaces.ideas[3]: not an idea arm"},
		{"no such parameter", func(p *Protocol) { p.Tune.Spaces = map[string]idea.Space{"idea": {"slope": {Lo: 0, Hi: 1}}} }, `tune.spaces.idea.slope = 0..1: fox has no parameter "slope"`},
		{"out of its values", func(p *Protocol) {
			p.Idea = IdeaGrid(p.Baseline, idea.Config{Name: "gate"})
			p.Tune.Spaces = map[string]idea.Space{"idea": {"rho": {Lo: 0.5, Hi: 1}}, "ideas[0]": {}}
		}, "tune.spaces.idea.rho = 0.5..1: at 1, "},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := q
			tu := *q.Tune
			r.Tune = &tu
			c.edit(&r)
			require.ErrorContains(t, r.Validate(), c.want)
		})
	}
}

// TestSetIdea: an idea from the command line takes its declared space
// when the protocol tunes, less the parameters it fixes, with the ranges
// it gives; a range without a tuner is refused with the fix.
func TestSetIdea(t *testing.T) {
	for _, c := range []struct {
		spec  string
		tune  bool
		space idea.Space
		want  string
	}{
		{"fox", true, idea.Space{"bias": {Lo: 0, Hi: 4}}, ""},
		{"fox:bias=2", true, idea.Space{}, ""},
		{"fox:bias=0..2", true, idea.Space{"bias": {Lo: 0, Hi: 2}}, ""},
		{"gate:beta=0.5", true, idea.Space{"rho": {Lo: 0.5, Hi: 0.99}}, ""},
		{"alibi:scale=1|2|4", true, idea.Space{"scale": {Values: []float64{1, 2, 4}}}, ""},
		{"fox:bias=0..2", false, nil, "add --tune N"},
		{"conv:width=0..3/int", true, nil, "parameter width = 0..3/int: conv.width = 0"},
	} {
		t.Run(c.spec, func(t *testing.T) {
			p := CIProfile()
			if c.tune {
				p.Tune = &Tune{Cfgs: 4, Seed: 1}
			}
			err := p.SetIdea(c.spec, false)
			if c.want != "" {
				require.ErrorContains(t, err, c.want)
				return
			}
			require.NoError(t, err)
			require.Equal(t, c.space, p.Tune.Spaces["idea"])
			require.NoError(t, p.Tuned().Validate())
		})
	}
}

// TestUntuned: --tune 0 gives the profile's fixed grids back, its own
// idea at the profile's settings and another at its defaults, whatever
// the draws were.
func TestUntuned(t *testing.T) {
	p, err := ProfileFor("full", "")
	require.NoError(t, err)
	require.NotNil(t, p.Tune)
	require.NoError(t, p.SetIdea("fox", true))
	q := p.Tuned().Untuned()
	require.Nil(t, q.Tune)
	require.Equal(t, FullProfile("panel").Baseline, q.Baseline)
	require.Equal(t, FullProfile("panel").Idea, q.Idea)
	for _, c := range q.Ideas[0].Grid {
		b, _ := c.Params.Get("bias")
		require.Equal(t, 0.0, b, "fox at its default")
	}
	require.NoError(t, q.Validate())
}
