package derive_test

import (
	"context"
	"fmt"

	"github.com/ideabench/ideabench/derive"
	"github.com/ideabench/ideabench/harness"
	"github.com/ideabench/ideabench/protocol"
)

// Verify derives a report again from the inputs it carries and names
// every field that differs: a fresh report, then the same with its
// headline p-value halved.
func Example() {
	p := protocol.CIProfile()
	p.Seeds = []uint64{0, 1}
	p.Baseline, p.Idea = p.Baseline[:1], p.Idea[:1]
	p.Arch = protocol.Arch{D: 8, Heads: 2, Layers: 1, Batch: 32}
	p.Sequence.TrainWindows, p.Sequence.ValWindows, p.Sequence.TestWindows = 48, 16, 16
	out, err := harness.Run(context.Background(), p, harness.Options{Workers: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	r := out.Report
	fmt.Println("mismatches:", len(derive.Verify(r, derive.VerifyOptions{}).Mismatches()))
	r.Comparison.PValue /= 2
	for _, f := range derive.Verify(r, derive.VerifyOptions{}).Mismatches() {
		fmt.Println("mismatch:", f.Field)
	}
	// Output:
	// mismatches: 0
	// mismatch: comparison.p_value
}
