package idea

import "math"

// alibiSpec is ALiBi (Press et al., ICLR 2022, "Train Short, Test Long:
// Attention with Linear Biases"): a fixed bias −m_h·(i − j) on the logit
// of query i on key j, with the paper's geometric slopes m_h = 2^(−8(h+1)/H)
// for H heads, times scale. It is meant in place of learned positions
// (arch.positions "none" on a token track); it has no parameters to
// learn, and scale 0 is the identity.
var alibiSpec = Spec{
	Name:      "alibi",
	Doc:       "ALiBi: a fixed bias −scale·m_h·(i−j) on the logit of query i on key j, slopes m_h = 2^(−8(h+1)/H); meant with arch.positions none",
	Rationale: "ALiBi's fixed bias over distance makes each head prefer recent keys at its own rate, without learned positions.",
	Params: []Param{
		{Name: "scale", Default: 1, Doc: "a factor on every slope; 0 is the identity",
			Space:  &Range{Lo: 0.25, Hi: 4, Scale: ScaleLog},
			Source: "Press et al. 2022 (ALiBi) fix the slopes at 2^(-8h/H), scale 1; the range scales them four times each way"},
	},
	New: func(p Params) (Idea, error) {
		s, _ := p.Get("scale")
		return ALiBi{Scale: s}, nil
	},
	Off: map[string]float64{"scale": 0},
}

// ALiBi is the alibi idea at one setting.
type ALiBi struct{ Scale float64 }

func (a ALiBi) Config() Config {
	return Config{Name: "alibi", Params: NewParams(map[string]float64{"scale": a.Scale})}
}
func (ALiBi) Site() Site             { return SiteLogits }
func (a ALiBi) Identity() bool       { return a.Scale == 0 }
func (ALiBi) Tensors(Shape) []Tensor { return nil }
func (ALiBi) State(Shape) int        { return 0 }
func (ALiBi) Scratch(Shape) int      { return 0 }
func (a ALiBi) Float32() Op[float32] { return alibiOp[float32]{a.Scale} }
func (a ALiBi) Float64() Op[float64] { return alibiOp[float64]{a.Scale} }
func (a ALiBi) Slope(h, heads int) float64 {
	return a.Scale * math.Exp2(-8*float64(h+1)/float64(heads))
}

type alibiOp[F Float] struct{ scale float64 }

// Forward: y[h,j,i] = −m_h·(i − j) for j ≤ i, 0 above; x is not read.
func (o alibiOp[F]) Forward(y, _, _, _ []F, s Shape) {
	nh, n := s.Heads, s.N
	for bi := range s.B {
		for h := range nh {
			m := ALiBi{o.scale}.Slope(h, nh)
			for j := range n {
				row := y[((bi*nh+h)*n+j)*n:][:n]
				clear(row[:j])
				for i := j; i < n; i++ {
					row[i] = F(-m * float64(i-j))
				}
			}
		}
	}
}

// Backward: the bias does not depend on x, so dx = 0.
func (alibiOp[F]) Backward(dx, _, _, _, _, _, _ []F, _ Shape) { clear(dx) }
