package report_test

import (
	"fmt"

	"github.com/ideabench/ideabench/report"
)

// Reading the seed report: its schema is this package's, field for field.
func Example() {
	r, err := report.Read("testdata/seed-report.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	c := r.Comparison
	fmt.Printf("%s, %d seeds: delta %.4f, p = %.4f, %s\n", r.Track, r.NSeeds, c.DeltaMean, c.PValue, c.Verdict)
	fmt.Println("fields missing:", len(r.MissingFields()))
	// Output:
	// sequence, 8 seeds: delta 0.0074, p = 0.6281, no significant win
	// fields missing: 0
}
