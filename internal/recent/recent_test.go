package recent

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestCache: a value is built once per key while kept, the oldest beyond N
// is dropped and built again, and an error keeps nothing.
func TestCache(t *testing.T) {
	c := Cache[int, int]{N: 2}
	builds := 0
	get := func(k int) int {
		v, err := c.Get(k, func() (int, error) { builds++; return 10 * k, nil })
		require.NoError(t, err)
		return v
	}
	require.Equal(t, 10, get(1))
	require.Equal(t, 20, get(2))
	require.Equal(t, 10, get(1))
	require.Equal(t, 2, builds, "kept keys are not built again")
	get(3) // drops 1, the oldest
	get(2)
	require.Equal(t, 3, builds)
	get(1)
	require.Equal(t, 4, builds, "a dropped key is built again")

	_, err := c.Get(9, func() (int, error) { return 0, errors.New("no") })
	require.Error(t, err)
	require.Equal(t, 90, get(9), "an error keeps nothing")
}
