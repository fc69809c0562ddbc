package track

// forecastKind is what the forecasting kinds (panel, sequence, csv)
// share: models trained on the squared error of their forecasts, scored
// by the test MSE of the last position (LastPositionMSE), lower better,
// against the reference forecasters (References), and a track that can
// judge an idea only when the tuned baseline beats the best of them
// (Forecasters.Judge).
type forecastKind struct{}

func (forecastKind) Loss() string   { return "MSE" }
func (forecastKind) Metric() string { return "MSE" }
func (forecastKind) MetricScope() string {
	return "of the last position (its H forecasts), on the normalized scale"
}
func (forecastKind) LowerIsBetter() bool { return true }
func (forecastKind) Tokens() bool        { return false }

func (forecastKind) References(ds *Dataset, contexts []int) (*Forecasters, error) {
	return References(ds, contexts)
}

func (forecastKind) Judge(f *Forecasters, baseline float64) { f.Judge(baseline) }

// windowBytes is the memory of n windows of t inputs of c channels and
// horizon h as a Split holds them.
func windowBytes(n, t, h, c int) float64 {
	return 8 * float64(n) * float64(t*c+t+h)
}

// blockErrors puts the errors of a block's Validate under the block's
// JSON key: "track: <key> ..." becomes "<name>.<key> ...".
func blockErrors(name string, err error) []error {
	var out []error
	for _, e := range unjoin(err) {
		out = append(out, prefixed(name, e))
	}
	return out
}

// unjoin returns the errors an errors.Join holds, or err alone; nil for
// nil.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
