// Package archname holds the names of the built-in model's architecture
// settings, which a protocol's arch block writes and the model reads:
// one copy for both, so that the protocol (and the report that holds
// it) validates them without importing the model.
package archname

// Norm: how each window is normalized before the model and its forecast
// taken back (arch.norm).
const (
	NormRevIN = "revin" // by the window's mean and std (Kim et al. 2022)
	NormLast  = "last"  // minus the window's last input (NLinear's)
)

// Loss: which tokens' forecasts train (arch.loss).
const (
	LossAll  = "all"  // every token's
	LossLast = "last" // the last token's, the one evaluated
)

// Positions: the position embedding (arch.positions).
const (
	PositionsLearned = "learned" // absolute, learned
	PositionsNone    = "none"    // none: the causal attention tells positions apart
)
