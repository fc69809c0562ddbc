package transformer

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ideabench/ideabench/gate"
)

// trainedBitsSHA256 pins the exact bits of 20 Adam steps of the default
// model (gate on, batch 8). Every kernel implementation (AVX-512, AVX2,
// pure Go, any GOARCH) must reproduce it, because they all share one
// summation order and never fuse multiply-adds; a change of the numerics
// changes this constant, and the golden reports with it.
const trainedBitsSHA256 = "c0eac64936eccc788175a86f775098d307cc2690ed7e681eb89e7cdd4ae7df36"

func TestTrainingBitsPinned(t *testing.T) {
	c := DefaultConfig()
	c.Gate = gate.Params{Rho: 0.9, Beta: 0.5}
	const b = 8
	m, err := New[float32](c, b)
	if err != nil {
		t.Fatal(err)
	}
	m.Params.Init(rand.New(rand.NewPCG(5, 5)))
	opt := NewAdam[float32](c.NumParams())
	for s := range 20 {
		x, y := sineBatch(c, b, float64(s)*3, 0.37)
		m.TrainStep(opt, x, y, b, 3e-3)
	}
	h := sha256.New()
	for _, v := range m.Params.Data {
		h.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)))
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != trainedBitsSHA256 {
		t.Fatalf("trained parameter bits: sha256 %s, want %s", got, trainedBitsSHA256)
	}
}
