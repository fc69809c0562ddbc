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
