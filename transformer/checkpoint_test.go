package transformer

import (
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckpointRoundTrip(t *testing.T) {
	c := DefaultConfig()
	c.Idea = gateIdea(0.9, 1)
	m, err := New[float32](c, 2)
	require.NoError(t, err)
	m.Params.Init(rand.New(rand.NewPCG(5, 5)))
	path := filepath.Join(t.TempDir(), "model.safetensors")
	require.NoError(t, SaveCheckpoint(path, m, map[string]string{"norm.mean": "0.5"}))
	got, md, err := LoadCheckpoint[float32](path, 2)
	require.NoError(t, err)
	require.Equal(t, c, got.Config)
	require.Equal(t, map[string]string{"norm.mean": "0.5"}, md)
	require.True(t, equal(m.Params.Data, got.Params.Data))

	x := make([]float32, 2*c.T)
	for i := range x {
		x[i] = float32(i) / 10
	}
	require.True(t, equal(append([]float32(nil), m.Forward(x, 2)...), got.Forward(x, 2)))

	require.ErrorContains(t, SaveCheckpoint(path, m, map[string]string{ConfigKey: "x"}), "reserved")
}
