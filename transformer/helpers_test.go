package transformer

import "github.com/ideabench/ideabench/idea"

// gateIdea is the fading-memory gate idea at (ρ, β).
func gateIdea(rho, beta float64) idea.Config {
	return idea.Config{Name: "gate", Params: idea.NewParams(map[string]float64{"rho": rho, "beta": beta})}
}
