package report

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/ideabench/ideabench/protocol"
)

// TrialsDigest is Setup.TrialsSHA256: the SHA-256 of the trial ids of
// p's trials (Protocol.KeyAt), one per line, in order.
func TrialsDigest(p protocol.Protocol, trials []protocol.Trial, dataSHA, version string) string {
	h := sha256.New()
	for _, t := range trials {
		fmt.Fprintln(h, p.KeyAt(t, dataSHA, version).ID())
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Digest is the first 16 bytes of the SHA-256 of v's JSON, in hex.
func Digest(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err) // a report holds no NaN or Inf
	}
	s := sha256.Sum256(raw)
	return hex.EncodeToString(s[:16])
}

// Seal sets the report's input digests (Setup.Digests) from the inputs
// it holds (ReadInputs).
func (r *Report) Seal() {
	if r.Setup == nil {
		return
	}
	_, read := r.ReadInputs()
	r.Setup.Digests = Digests(read)
}

// Digests are the digests of inputs read out of a report (ReadInputs),
// by path.
func Digests(read []Input) map[string]string {
	d := make(map[string]string, len(read))
	for _, in := range read {
		d[in.Path] = Digest(in.Value)
	}
	return d
}

// SetRun records the run block (volatile facts of the process that
// wrote the report) with its digest (RunInfo.Digest).
func (r *Report) SetRun(info RunInfo) {
	info.Digest = info.Sum()
	r.Run = &info
}

// Sum is the digest of the run block's other fields.
func (ri RunInfo) Sum() string {
	ri.Digest = ""
	return Digest(ri)
}
