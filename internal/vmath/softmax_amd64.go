//go:build amd64 && !purego

package vmath

import "golang.org/x/sys/cpu"

// softmaxImpls lists genericSoftmax, rowsSoftmax (the kernel without
// AVX-512: its exponentials run in Exp's AVX2 kernel) and, with AVX-512F,
// the assembly kernels (there is no AVX2 column kernel: without opmasks
// the causal lanes cost more than they save).
var softmaxImpls = func() []softmaxImpl {
	s := []softmaxImpl{genericSoftmax, rowsSoftmax}
	if cpu.X86.HasAVX512F {
		s = append(s, softmaxImpl{"avx512",
			func(st []float32, t int, scale float32) {
				switch {
				case t == 32:
					causalSoftmaxT32AVX512(&st[0], scale)
				case t > 0:
					causalSoftmaxTAVX512(&st[0], t, scale)
				}
			},
			func(ds, pt []float32, t int, scale float32) {
				switch {
				case t == 32:
					causalSoftmaxGradT32AVX512(&ds[0], &pt[0], scale)
				case t > 0:
					causalSoftmaxGradTAVX512(&ds[0], &pt[0], t, scale)
				}
			}})
	}
	return s
}()

// iota16 holds the lane indices 0…15 of a zmm register.
var iota16 = [16]int32{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}

//go:noescape
func causalSoftmaxTAVX512(st *float32, t int, scale float32)

// causalSoftmaxT32AVX512 is causalSoftmaxTAVX512 for T = 32 (the default
// model), both 16-query chunks in the same passes.
//
//go:noescape
func causalSoftmaxT32AVX512(st *float32, scale float32)

// causalSoftmaxGradT32AVX512 is causalSoftmaxGradTAVX512 for T = 32, both
// 16-query chunks in the same passes.
//
//go:noescape
func causalSoftmaxGradT32AVX512(ds, pt *float32, scale float32)

//go:noescape
func causalSoftmaxGradTAVX512(ds, pt *float32, t int, scale float32)
