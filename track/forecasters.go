package track

import (
	"encoding/json"
	"math"
)

// Forecasters are reference forecasters on the same test windows.
type Forecasters struct {
	Persistence         float64 `json:"persistence"`           // repeat the last value
	LinearAR            float64 `json:"linear_ar"`             // least-squares linear map of the window
	NoiseFloor          float64 `json:"noise_floor,omitempty"` // the generator's optimal forecaster
	BaselineBeatsLinear bool    `json:"baseline_beats_linear"` // baseline full mean < linear_ar
	IdeaBeatsLinear     bool    `json:"idea_beats_linear"`     // idea mean < linear_ar

	// LinearCentred is the test MSE of the last-value-centred linear map
	// (NLinear, FitLinearCentred): linear_ar fitted on windows
	// minus their last value, which follows a level shift between train
	// and test.
	LinearCentred *float64 `json:"linear_centred,omitempty"`
	// LinearARPerChannel and LinearCentredPerChannel are, on a track
	// that forecasts several channels each as its own series (csv
	// channels "independent"), the test MSE of linear_ar and
	// linear_centred fitted once per channel (FitPerSeries), where
	// linear_ar and linear_centred are one map shared by the channels:
	// the strongest cheap forecasters of the multivariate benchmarks
	// (on weather at look-back 336 they match the published
	// transformers). Absent on single-series tracks, where the two are
	// the same map.
	//
	// On a real panel (the tsf track) they are the maps fitted once per
	// series (RealPanel.PerSeriesMaps: ridge least squares on the
	// series' own training windows, the strength chosen on val and
	// recorded in Lambdas).
	LinearARPerChannel      *float64 `json:"linear_ar_per_channel,omitempty"`
	LinearCentredPerChannel *float64 `json:"linear_centred_per_channel,omitempty"`
	// Lambdas are, on a real panel, the ridge strength each per-series
	// map chose (a multiple of the series' number of training windows),
	// keyed by the reference's name.
	Lambdas map[string]float64 `json:"lambdas,omitempty"`
	// SeasonalPersistence is the test MSE of repeating the last
	// SeasonalPeriod inputs (SeasonalPersistence); absent when the
	// track has no period or its context is shorter than one.
	SeasonalPersistence *float64 `json:"seasonal_persistence,omitempty"`
	// SeasonalPeriod is that period in time steps (the csv track: a day
	// of hourly or 15-minute rows, a week of daily ones).
	SeasonalPeriod int `json:"seasonal_period,omitempty"`
	// SES and Theta are, on a real panel (the tsf track), the test MSE
	// of the archive's classical references fitted on each series'
	// in-sample part: simple exponential smoothing and the Theta method
	// (RealPanel.Classical).
	SES   *float64 `json:"ses,omitempty"`
	Theta *float64 `json:"theta,omitempty"`
	// MASE is, on a real panel, each reference's test score in the
	// archive's metric, the mean over the series of each one's MASE
	// (RealPanel.MeanMASE), keyed by the reference's name.
	MASE map[string]float64 `json:"mase,omitempty"`
	// Val holds the same forecasters' val MSE.
	Val *ReferenceVal `json:"val,omitempty"`
	// Contexts is, when the grid tunes the look-back (cfg.context), the
	// look-back each reference that reads it was fitted at: the one of
	// its least val MSE among the grid's (references).
	Contexts map[string]int `json:"contexts,omitempty"`

	// BestReference names the reference forecaster with the lowest test
	// MSE (see Best; the noise floor is an oracle, not a forecaster a
	// model could be asked to beat).
	BestReference string `json:"best_reference"`
	// BestReferenceMSE is its test MSE.
	BestReferenceMSE float64 `json:"best_reference_mse"`
	// BaselineMargin is best_reference_mse - baseline.full.mean: positive
	// when the baseline beats the best reference, by that much.
	BaselineMargin float64 `json:"baseline_margin"`
	// BaselineMarginPct is 100·baseline_margin/best_reference_mse.
	BaselineMarginPct float64 `json:"baseline_margin_pct"`
	// BaselineCompetent is baseline_margin > 0: a comparison against a
	// baseline that a closed-form forecaster beats is hollow.
	BaselineCompetent bool `json:"baseline_competent"`

	// Tokens holds, on a token track (TokenForecasters), the test
	// cross-entropy and accuracy of the token references: chance,
	// majority, bigram and the oracle's ceiling. The forecasting fields
	// are then zero and left out of the JSON, best_reference names the
	// best of chance, majority and bigram by cross-entropy (the oracle
	// is a ceiling, as the noise floor is a floor), and
	// best_reference_mse holds its cross-entropy: the track's metric.
	Tokens []TokenReference `json:"tokens,omitempty"`
}

// tokenForecasters is the JSON of Forecasters on a token track.
type tokenForecasters struct {
	Tokens            []TokenReference `json:"tokens"`
	Val               *ReferenceVal    `json:"val,omitempty"`
	BestReference     string           `json:"best_reference"`
	BestReferenceMSE  float64          `json:"best_reference_mse"`
	BaselineMargin    float64          `json:"baseline_margin"`
	BaselineMarginPct float64          `json:"baseline_margin_pct"`
	BaselineCompetent bool             `json:"baseline_competent"`
}

// MarshalJSON writes a forecasting track's references with every field
// the seed report's schema has, and a token track's (Tokens) with only
// the fields it has.
func (f Forecasters) MarshalJSON() ([]byte, error) {
	type plain Forecasters
	if f.Tokens == nil {
		return json.Marshal(plain(f))
	}
	return json.Marshal(tokenForecasters{Tokens: f.Tokens, Val: f.Val, BestReference: f.BestReference, BestReferenceMSE: f.BestReferenceMSE,
		BaselineMargin: f.BaselineMargin, BaselineMarginPct: f.BaselineMarginPct, BaselineCompetent: f.BaselineCompetent})
}

// ReferenceVal is the reference forecasters' val MSE.
type ReferenceVal struct {
	Persistence         float64  `json:"persistence"`
	SeasonalPersistence *float64 `json:"seasonal_persistence,omitempty"`
	LinearAR            float64  `json:"linear_ar"`
	LinearCentred       float64  `json:"linear_centred"`
	// The per-channel maps' val MSE, on a multi-series
	LinearARPerChannel      *float64 `json:"linear_ar_per_channel,omitempty"`
	LinearCentredPerChannel *float64 `json:"linear_centred_per_channel,omitempty"`
	// Tokens is, on a token track, the token references on val.
	Tokens []TokenReference `json:"tokens,omitempty"`
}

// MarshalJSON writes a token track's val references alone (Tokens), a
// forecasting track's with every field.
func (v ReferenceVal) MarshalJSON() ([]byte, error) {
	type plain ReferenceVal
	if v.Tokens == nil {
		return json.Marshal(plain(v))
	}
	return json.Marshal(struct {
		Tokens []TokenReference `json:"tokens"`
	}{v.Tokens})
}

// Best returns the name and test MSE of the best reference forecaster
// among persistence, seasonal_persistence, linear_ar, linear_centred,
// their per-channel maps, ses and theta (those the report has); ties go
// to the earlier, simpler one.
func (f *Forecasters) Best() (name string, mse float64) {
	if f.Tokens != nil {
		return bestToken(f.Tokens)
	}
	name, mse = "persistence", f.Persistence
	for _, c := range []struct {
		name string
		mse  *float64
	}{{"seasonal_persistence", f.SeasonalPersistence}, {"linear_ar", &f.LinearAR}, {"linear_centred", f.LinearCentred},
		{"linear_ar_per_channel", f.LinearARPerChannel}, {"linear_centred_per_channel", f.LinearCentredPerChannel},
		{"ses", f.SES}, {"theta", f.Theta}} {
		if c.mse != nil && *c.mse < mse {
			name, mse = c.name, *c.mse
		}
	}
	return name, mse
}

// ValMSE returns the val MSE of the named reference forecaster, false when
// the report lacks it.
func (f *Forecasters) ValMSE(name string) (float64, bool) {
	v := f.Val
	if v == nil {
		return 0, false
	}
	for _, r := range v.Tokens {
		if r.Name == name {
			return r.CE, true
		}
	}
	switch name {
	case "persistence":
		return v.Persistence, true
	case "linear_ar":
		return v.LinearAR, true
	case "linear_centred":
		return v.LinearCentred, true
	case "seasonal_persistence":
		if v.SeasonalPersistence != nil {
			return *v.SeasonalPersistence, true
		}
	case "linear_ar_per_channel":
		if v.LinearARPerChannel != nil {
			return *v.LinearARPerChannel, true
		}
	case "linear_centred_per_channel":
		if v.LinearCentredPerChannel != nil {
			return *v.LinearCentredPerChannel, true
		}
	}
	return 0, false
}

// Judge sets the best reference, the baseline's margin over it and the
// competence flag from the baseline's test mean b.
func (f *Forecasters) Judge(b float64) {
	f.BestReference, f.BestReferenceMSE = f.Best()
	f.BaselineMargin = f.BestReferenceMSE - b
	f.BaselineMarginPct = 100 * f.BaselineMargin / f.BestReferenceMSE
	f.BaselineCompetent = f.BaselineMargin > 0
}

// bestToken is the token reference of least cross-entropy among all but
// the oracle; ties go to the earlier, simpler one.
func bestToken(refs []TokenReference) (name string, ce float64) {
	ce = math.Inf(1)
	for _, r := range refs {
		if r.Name != "oracle" && r.CE < ce {
			name, ce = r.Name, r.CE
		}
	}
	return name, ce
}

// BlowUpReference is what a cfg's test mean is held against before it is
// called blown up (report.BlownUp): persistence's test MSE on a
// forecasting track, chance's cross-entropy on a token track.
func (f *Forecasters) BlowUpReference() (name string, v float64) {
	for _, r := range f.Tokens {
		if r.Name == "chance" {
			return r.Name, r.CE
		}
	}
	return "persistence", f.Persistence
}
