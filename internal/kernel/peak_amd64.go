//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// Peak probes: each runs n iterations of a register-only loop doing the
// given number of float32 flops per iteration (an FMA counts as two).
// They exist to measure the machine's FP32 ceiling beside the kernels.

//go:noescape
func fmaPeakZMM(n int)

//go:noescape
func mulAddPeakZMM(n int)

//go:noescape
func fmaPeakYMM(n int)

type peakProbe struct {
	name        string
	flopPerIter float64
	run         func(n int)
	ok          bool
}

var peakProbes = []peakProbe{
	{"fma-zmm", 384, fmaPeakZMM, hasAVX512},
	{"muladd-zmm", 384, mulAddPeakZMM, hasAVX512},
	{"fma-ymm", 192, fmaPeakYMM, hasAVX2 && cpu.X86.HasFMA},
}
