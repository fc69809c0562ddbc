package harness_test

import (
	"context"
	"fmt"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/protocol"

	"github.com/ideabench/ideabench/harness"
)

func Example() {
	p := protocol.CIProfile()
	p.Seeds = []uint64{0, 1}
	p.Baseline = p.Baseline[:1]
	p.Idea = p.Idea[:1]
	p.Arch = protocol.Arch{D: 8, Heads: 2, Layers: 1, Batch: 32}
	p.Sequence.TrainWindows, p.Sequence.ValWindows, p.Sequence.TestWindows = 48, 16, 16
	out, err := harness.Run(context.Background(), p, harness.Options{Workers: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := out.Report
	fmt.Println(len(out.Trials), "trials;", r.Comparison.NPairs, "pairs;", r.Comparison.PValueMethod, "p-value")
	fmt.Println("mismatches:", len(derive.Verify(r, derive.VerifyOptions{Rerun: true}).Mismatches()))
	// Output:
	// 4 trials; 2 pairs; exact p-value
	// mismatches: 0
}
