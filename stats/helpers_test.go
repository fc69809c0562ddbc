package stats

import (
	"math"
	"testing"
)

// checkRel fails t unless got equals want to relative tolerance tol (an
// absolute one when want is 0).
func checkRel(t *testing.T, name string, got, want, tol float64) {
	t.Helper()
	scale := math.Abs(want)
	if scale == 0 {
		scale = 1
	}
	if !(math.Abs(got-want) <= tol*scale) {
		t.Errorf("%s = %.17g, want %.17g (rel tol %g)", name, got, want, tol)
	}
}

// checkPanics fails t unless f panics.
func checkPanics(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	f()
}
