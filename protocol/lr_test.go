package protocol

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestLRAt(t *testing.T) {
	const lr, total = 0.1, 10
	for _, tc := range []struct {
		name string
		c    Cfg
		step int
		want float64
	}{
		{"constant", Cfg{LR: lr}, 7, lr},
		{"constant_named", Cfg{LR: lr, Schedule: ScheduleConstant}, 9, lr},
		// Warmup 0.25 of 10 steps is ⌈2.5⌉ = 3 steps: lr/3, 2lr/3, lr.
		{"warmup_first", Cfg{LR: lr, Warmup: 0.25, Schedule: ScheduleCosine}, 0, lr / 3},
		{"warmup_last", Cfg{LR: lr, Warmup: 0.25, Schedule: ScheduleCosine}, 2, lr},
		// After warmup u = (s-3)/7: u = 0 at s = 3.
		{"cosine_start", Cfg{LR: lr, Warmup: 0.25, Schedule: ScheduleCosine}, 3, lr},
		{"cosine_half", Cfg{LR: lr, Schedule: ScheduleCosine}, 5, lr / 2}, // u = 1/2: (1+cos(π/2))/2
		// u = 1/5: cos(π/5) = (1+√5)/4.
		{"cosine_fifth", Cfg{LR: lr, Schedule: ScheduleCosine}, 2, lr * (1 + (1+math.Sqrt(5))/4) / 2},
		{"linear_half", Cfg{LR: lr, Schedule: ScheduleLinear}, 5, lr / 2},
		{"linear_last", Cfg{LR: lr, Schedule: ScheduleLinear}, 9, lr / 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.InDelta(t, tc.want, tc.c.LRAt(tc.step, total), 1e-15)
		})
	}
}
