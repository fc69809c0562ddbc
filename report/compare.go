package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/ideabench/ideabench/internal/atomicfile"
	"github.com/ideabench/ideabench/internal/inputfile"
	"github.com/ideabench/ideabench/internal/jsonstrict"
)

// CompareVersion is the schema version of a comparison of results made
// elsewhere (Compared). Version 2 records the files it was made from
// (Sources) with their SHA-256; ReadCompared refuses version 1, whose
// source nothing checked.
const CompareVersion = 2

// Compared is the report of `ideabench compare`: arms whose trials ran
// elsewhere, given as per-seed metrics, compared as a run's arms are. Its
// inputs are Sources, Arms' names, cfg names and per-seed values, Seeds,
// MetricDirection, Alpha and MinEffectPct; the rest is derived
// (compare.Compare) and verified (compare.Verify), and the inputs are
// covered by Digests. verify also reads every source that is there again
// and derives the report from its rows (compare.VerifyWithSources). No leaf
// is free: each is derived again or digested.
type Compared struct {
	CompareVersion int `json:"compare_version"`
	// Source is the sources as one line: the metrics file's path, or
	// NAME=PATH#ARM for each run report's arm; derived from Sources.
	Source string `json:"source"`
	// Sources are the files the arms' per-seed metrics were read from,
	// each with the SHA-256 of its bytes.
	Sources         []ComparedSource `json:"sources"`
	MetricDirection string           `json:"metric_direction"` // "lower_is_better" or "higher_is_better"
	Alpha           float64          `json:"alpha"`
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
	Comparison Comparison     `json:"comparison"`
	Ideas      []ComparedIdea `json:"ideas,omitempty"`
	// Digests are report.Digest of the inputs: "sources", "arms" (names,
	// cfg names, per-seed values), "seeds" and "settings" (direction,
	// alpha, min_effect_pct), so an input edited alone is named.
	Digests       map[string]string `json:"digests,omitempty"`
	DeriveVersion string            `json:"derive_version"`
}

// ComparedSource is one file a comparison was made from: the one file of
// per-seed metrics (CSV or JSON; Arm and ArmOfReport empty), or the run
// report one arm was taken from (compare NAME=PATH#ARM), one source per
// arm in the order given.
type ComparedSource struct {
	// Arm is the comparison's arm taken from a run report (NAME); empty
	// for a metrics file, which holds every arm.
	Arm string `json:"arm,omitempty"`
	// Path is the file as compare was given it: a relative path is
	// relative to the directory compare ran in (verify looks there, then
	// beside the comparison report).
	Path string `json:"path"`
	// ArmOfReport is the report's arm Arm was taken from: baseline, idea
	// or an idea arm's name; empty for a metrics file.
	ArmOfReport string `json:"arm_of_report,omitempty"`
	// SHA256 is the SHA-256 of the file's bytes, lowercase hex; empty
	// only for rows handed to compare.Compare in memory, which have no
	// file to read again.
	SHA256 string `json:"sha256"`
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
// and where. A compare_version other than CompareVersion is an error
// saying to make the report again: an older one records no sources to
// check, a newer one fields this build cannot check. A file of more
// than MaxComparedBytes is refused before it is parsed.
func ReadCompared(path string) (*Compared, error) {
	var c Compared
	raw, err := inputfile.Read(path, MaxComparedBytes)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	if err := jsonstrict.Decode(raw, path, "comparison report", &c); err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	switch {
	case c.CompareVersion < CompareVersion:
		return nil, fmt.Errorf("report: %s: compare_version %d is older than this ideabench's %d and does not record its sources' SHA-256, so its source cannot be checked; run ideabench compare again on its source (%s) to make it anew", path, c.CompareVersion, CompareVersion, c.Source)
	case c.CompareVersion > CompareVersion:
		return nil, fmt.Errorf("report: %s: compare_version %d is newer than this ideabench's %d; verify it with the ideabench that wrote it, or run this one's compare again on its source (%s)", path, c.CompareVersion, CompareVersion, c.Source)
	}
	return &c, nil
}
