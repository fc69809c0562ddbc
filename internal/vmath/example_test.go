package vmath_test

import (
	"fmt"

	"github.com/ideabench/ideabench/internal/vmath"
)

func ExampleGELU() {
	x := []float32{-3, -1, 0, 1, 3} // (N=5)
	y := make([]float32, len(x))    // (N=5)
	vmath.GELU(y, x)
	fmt.Printf("%.4f\n", y)

	dout := []float32{1, 1, 1, 1, 1} // (N=5) the gradient of y
	vmath.GELUBackward(y, x, dout)   // y now holds dx
	fmt.Printf("%.4f\n", y)
	// Output:
	// [-0.0036 -0.1588 0.0000 0.8412 2.9964]
	// [-0.0116 -0.0830 0.5000 1.0830 1.0116]
}
