//go:build !amd64 || purego

package kernel

// Impl names the Gemm implementation in use: "generic" on this build.
func Impl() string { return "generic" }

// impls lists the float32 implementations this machine can run, for tests
// and benchmarks.
var impls = []impl{{"generic", gemm32}}

// gemmEpi32 is the float32 core of GemmScaled and GemmAdd: Gemm, then
// the elementwise op.
func gemmEpi32(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, bias, e []float32, add bool, m, n, k int) {
	gemm32(c, ldc, a, rsa, csa, b, ldb, bias, m, n, k, false)
	epiBlock(c, e, add, ldc, 0, m, 0, n)
}

func gemm32(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, bias []float32, m, n, k int, acc bool) {
	gemmGeneric(c, ldc, a, rsa, csa, b, ldb, bias, 0, m, 0, n, k, acc)
}

// dwBiasAsm reports that no assembly kernel fuses dW and dbias on this
// build.
func dwBiasAsm(dw, dbias, dout, inp []float32, n, in, outF int) bool {
	return false
}

// triAsmN reports that no assembly TriGemm kernel runs on this build.
func triAsmN(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, t, n int, upper bool, bt Batch) bool {
	return false
}

// upperAsmN reports that no assembly UpperGemm kernel runs on this build.
func upperAsmN(c []float32, ldc int, a []float32, lda int, b []float32, ldb int, t, k int, bt Batch) bool {
	return false
}

// TriGemmTFast reports whether TriGemmTN runs an assembly kernel for T
// and N: never on this build.
func TriGemmTFast(t, n int) bool { return false }

func triTAsm(ct, at, b []float32, ldb, t, n int, upper bool) {
	panic("kernel: triTAsm without an assembly kernel")
}

// TriGemmPairsFast reports whether TriGemmPairs runs an assembly kernel
// for T: never on this build.
func TriGemmPairsFast(t int) bool { return false }

func triPairAsm(c []float32, ldc int, a []float32, rsa, csa int, b []float32, ldb int, t int, upper bool, bt Batch) {
	panic("kernel: triPairAsm without an assembly kernel")
}

// axpyVec reports that no vector axpy runs on this build.
func axpyVec(y []float32, a float32, x []float32) int { return 0 }
