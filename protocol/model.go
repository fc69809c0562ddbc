package protocol

import (
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// ModelConfig is the transformer of cfg c on the dataset's windows: the
// protocol's arch, the windows' T, H and channels, the dataset's target
// channel, the cfg's gate; on a token track, the sequences' length and
// the vocabulary.
func (p Protocol) ModelConfig(c Cfg, ds *track.Dataset) transformer.Config {
	if td := ds.Tokens; td != nil {
		return p.Arch.tokenModel(c, td.Train.T, td.Vocab)
	}
	s := &ds.At(c.Context).Train
	return p.Arch.model(c, s.T, s.H, s.C, ds.Target)
}
