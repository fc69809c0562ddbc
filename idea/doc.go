// Package idea is the seam where an architectural idea plugs into
// transformer_tiny, and the registry of the ideas ideabench ships.
//
// Design stance: an idea is a pure function at one named site of the model,
// written as a forward/backward pair over flat buffers in the style of
// llm.c; the model owns every buffer, the idea allocates nothing. Its
// learnable tensors, if any, are appended to the model's flat parameter
// buffer, so Adam, checkpoints and the gradient check cover them without
// knowing the idea. An idea at its identity setting is not called at all:
// the model is then the baseline bit for bit, not an approximation of it.
//
// The sites, in the model's order (B windows, N tokens, D model width, H
// horizon):
//
//	input      the embedded tokens, after the positional embedding     (B,N,D)
//	norm       every normalization, replacing the LayerNorm: block l's  (T,1,D) -> (T,1,D)
//	           first (instance 2l) and second (2l+1), the final one
//	           (2L); x is the residual stream, y the normalized rows
//	qk         each block's queries, keys and values [q|k|v], before   (B,N,3D)
//	           the attention reads them (Shape.Heads heads)
//	logits     each block's attention logits: an additive bias from   (B,N,D) -> (B,Heads,N,N)
//	           its first LayerNorm's output, before the causal softmax
//	heads      each block's heads' outputs before the output            (B,N,2D) -> (B,N,D)
//	           projection, beside its first LayerNorm's output: x holds
//	           each token's heads' outputs (D) then ln1(h) (D)
//	attention  each block's attention branch, before the residual add  (B,N,D)
//	ffn        each block's MLP, replaced: x its second normalization's (T,1,D) -> (T,1,D)
//	           output, y the branch before the residual add
//	mlp        each block's MLP branch, before the residual add        (B,N,D)
//	residual   the residual stream after each block                    (B,N,D)
//	head       the forecasts, before an instance normalization is undone (B,N,H)
//
// At the norm and ffn sites (Site.TokenWise) the idea replaces a layer
// that acts on each token alone, and sees the T = B·N tokens of a pass as
// T windows of one token, so it cannot mix tokens and the model may run
// it on a subset of them (the last token of each forecast window, the
// labelled tokens of a token track). The model's own layer there
// (LayerNorm; fc1, GELU, fc2) is not run, and its parameters stay at
// their start.
//
// Adding an idea:
//
//  1. write one file in this package with a type that implements Idea (and
//     Op for both element types, usually one generic type), its parameters
//     validated in its constructor;
//  2. add one line to the registry in registry.go.
//
// The package's tests iterate over the registry, so a new idea gets its
// finite-difference gradient check and its identity test without writing
// them.
package idea
