// Package transformer is transformer_tiny: a small pre-LayerNorm causal
// transformer forecaster (and token model) with hand-written forward and
// backward passes, one idea plugged in at one of its sites (package
// idea: the fading-memory gate on each attention branch is one of them),
// AdamW, and safetensors checkpoints.
//
// The architecture is fixed so results can be checked against other
// frameworks:
//
//  1. Embedding: h = x·Wₑᵀ + bₑ + pos, a linear CIn->D map of each position
//     plus a learned positional embedding (T,D) (none with Positions
//     "none").
//  2. L pre-LayerNorm blocks:
//     h = h + idea(proj(attn(ln1(h))))     (an idea at the attention site)
//     h = h + fc2(gelu(fc1(ln2(h))))
//     attn is causal multi-head scaled dot-product attention with a fused
//     qkv linear (D->3D) and an output projection proj (D->D). Inside
//     it, an idea at the qk site maps [q|k|v] to what the attention
//     reads; one at the logits site adds its bias (B,NH,T,T), computed
//     from ln1(h), to the scaled scores before the softmax, and in the
//     backward pass gets the softmax's gradient of the logits and returns
//     its part of d ln1(h) (attentionForward, attentionBackward); one at
//     the heads site maps each token's heads' outputs (beside ln1(h)) to
//     the projection's input. The MLP is
//     D->4D->D with GELU (tanh approximation); LayerNorm ε is 1e-5; an
//     idea at the attention site (the gate: package gate's per-token
//     fading memory, identity when β = 0) maps the projected branch. An
//     idea at the norm site replaces every LayerNorm (ln1 and ln2 of each
//     block, instances 2l and 2l+1, and ln_f, instance 2L), one at the
//     ffn site each block's fc1, GELU and fc2; both see the tokens as
//     windows of one token (RowShape), so the tails run them too
//     (normForward, ffnForward in sites.go).
//  3. A final LayerNorm and a head linear D->H at every position: position t
//     forecasts the next H values of the target channel.
//
// Training minimises the MSE over every position and horizon step (see
// MSELoss); evaluation uses the last position's H-step forecast
// (LastPositionSSE).
//
// Shape legend: B batch (windows), T positions, D model width, NH heads,
// hs = D/NH head size, CIn input channels, H horizon, P parameters.
//
// Parameters live in one flat buffer (Params.Data) with named views, listed
// in buffer order with their PyTorch shapes ((out,in) for linear weights):
//
//	embed.weight (D,CIn)          embed.bias (D)         pos_embed (T,D)
//	blocks.{l}.ln1.weight (D)     blocks.{l}.ln1.bias (D)
//	blocks.{l}.attn.qkv.weight (3D,D)   blocks.{l}.attn.qkv.bias (3D)
//	blocks.{l}.attn.proj.weight (D,D)   blocks.{l}.attn.proj.bias (D)
//	blocks.{l}.ln2.weight (D)     blocks.{l}.ln2.bias (D)
//	blocks.{l}.mlp.fc1.weight (4D,D)    blocks.{l}.mlp.fc1.bias (4D)
//	blocks.{l}.mlp.fc2.weight (D,4D)    blocks.{l}.mlp.fc2.bias (D)
//	ln_f.weight (D)  ln_f.bias (D)  head.weight (H,D)  head.bias (H)
//
// The qkv output is laid out [q | k | v], head h at columns h·hs…(h+1)·hs
// of each, as in PyTorch's nn.MultiheadAttention-free GPT-2 code.
// Checkpoints store these tensors as float32 under these names.
//
// TrainStep runs the batch forward and backward Config.TrainWindows at a
// time, which keeps one chunk's activations in the core's L2 cache; since
// every quantity is per window or a sum over rows in increasing order that
// the chunks continue, the result has the bits of one pass over the whole
// batch. With SetThreads above 1 a large model runs the chunks as a
// pipeline, one chunk's forward pass beside the previous one's backward
// pass, in the same order and with the same bits. Predict, the evaluation
// pass, skips the work kept only for the backward pass (GELU's
// derivative).
//
// # Token mode
//
// A Config with Vocab > 0 is a token model for synthetic recall tasks
// (MQAR and the like): the same blocks and idea sites, with ids in and
// next-token logits out (token.go). Shape legend: V vocabulary, M the
// labelled positions of a batch.
//
//  1. Embedding: h = tok_embed[ids] + pos, a row of the token table (V,D)
//     per id of ids (B,T), plus the learned (T,D) positions unless
//     Positions is "none"; an idea at the input site sees h (B,T,D).
//  2. The L blocks as above, on (B,T,D).
//  3. The rows of the labelled positions (Labels ≥ 0) are gathered, in
//     sequence then position order, into (M,D); the final LayerNorm and
//     the vocabulary head, an untied linear D->V with bias, run on them
//     only: logits (M,V). Full logits would cost B·T·D·V multiply-adds,
//     five times the blocks' at d 64, L 2, T 64, V 8192; M is a few per
//     sequence. Without an idea after the last attention (none, or one
//     at the input site), the last block's projection, LayerNorm and MLP
//     run on those (M,D) rows too, as the forecaster's tail does on the
//     last token (tail.go): nothing there mixes positions, so the bits
//     are the full block's.
//  4. CrossEntropy: the mean over the M rows of logsumexp(z) − z_label,
//     each row shifted by its maximum; the accuracy takes the argmax,
//     ties to the lowest id.
//
// Its tensors, in buffer order, replace the embedding's and the head's:
//
//	tok_embed.weight (V,D)   [pos_embed (T,D)]   blocks… ln_f…
//	head.weight (V,D)        head.bias (V)
//
// TokenBatch holds Tokens and Labels (B,T), -1 unlabelled; position t
// sees tokens 0…t and predicts Labels[t]. ForwardTokens/BackwardTokens
// are the mirrored pair, TrainStepTokens the chunked (and pipelined)
// training step with TrainStep's bit-for-bit guarantees, Evaluate the
// cross-entropy and accuracy, Config.TokenStepFLOPs the step's work.
// An idea at the head site is refused: the head sees M rows, not
// (B,T). CIn, H, Patch, Norm, Target, Skip and Loss stay unset, so a
// forecaster's JSON (and every key built from it) is unchanged.
//
// The code is generic over the element type: training runs in float32,
// the gradient check in float64 (same code, so it checks what trains).
// Initialization: weights and pos_embed N(0, 0.02²), biases 0, LayerNorm
// gains 1, drawn in buffer order from the caller's *rand.Rand.
package transformer
