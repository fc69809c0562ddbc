package trial

import (
	"errors"
)

// ErrInterrupted marks a run stopped by its context; every trial that
// finished before is in the store.
var ErrInterrupted = errors.New("run interrupted")
