package trial

import (
	"github.com/ideabench/ideabench/protocol"
	"github.com/ideabench/ideabench/track"
	"github.com/ideabench/ideabench/transformer"
)

// ModelConfig is the transformer of cfg c on the dataset's windows: the
// protocol's arch, the windows' T, H and channels at c's look-back, the
// dataset's target channel, the cfg's idea; on a token track, the
// sequences' length and the vocabulary.
func ModelConfig(p protocol.Protocol, c protocol.Cfg, ds *track.Dataset) transformer.Config {
	if td := ds.Tokens; td != nil {
		return modelAt(p, c, protocol.TrainSize{Context: td.Train.T, Vocab: td.Vocab}, 0)
	}
	s := &ds.At(c.Context).Train
	return modelAt(p, c, protocol.TrainSize{Context: s.T, H: s.H, Channels: s.C}, ds.Target)
}

// modelAt is the transformer of cfg c on train windows of the shape of
// z, forecasting channel target (a token model when z has a vocabulary).
func modelAt(p protocol.Protocol, c protocol.Cfg, z protocol.TrainSize, target int) transformer.Config {
	a := p.Arch
	if z.Vocab > 0 {
		return transformer.Config{D: a.D, Heads: a.Heads, Layers: a.Layers, T: z.Context, Vocab: z.Vocab, Positions: a.Positions, Idea: c.IdeaConfig()}
	}
	return transformer.Config{
		D: a.D, Heads: a.Heads, Layers: a.Layers, T: z.Context, H: z.H, CIn: z.Channels, Idea: c.IdeaConfig(),
		Patch: a.Patch, Norm: a.Norm, Skip: a.Skip, Target: target, Loss: a.Loss, Positions: a.Positions,
	}
}

// Costs is the cost model of p's built-in transformer (protocol.Coster):
// its memory at the protocol's batch (MemoryBytes), a training step's
// FLOPs (StepFLOPs; on a token track TokenStepFLOPs with a batch's share
// of the labelled positions, rounded up) and a window's forward pass (a
// third of FLOPsPerStep(1)).
func Costs(p protocol.Protocol) protocol.Coster {
	return func(c protocol.Cfg, z protocol.TrainSize) protocol.ModelCost {
		mc, b := modelAt(p, c, z, 0), p.Arch.Batch
		m := protocol.ModelCost{Bytes: mc.MemoryBytes(b), Step: mc.StepFLOPs(b), Window: mc.FLOPsPerStep(1) / 3}
		if z.Vocab > 0 {
			m.Step = mc.TokenStepFLOPs(b, (b*z.Labelled+z.Windows-1)/max(z.Windows, 1))
		}
		return m
	}
}
