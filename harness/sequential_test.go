package harness

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/internal/testkit"
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/report"
	"github.com/ideabench/ideabench/trial"

	"github.com/ideabench/ideabench/stats"
	"github.com/stretchr/testify/require"
)

// simulateLooks runs the design's rule on streams of paired differences
// drawn by draw: looks at 8, 16, 24 and 32 seeds, each rejecting when its
// sign-flip p-value is below the spent increment; it returns the share of
// streams that rejected and the mean number of seeds used.
func simulateLooks(t *testing.T, kind string, streams int, draw func(r *rand.Rand) float64) (rate, seeds float64) {
	t.Helper()
	s := &protocol.Sequential{MaxSeeds: 32, Spending: kind}
	sizes := s.LookSizes(8)
	require.Equal(t, []int{8, 16, 24, 32}, sizes)
	opt := stats.DefaultOptions()
	opt.ExactMaxN, opt.MonteCarloDraws = 12, 2000
	r := rand.New(rand.NewPCG(11, uint64(len(kind))))
	rejects, used := 0, 0
	d := make([]float64, 32)
	zero := make([]float64, 32)
	for range streams {
		for i := range d {
			d[i] = draw(r)
		}
		prev := 0.0
		for _, n := range sizes {
			spent := protocol.Spend(kind, 0.05, float64(n)/32)
			c, err := stats.Compare(zero[:n], d[:n], stats.LowerIsBetter, &opt)
			require.NoError(t, err)
			stop := c.PValue < spent-prev
			prev = spent
			if stop || n == 32 {
				used += n
				if stop {
					rejects++
				}
				break
			}
		}
	}
	return float64(rejects) / float64(streams), float64(used) / float64(streams)
}

// TestSequentialErrorRate: under the null (differences symmetric about 0)
// the design rejects at most alpha of the time over all four looks,
// within the binomial 95% interval; under an alternative it stops early.
func TestSequentialErrorRate(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 2 x 1500 studies")
	}
	const streams = 1000
	for _, kind := range []string{protocol.SpendOBrienFleming, protocol.SpendPocock} {
		rate, _ := simulateLooks(t, kind, streams, func(r *rand.Rand) float64 { return r.NormFloat64() })
		lo, hi := stats.ClopperPearson(int(math.Round(rate*streams)), streams, 0.95)
		t.Logf("%s: null rejection rate %.4f [%.4f, %.4f]", kind, rate, lo, hi)
		require.LessOrEqual(t, lo, 0.05, "%s: the rate is not above alpha", kind)
		power, seeds := simulateLooks(t, kind, 300, func(r *rand.Rand) float64 { return -0.8 + r.NormFloat64() })
		t.Logf("%s: effect -0.8 sd: power %.3f, mean seeds %.1f of 32", kind, power, seeds)
		require.Greater(t, power, 0.8, kind)
		require.Less(t, seeds, 24.0, "%s stops early under a real effect", kind)
	}
}

// TestSequentialRun: a sequential protocol runs look after look on one
// store, records each look, verifies, and resumes from its trials; a
// tampered look is caught.
func TestSequentialRun(t *testing.T) {
	p := testkit.TinyProtocol()
	p.Sequential = &protocol.Sequential{MaxSeeds: 6, Spending: protocol.SpendPocock}
	require.NoError(t, p.Validate())
	s, err := trial.OpenStore(t.TempDir())
	require.NoError(t, err)
	o, err := Run(context.Background(), p, Options{Store: s})
	require.NoError(t, err)
	r := o.Report
	require.NotNil(t, r.Sequential)
	sr := r.Sequential
	require.Equal(t, []int{3, 6}, []int{sr.Looks[0].NSeeds, sr.Looks[len(sr.Looks)-1].NSeeds})
	require.False(t, sr.Looks[0].Decided, "3 seeds cannot reach a p-value of 0.25 or less")
	require.Equal(t, 6, r.NSeeds)
	require.Equal(t, []uint64{0, 1, 2, 3, 4, 5}, r.MechanismSignature.Protocol.Seeds)
	require.Equal(t, p.Sequential, r.Setup.Protocol.Sequential)
	require.Equal(t, "selection-aware", sr.Test)
	require.Empty(t, derive.Verify(r, derive.VerifyOptions{}).Mismatches())

	again, err := Run(context.Background(), p, Options{Store: s})
	require.NoError(t, err)
	require.Zero(t, again.Computed, "every look's trials are stored")
	require.Equal(t, marshal(t, o), marshal(t, again))

	for _, tc := range []struct {
		field string
		edit  func(sr *report.SequentialReport)
	}{
		{"sequential.looks[0].boundary", func(sr *report.SequentialReport) { sr.Looks[0].Boundary = 0.05 }},
		{"sequential.looks[1].p_value", func(sr *report.SequentialReport) { sr.Looks[1].PValue /= 2 }},
		{"sequential.verdict", func(sr *report.SequentialReport) { sr.Verdict = stats.VerdictWin }},
		{"sequential.seeds_saved", func(sr *report.SequentialReport) { sr.SeedsSaved = 3 }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			edit := func(r *report.Report) { tc.edit(r.Sequential) }
			testkit.RequireNamed(t, tamperedFields(t, r, edit), tc.field)
		})
	}
	bad := p
	bad.Sequential = &protocol.Sequential{MaxSeeds: 2}
	require.ErrorContains(t, bad.Validate(), "sequential.max_seeds = 2")
}

// TestEarlyStop: a run of 4 seeds or more replays itself as a sequential
// design with looks at half its seeds and all of them; verify re-derives
// it; fewer seeds have none.
func TestEarlyStop(t *testing.T) {
	p := testkit.TinyProtocol()
	o, err := Run(context.Background(), p, Options{})
	require.NoError(t, err)
	require.Nil(t, o.Report.EarlyStop, "3 seeds")

	p.Seeds = []uint64{0, 1, 2, 3}
	o, err = Run(context.Background(), p, Options{})
	require.NoError(t, err)
	es := o.Report.EarlyStop
	require.NotNil(t, es)
	require.Equal(t, 2, es.Looks[0].NSeeds)
	require.InDelta(t, protocol.Spend(protocol.SpendOBrienFleming, 0.05, 0.5), es.Looks[0].Boundary, 1e-15)
	require.False(t, es.Looks[0].Decided, "2 seeds cannot decide")
	require.Equal(t, 4, es.StoppedAt)
	require.Empty(t, derive.Verify(o.Report, derive.VerifyOptions{}).Mismatches())
	es.Looks[0].PValue /= 3
	var fields []string
	for _, m := range derive.Verify(o.Report, derive.VerifyOptions{}).Mismatches() {
		fields = append(fields, m.Field)
	}
	testkit.RequireNamed(t, fields, "early_stop.looks[0].p_value")
}
