package trial_test

import (
	"context"
	"fmt"

	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/trial"
)

// A trial is a pure function of its protocol, cfg and seed: trained twice,
// it gives the same bits.
func Example() {
	p := protocol.CIProfile()
	p.Arch = protocol.Arch{D: 8, Heads: 2, Layers: 1, Batch: 32}
	p.Sequence.TrainWindows, p.Sequence.ValWindows, p.Sequence.TestWindows = 48, 16, 16
	d, err := p.Data()
	if err != nil {
		fmt.Println(err)
		return
	}
	c := p.Baseline[0]
	first, err := trial.RunTrial(context.Background(), p, d.Dataset, c, 7)
	if err != nil {
		fmt.Println(err)
		return
	}
	again, _ := trial.RunTrial(context.Background(), p, d.Dataset, c, 7)
	fmt.Println(len(first.ValCurve) == c.Epochs, "epochs scored; diverged:", first.Diverged)
	fmt.Println("same bits:", first.Test == again.Test && first.Val == again.Val)
	// Output:
	// true epochs scored; diverged: false
	// same bits: true
}
