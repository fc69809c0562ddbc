package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/internal/jsonstrict"
)

// CompareVersion is the schema version of a comparison of results made
// elsewhere (Compared).
const CompareVersion = 1

// Compared is the report of `ideabench compare`: arms whose trials ran
// elsewhere, given as per-seed metrics, compared as a run's arms are. Its
// inputs are Arms' per-seed values, MetricDirection, Alpha and MinEffect;
// the rest is derived (compare.Compare) and verified (compare.Verify).
type Compared struct {
	CompareVersion  int     `json:"compare_version"`
	Source          string  `json:"source"`           // the file the metrics were read from
	MetricDirection string  `json:"metric_direction"` // "lower_is_better" or "higher_is_better"
	Alpha           float64 `json:"alpha"`
	// MinEffectPct is the smallest improvement of interest in percent of
	// the baseline's mean (power, negligible-effect warning); 0 is none.
	MinEffectPct float64 `json:"min_effect_pct"`
	// Seeds are the seed labels, in the order of every per_seed list.
	Seeds []string `json:"seeds"`
	// Arms are the baseline (first) and the idea arms, each with its
	// cfgs' per-seed metrics and the cfg it chose.
	Arms []ComparedArm `json:"arms"`
	// Comparison is the first idea arm against the baseline; Ideas the
	// further idea arms (Holm-adjusted across all of them).
	Comparison    Comparison        `json:"comparison"`
	Ideas         []ComparedIdea    `json:"ideas,omitempty"`
	Digests       map[string]string `json:"digests,omitempty"`
	DeriveVersion string            `json:"derive_version"`
}

// ComparedArm is one arm of a comparison of results made elsewhere.
type ComparedArm struct {
	Name string        `json:"name"`
	Cfgs []ComparedCfg `json:"cfgs"`
	// BestCfg is the index of the cfg with the best mean val metric (the
	// only cfg when there is no val metric).
	BestCfg int `json:"best_cfg"`
	// Result is the chosen cfg's test metric.
	Result Summary `json:"result"`
}

// ComparedCfg is one cfg's per-seed metrics.
type ComparedCfg struct {
	Name string   `json:"name"`
	Val  *Summary `json:"val,omitempty"`
	Test Summary  `json:"test"`
}

// ComparedIdea is a further idea arm's comparison with the baseline.
type ComparedIdea struct {
	Name       string     `json:"name"`
	Comparison Comparison `json:"comparison"`
}

// IsCompared reports whether raw is a comparison report (Compared).
func IsCompared(raw []byte) bool {
	var v *int
	return jsonstrict.Peek(raw, "compare_version", &v) && v != nil
}

// WriteFile writes c as indented JSON, atomically.
func (c *Compared) WriteFile(path string) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("compare: encoding %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// ReadCompared reads a comparison report strictly (jsonstrict):
// malformed JSON, trailing data, a mistyped value, a key given twice or
// an unknown key (nothing would check it) is an error naming the file
// and where.
func ReadCompared(path string) (*Compared, error) {
	var c Compared
	if err := jsonstrict.ReadFile(path, "comparison report", &c); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	return &c, nil
}
