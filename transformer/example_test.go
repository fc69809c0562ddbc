package transformer_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ideabench/ideabench/idea"
	"github.com/ideabench/ideabench/transformer"
)

func Example() {
	c := transformer.DefaultConfig()
	c.Idea = idea.Config{Name: "gate", Params: idea.NewParams(map[string]float64{"rho": 0.85, "beta": 0.5})}
	const b = 2
	m, err := transformer.New[float32](c, b)
	if err != nil {
		fmt.Println(err)
		return
	}
	m.Params.Init(rand.New(rand.NewPCG(0, 1)))
	x := make([]float32, b*c.T*c.CIn) // (B,T,CIn)
	pred := m.Forward(x, b)           // (B,T,H)
	fmt.Println(c.NumParams(), "parameters;", len(pred), "forecasts =", b, "x", c.T, "x", c.H)
	// Output: 26824 parameters; 512 forecasts = 2 x 32 x 8
}
