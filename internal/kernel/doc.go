// Package kernel holds the dense linear-algebra kernels of the transformer:
// the fused linear layer y = x·Wᵀ + b and its backward pass.
//
// Layout follows PyTorch's nn.Linear: a weight of an In->Out layer is
// stored row-major as (Out,In), so the forward pass is a sequence of
// contiguous dot products and the backward pass a sequence of contiguous
// axpy updates.
//
// Shape legend: N rows (batch·positions), In input features, Out output
// features.
//
// Every kernel fixes its summation order (documented per function), so a
// given input produces the same bits on every run, whatever the number of
// goroutines the caller runs side by side.
package kernel
