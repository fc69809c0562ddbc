package compare_test

import (
	"fmt"

	"github.com/ideabench/ideabench/compare"
	"github.com/ideabench/ideabench/stats"
)

// Two arms trained elsewhere, one cfg each, on four seeds: the idea is
// better by 0.1 to 0.4, on every seed.
func Example() {
	var rows []compare.Row
	for s, x := range []float64{1, 2, 3, 4} {
		rows = append(rows, compare.Row{Arm: "baseline", Seed: fmt.Sprint(s), Test: x})
		rows = append(rows, compare.Row{Arm: "idea", Seed: fmt.Sprint(s), Test: 0.9 * x})
	}
	c, err := compare.Compare(rows, compare.Options{Source: "example", Direction: stats.LowerIsBetter})
	if err != nil {
		fmt.Println(err)
		return
	}
	x := c.Comparison
	fmt.Printf("delta %.2f, wins %d/%d, p = %.4f (%s), %s\n", x.DeltaMean, x.IdeaWins, x.NPairs, x.PValue, x.PValueMethod, x.Verdict)
	fmt.Println("mismatches:", len(compare.Verify(c).Mismatches()))
	// Output:
	// delta -0.25, wins 4/4, p = 0.1250 (exact), no significant win
	// mismatches: 0
}
