package golden_test

import (
	"fmt"

	"github.com/ideabench/ideabench/golden"
)

func ExampleNormalize() {
	out, _ := golden.Normalize([]byte(`{"mde":0.03800985743646764,"run":{"wall_seconds":18.4}}`))
	fmt.Print(string(out))
	// Output:
	// {
	//   "mde": 0.03801
	// }
}
