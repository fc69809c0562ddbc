package track_test

import (
	"fmt"

	"github.com/ideabench/ideabench/track"
)

func ExampleMQAR() {
	d, err := track.MQAR(track.CIMQARConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	tok, lab := d.Test.Seq(0)
	fmt.Printf("%s: train N=%d val N=%d test N=%d, T=%d, vocab %d, %d answers\n",
		d.Name, d.Train.N, d.Val.N, d.Test.N, d.Test.T, d.Vocab, len(d.Answers))
	fmt.Println("pairs:  ", tok[:8])
	for t, l := range lab {
		if l >= 0 {
			fmt.Printf("query %d at %d -> %d\n", tok[t], t, l)
		}
	}
	for _, r := range d.References() {
		if r.Name == "chance" || r.Name == "oracle" {
			fmt.Printf("%s accuracy %.4f\n", r.Name, r.Accuracy)
		}
	}
	// Output:
	// mqar: train N=64 val N=16 test N=16, T=24, vocab 32, 16 answers
	// pairs:   [5 27 9 16 13 20 1 26]
	// query 9 at 8 -> 16
	// query 5 at 10 -> 27
	// query 1 at 12 -> 26
	// query 13 at 20 -> 20
	// chance accuracy 0.0625
	// oracle accuracy 1.0000
}
