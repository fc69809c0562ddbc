package idea

import "github.com/ideabench/ideabench/gate"

// gateSpec is the per-token fading-memory gate of package gate on each
// block's attention branch.
var gateSpec = Spec{
	Name: "gate",
	Doc:  "per-token fading-memory gain on the attention branch: s = ρ·s + (1-ρ)·mean(a²), a ← a/(1+β·s)",
	Params: []Param{
		{"rho", 0.9, "memory factor ρ in [0,1)"},
		{"beta", 0.5, "gain strength β >= 0; 0 is the identity"},
	},
	Off: map[string]float64{"beta": 0},
	New: func(p Params) (Idea, error) {
		rho, _ := p.Get("rho")
		beta, _ := p.Get("beta")
		g := gate.Params{Rho: rho, Beta: beta}
		if err := g.Validate(); err != nil {
			return nil, err
		}
		return Gate{g}, nil
	},
}

// Gate is the gate idea at one setting.
type Gate struct{ P gate.Params }

func (g Gate) Config() Config {
	return Config{Name: "gate", Params: NewParams(map[string]float64{"rho": g.P.Rho, "beta": g.P.Beta})}
}
func (Gate) Site() Site                { return SiteAttention }
func (g Gate) Identity() bool          { return g.P.Identity() }
func (Gate) Tensors(Shape) []Tensor    { return nil }
func (Gate) State(s Shape) int         { return s.N }
func (Gate) Scratch(s Shape) int       { return s.N }
func (g Gate) Float32() Op[float32]    { return gateOp[float32](g) }
func (g Gate) Float64() Op[float64]    { return gateOp[float64](g) }
func (g Gate) GateParams() gate.Params { return g.P }
func (g Gate) String() string          { return g.Config().Params.String() }

type gateOp[F Float] Gate

func (g gateOp[F]) Forward(y, state, x, _ []F, s Shape) {
	gate.Forward(y, state, x, s.B, s.N, s.C, g.P)
}

func (g gateOp[F]) Backward(dx, _, scratch, dy, x, state, _ []F, s Shape) {
	clear(dx) // gate.Backward accumulates
	gate.Backward(dx, scratch, dy, x, state, s.B, s.N, s.C, g.P)
}

// NewProbe returns the gate's mechanism probe (gate.Probe).
func (g Gate) NewProbe(instances int, s Shape) Probe {
	return gateProbe{gate.NewProbe(g.P, instances, s.N)}
}

// gateProbe feeds gate.Probe; Signature returns its result.
type gateProbe struct{ p *gate.Probe }

func (g gateProbe) Add(l int, state, x []float32, s Shape) { g.p.Add(l, state, x, s.B, s.N, s.C) }

// GateSignature returns the per-block signatures of a gate probe, nil
// when p is not one or a number was not finite.
func GateSignature(p Probe) []gate.LayerSignature {
	if g, ok := p.(gateProbe); ok {
		return g.p.Finish()
	}
	return nil
}
