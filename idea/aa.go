package idea

import (
	"fmt"
	"math"
)

// aaSpec is the A/A control: the baseline model itself, trained on PCG
// streams disjoint from the baseline's. Any difference it shows is noise,
// so over many seed blocks its rate of significant verdicts estimates the
// test's false-positive rate.
var aaSpec = Spec{
	Name:      "aa",
	Doc:       "A/A control: the baseline model on disjoint initialization and batch-order streams (a difference is noise)",
	Rationale: "A control: the baseline on other streams, so any difference is noise.",
	Params: []Param{
		{Name: "stream", Default: 1, Doc: "which disjoint stream pair, an integer >= 1",
			Space:  &Range{Lo: 1, Hi: 1000000, Scale: ScaleInt},
			Source: "the A/A control: another pair of disjoint random streams, nothing else, so the arm searches a space as large as a real idea's and can gain nothing from it"},
	},
	Off: map[string]float64{}, // the model is the baseline's; only its streams differ
	New: func(p Params) (Idea, error) {
		s, _ := p.Get("stream")
		if !(s >= 1 && s == math.Trunc(s) && s < 1<<20) {
			return nil, fmt.Errorf("aa.stream = %v: must be an integer in [1, 2^20); use e.g. 1", s)
		}
		return AA{Stream: uint64(s)}, nil
	},
}

// AA is the A/A control at one stream.
type AA struct{ Stream uint64 }

func (a AA) Config() Config {
	return Config{Name: "aa", Params: NewParams(map[string]float64{"stream": float64(a.Stream)})}
}
func (AA) Site() Site             { return SiteAttention }
func (AA) Identity() bool         { return true }
func (AA) Tensors(Shape) []Tensor { return nil }
func (AA) State(Shape) int        { return 0 }
func (AA) Scratch(Shape) int      { return 0 }
func (AA) Float32() Op[float32]   { return nil }
func (AA) Float64() Op[float64]   { return nil }

// StreamOffset moves the trial's streams by Stream·2³²: far from the
// baseline's (offset 0) and from each other.
func (a AA) StreamOffset() uint64 { return a.Stream << 32 }
