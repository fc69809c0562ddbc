// Package track builds the tracks of the benchmark and says everything
// the layers above ask of them, through one interface: a track Kind
// (kind.go) carries its protocol block (validation, per-profile
// defaults, rationale, its part of a trial key), builds its Dataset,
// names its loss and metric (with the metric's direction), fits its
// references and holds the rule by which a tuned baseline is competent
// enough for the track to judge an idea. Kinds are plug-ins, as ideas
// are: one file each (kind_panel.go, kind_sequence.go, kind_csv.go), one
// line in the registry (kinds; Register, LookupKind, KindNames) and the
// kind's block in Blocks (and its trial-key entry in KeyBlocks), so
// nothing above track asks a track its name to decide what to do.
//
// The shipped kinds are forecasting tracks: a data set cut into windows,
// split into train | val | test, z-normalized with statistics of the
// train region only, plus the reference forecasters every model has to
// beat.
//
// Design stance: a track is plain data. A Split is two flat, window-major
// buffers with the shape stated beside them, so the trainer reads a batch
// as a contiguous slice and the harness scores any forecaster with the same
// function, LastPositionMSE. Splits are cut from one contiguous series (or,
// on the panel track, drawn as independent series per split), so the
// three never share a time step and nothing of val or test leaks into the
// normalization.
//
// Shape legend: N windows, T positions (context), H horizon, C input
// channels. One channel of the inputs is the target.
//
// Pipeline of a track:
//
//  1. Draw or load one series of L time steps and C channels.
//  2. Cut it into three contiguous, non-overlapping regions, train | val |
//     test, each of length windows + T + H - 1 so that windows of length
//     T+H slide through it with stride 1.
//  3. Compute the population mean and std of each channel over the train
//     region and z-normalize the whole series with them.
//  4. Copy every window into its Split: X (N,T,C) holds the first T inputs,
//     Y (N,T+H) the target channel over the whole window.
//  5. Score forecasters at the last position of each window: the H targets
//     Y[n][T:T+H] predicted from X[n] (LastPositionMSE).
//
// The reference forecasters are Persistence (repeat the last input),
// SeasonalPersistence (repeat the last period), Linear (least-squares
// linear map from the window to the H targets, FitLinear) and its
// last-value-centred form (NLinear, FitLinearCentred), fitted per channel
// too on a track of several series and at every look-back of the grid
// (References); Forecasters.Judge says whether a baseline is competent
// against them. A model that does not beat the best of them has learned
// nothing a closed-form fit cannot.
//
// The token tracks are synthetic recall tasks on which sequence-mixing
// ideas are judged: MQAR and forgetting MQAR (Arora et al., ICLR 2024,
// HazyResearch/zoology) and MAD's in-context recall, noisy and fuzzy
// in-context recall and selective copying (Poli et al., ICML 2024,
// athms/mad-lab). A TokenDataset holds three TokenSplits of N sequences
// of T token ids, (N,T) tokens and (N,T) labels, -1 where a position is
// not scored; Train, Val and Test are drawn from disjoint PCG streams of
// one seed. Their references (TokenReferences, TokenDataset.References)
// are chance, majority and bigram, scored by accuracy and cross-entropy
// on Test's labelled positions, and the oracle ceiling of a reader that
// knows the definition.
package track
