package stats_test

import (
	"fmt"

	"github.com/ideabench/ideabench/stats"
)

// Compare the per-seed test MSE of a baseline and an idea over 8 paired
// seeds (the reference study).
func Example() {
	baseline := []float64{0.5299, 0.4589, 0.5064, 0.5548, 0.5245, 0.5540, 0.6065, 0.5219}
	idea := []float64{0.6348, 0.3989, 0.5057, 0.5537, 0.5339, 0.5506, 0.6029, 0.5355}

	c, err := stats.Compare(baseline, idea, stats.LowerIsBetter, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	full := stats.Summarize(baseline)
	fmt.Printf("baseline %.4f ± %.4f\n", full.Mean, full.Std)
	fmt.Printf("delta %+.4f, idea wins %d of %d\n", c.DeltaMean, c.IdeaWins, c.NPairs)
	fmt.Printf("p = %.4f (%s), MDE %.4f (%.2f%%)\n", c.PValue, c.PValueMethod, c.MDE, c.MDERelPct)
	fmt.Println(c.Verdict)
	for _, w := range c.Warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// baseline 0.5321 ± 0.0399
	// delta +0.0074, idea wins 5 of 8
	// p = 0.6250 (exact), MDE 0.0380 (7.14%)
	// no significant win
	// warning: stats: effect below MDE: |delta_mean| = 0.007387 is below MDE = 0.03801; the seeds cannot resolve an effect this small, run more seeds
}

// One idea against the baseline on two tracks of three seeds, one cfg an
// arm: the suite's effect is the mean over tracks of the mean log ratio
// of the test metrics (positive: the idea is better).
func ExampleSuite() {
	arm := func(test ...float64) stats.Arm {
		return stats.Arm{Val: [][]float64{test}, Test: [][]float64{test}}
	}
	tracks := []stats.SuiteTrack{
		{Baseline: arm(0.50, 0.52, 0.51), Idea: arm(0.48, 0.50, 0.50)},
		{Baseline: arm(1.10, 1.05, 1.08), Idea: arm(1.02, 1.00, 1.04)},
	}
	r, err := stats.Suite(tracks, stats.LowerIsBetter, stats.DefaultSuiteOptions(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("idea better by %.2f%%, p = %.4f (%s)\n", r.MeanPct, r.PValue, r.Method)
	fmt.Printf("probability of improvement %.2f\n", r.PoI)
	fmt.Println(r.Verdict)
	// Output:
	// idea better by 4.46%, p = 0.0312 (exact)
	// probability of improvement 0.94
	// better
}
