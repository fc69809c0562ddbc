package stats

import "errors"

// CheckAlpha is the one rule for a significance level given by a user
// (a protocol's alpha, compare's --alpha): in (0,1). The error says what
// is wrong and the fix; the caller names the field.
func CheckAlpha(alpha float64) error {
	if alpha > 0 && alpha < 1 {
		return nil
	}
	return errors.New("must be in (0,1); use e.g. 0.05")
}

// CheckMinEffectPct is the one rule for a smallest effect of interest in
// percent of the baseline's mean (a protocol's, a suite's and compare's
// min_effect_pct): in [0,100), 0 for none (a suite then takes its
// default). An improvement of 100% or more of the mean of a
// lower-is-better metric would take it to 0 or below, which no forecast
// reaches. The error says what is wrong and the fix; the caller names
// the field.
func CheckMinEffectPct(pct float64) error {
	if pct >= 0 && pct < 100 {
		return nil
	}
	return errors.New("must be in [0,100), a percent of the baseline's mean; use e.g. 1")
}
