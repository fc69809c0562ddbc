package kernel_test

import (
	"fmt"

	"github.com/ideabench/ideabench/internal/kernel"
)

func ExampleLinear() {
	x := []float64{1, 2}       // (N=1, In=2)
	w := []float64{1, 0, 1, 1} // (Out=2, In=2), rows are output features
	y := make([]float64, 2)    // (N=1, Out=2)
	kernel.Linear(y, x, w, []float64{0.5, 0}, 1, 2, 2)
	fmt.Println(y)
	// Output: [1.5 3]
}
