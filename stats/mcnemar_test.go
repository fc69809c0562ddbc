package stats

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMcNemarExact on hand-derived cases: p = min(1, 2·Σ_{i≤min(b,c)}
// C(b+c, i)/2^(b+c)).
func TestMcNemarExact(t *testing.T) {
	for _, tc := range []struct {
		b, c int
		want float64
	}{
		{0, 0, 1},             // no discordant pair
		{1, 0, 1},             // 2·1/2
		{3, 0, 0.25},          // 2·1/8
		{0, 4, 0.125},         // 2·1/16, symmetric
		{8, 0, 0.0078125},     // 2/256: 8 seeds, all one way
		{1, 4, 0.375},         // 2·(1+5)/32
		{2, 2, 1},             // 2·(1+4+6)/16 > 1
		{2, 10, 0.0385742188}, // 2·(1+12+66)/4096 = 158/4096
	} {
		t.Run(fmt.Sprintf("%d-%d", tc.b, tc.c), func(t *testing.T) {
			require.InDelta(t, tc.want, McNemarExact(tc.b, tc.c), 1e-10)
			require.Equal(t, McNemarExact(tc.b, tc.c), McNemarExact(tc.c, tc.b), "two-sided")
		})
	}
	require.Panics(t, func() { McNemarExact(-1, 2) })
}
