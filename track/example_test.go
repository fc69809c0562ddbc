package track_test

import (
	"fmt"

	"github.com/ideabench/ideabench/track"
)

func Example() {
	d, err := track.Sequence(track.DefaultSequenceConfig())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: train N=%d val N=%d test N=%d, T=%d H=%d C=%d\n",
		d.Name, d.Train.N, d.Val.N, d.Test.N, d.Test.T, d.Test.H, d.Test.C)
	l, err := track.FitLinear(&d.Train)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("linear beats persistence:", l.MSE(&d.Test) < track.Persistence(&d.Test, d.Target))
	fmt.Println("linear above noise floor:", l.MSE(&d.Test) > d.NoiseFloor)
	// Output:
	// sequence: train N=1024 val N=256 test N=256, T=32 H=8 C=1
	// linear beats persistence: true
	// linear above noise floor: true
}
