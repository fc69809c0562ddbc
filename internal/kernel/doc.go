// Package kernel holds the dense linear-algebra kernels of the transformer:
// Gemm, the strided matrix product every layer goes through, with its
// elementwise epilogues (GemmScaled, GemmAdd); the causal products of one
// attention head (TriGemm for a triangular factor, UpperGemm for the
// scores), each also for a window's heads in one call (TriGemmN,
// UpperGemmN, laid out by a Batch); and the linear layer y = x·Wᵀ + b with its backward pass built
// on them.
//
// Layout follows PyTorch's nn.Linear: a weight of an In->Out layer is
// stored row-major as (Out,In). Linear packs Wᵀ into pooled scratch so the
// product streams B row by row; LinearBackward reads dout transposed
// through Gemm's strides for dW.
//
// Shape legend: N rows (batch·positions), In input features, Out output
// features; for Gemm, C is (M,N), A (M,K), B (K,N).
//
// Every output's sum has one order, the same in every implementation:
// start from C (or +0), take the K products in increasing p, each with a
// fused multiply-add (c ← a·b + c, rounded once to the element type), and
// add the bias last. The AVX-512 (8x32 zmm tiles, masked tails) and
// AVX2+FMA (4x16 ymm) assembly kernels vectorize across output columns,
// which keeps that order, so they return the same bits as the pure-Go
// kernel (build tag purego, or any CPU without them: fma32 rounds exactly
// as the hardware does) and the same bits whatever the number of
// goroutines the caller runs side by side. The causal products leave out
// only exact-zero products, which a sum started from +0 absorbs, so they
// too give Gemm's bits; an epilogue rounds once after the sum, as a
// separate pass would. The tests check each
// implementation against the pure-Go one bit for bit on random and edge
// shapes; BenchmarkPeak measures the core's FP32 peak for BenchmarkMatMul's
// percent-of-peak figures.
package kernel
