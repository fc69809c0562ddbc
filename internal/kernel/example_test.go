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

// A causal product: the lower-triangular P (rows sum to 1) times V, each
// output row a weighted mean of the V rows at or before it.
func ExampleTriGemm() {
	p := []float32{ // (T=3, T=3), zero above the diagonal
		1, 0, 0,
		0.5, 0.5, 0,
		0.25, 0.25, 0.5,
	}
	v := []float32{ // (T=3, N=2)
		4, 8,
		0, 4,
		2, 2,
	}
	out := make([]float32, 6)
	kernel.TriGemm(out, 2, p, 3, 1, v, 2, 3, 2, false)
	fmt.Println(out)
	// Output: [4 8 2 6 2 4]
}
