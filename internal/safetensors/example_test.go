package safetensors_test

import (
	"bytes"
	"fmt"

	"github.com/ideabench/ideabench/internal/safetensors"
)

func Example() {
	tensors := []safetensors.Tensor{
		{Name: "fc.weight", Shape: []int{2, 3}, Data: []float32{1, 2, 3, 4, 5, 6}}, // (out,in)
		{Name: "fc.bias", Shape: []int{2}, Data: []float32{0.5, -0.5}},
	}
	var buf bytes.Buffer
	if err := safetensors.Write(&buf, tensors, map[string]string{"format": "pt"}); err != nil {
		fmt.Println(err)
		return
	}
	got, md, err := safetensors.Read(&buf)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range got {
		fmt.Println(t.Name, t.Shape, t.Data)
	}
	fmt.Println(md)
	// Output:
	// fc.weight [2 3] [1 2 3 4 5 6]
	// fc.bias [2] [0.5 -0.5]
	// map[format:pt]
}
