package report

// Look is one look of a sequential run.
type Look struct {
	NSeeds    int     `json:"n_seeds"`
	PValue    float64 `json:"p_value"`
	Boundary  float64 `json:"boundary"` // α_k, the p-value below which this look decides
	DeltaMean float64 `json:"delta_mean"`
	Decided   bool    `json:"decided"`
}

// SequentialReport is the report's record of a sequential run: every
// look, where it stopped, and the verdict with the error control of the
// design (the comparison block above describes the last look's seeds as a
// fixed-size study would).
type SequentialReport struct {
	Design     string `json:"design"`
	Spending   string `json:"spending"`
	MaxSeeds   int    `json:"max_seeds"`
	Test       string `json:"test"` // the p-value of each look: "selection-aware" or "sign-flip"
	Looks      []Look `json:"looks"`
	StoppedAt  int    `json:"stopped_at"` // seeds of the last look
	SeedsSaved int    `json:"seeds_saved"`
	Verdict    string `json:"verdict"`
}
