//go:build amd64 && !purego

#include "textflag.h"

// The kernels run the op sequences of the package doc, one instruction per
// float32 operation, on 16 (zmm) or 8 (ymm) lanes. Go operand order is
// reversed from Intel's: VSUBPS a, b, d is d = b − a. The instructions
// that round are IEEE-exact (no FMA, VDIVPS not VRCPPS), and VCVTPS2DQ
// rounds to nearest even under the default MXCSR, which Go runs with.
//
// K_* name the rows of ·consts (vmath_amd64.go): registers Z16–Z31 in the
// AVX-512 kernels, memory operands in the AVX2 kernels, which have only 16
// ymm registers. The macros below are shared by both.

// EXP sets P = exp(X); X becomes r, N and T are scratch.
// VMAXPS/VMINPS return their second Intel source (here K_*) unless the
// comparison holds, the comparisons of exp32.
#define EXP(X, N, T, P) \
	VMAXPS    K_LO, X, X; \
	VMINPS    K_HI, X, X; \
	VMULPS    K_LOG2E, X, T; \
	VCVTPS2DQ T, N; \
	VCVTDQ2PS N, T; \
	VMULPS    K_C1, T, P; \
	VSUBPS    P, X, X; \
	VMULPS    K_C2, T, P; \
	VSUBPS    P, X, X; \
	VPSLLD    $23, N, N; \
	VPADDD    K_ONE, N, N; \
	VMULPS    K_P0, X, P; \
	VADDPS    K_P1, P, P; \
	VMULPS    X, P, P; \
	VADDPS    K_P2, P, P; \
	VMULPS    X, P, P; \
	VADDPS    K_P3, P, P; \
	VMULPS    X, P, P; \
	VADDPS    K_P4, P, P; \
	VMULPS    X, P, P; \
	VADDPS    K_P5, P, P; \
	VMULPS    X, X, T; \
	VMULPS    T, P, P; \
	VADDPS    X, P, P; \
	VADDPS    K_ONE, P, P; \
	VMULPS    N, P, P

// The exponent bits (n+127)<<23 are formed as (n<<23) + bits(1.0), since
// bits(1.0) = 127<<23.

// GELU sets P = gelu(X); M, N and T are scratch.
#define GELU(X, M, N, T, P) \
	VMULPS X, X, M; \
	VMULPS X, M, M; \
	VMULPS K_C, M, M; \
	VADDPS X, M, M; \
	VMULPS K_K, M, M; \
	EXP(M, N, T, P); \
	VADDPS K_ONE, P, P; \
	VDIVPS P, X, P

// GELUGRAD sets G = gelu'(X); X2, M, N, T, S and A are scratch.
#define GELUGRAD(X, X2, M, N, T, S, A, G) \
	VMULPS  X, X, X2; \
	VMULPS  X, X2, M; \
	VMULPS  K_C, M, M; \
	VADDPS  X, M, M; \
	VMULPS  K_K, M, M; \
	EXP(M, N, T, G); \
	VADDPS  K_ONE, G, S; \
	VMOVUPS K_ONE, A; \
	VDIVPS  S, A, S; \
	VMULPS  K_C3, X2, A; \
	VADDPS  K_ONE, A, A; \
	VMULPS  K_K2, A, A; \
	VMULPS  S, G, G; \
	VMULPS  S, G, G; \
	VMULPS  X, G, G; \
	VMULPS  A, G, G; \
	VADDPS  S, G, G

// The kernels' loops: DI the destination, SI the input, DX dout (unused,
// but advanced all the same, in the unary kernels), CX the elements left.
// STEP advances by one vector of BYTES bytes and LANES lanes and leaves the
// flags of CX for the loop's JNZ.
#define UNARY_ARGS \
	MOVQ dst+0(FP), DI; \
	MOVQ src+8(FP), SI; \
	MOVQ n+16(FP), CX

#define BINARY_ARGS \
	MOVQ dinp+0(FP), DI; \
	MOVQ inp+8(FP), SI; \
	MOVQ dout+16(FP), DX; \
	MOVQ n+24(FP), CX

#define STEP(BYTES, LANES) \
	ADDQ $BYTES, SI; \
	ADDQ $BYTES, DX; \
	ADDQ $BYTES, DI; \
	SUBQ $LANES, CX

// AVX-512: the constants live in Z16–Z31.
#define K_LO Z16
#define K_HI Z17
#define K_LOG2E Z18
#define K_C1 Z19
#define K_C2 Z20
#define K_P0 Z21
#define K_P1 Z22
#define K_P2 Z23
#define K_P3 Z24
#define K_P4 Z25
#define K_P5 Z26
#define K_ONE Z27
#define K_C Z28
#define K_K Z29
#define K_C3 Z30
#define K_K2 Z31

#define BROADCAST_CONSTS \
	VBROADCASTSS ·consts+0(SB), K_LO; \
	VBROADCASTSS ·consts+32(SB), K_HI; \
	VBROADCASTSS ·consts+64(SB), K_LOG2E; \
	VBROADCASTSS ·consts+96(SB), K_C1; \
	VBROADCASTSS ·consts+128(SB), K_C2; \
	VBROADCASTSS ·consts+160(SB), K_P0; \
	VBROADCASTSS ·consts+192(SB), K_P1; \
	VBROADCASTSS ·consts+224(SB), K_P2; \
	VBROADCASTSS ·consts+256(SB), K_P3; \
	VBROADCASTSS ·consts+288(SB), K_P4; \
	VBROADCASTSS ·consts+320(SB), K_P5; \
	VBROADCASTSS ·consts+352(SB), K_ONE; \
	VBROADCASTSS ·consts+384(SB), K_C; \
	VBROADCASTSS ·consts+416(SB), K_K; \
	VBROADCASTSS ·consts+448(SB), K_C3; \
	VBROADCASTSS ·consts+480(SB), K_K2

// func expAVX512(dst, src *float32, n int)
TEXT ·expAVX512(SB), NOSPLIT, $0-24
	UNARY_ARGS
	BROADCAST_CONSTS

loop:
	VMOVUPS (SI), Z0
	EXP(Z0, Z1, Z2, Z3)
	VMOVUPS Z3, (DI)
	STEP(64, 16)
	JNZ     loop
	VZEROUPPER
	RET

// func geluAVX512(dst, src *float32, n int)
TEXT ·geluAVX512(SB), NOSPLIT, $0-24
	UNARY_ARGS
	BROADCAST_CONSTS

loop:
	VMOVUPS (SI), Z0
	GELU(Z0, Z1, Z2, Z3, Z4)
	VMOVUPS Z4, (DI)
	STEP(64, 16)
	JNZ     loop
	VZEROUPPER
	RET

// func geluBackwardAVX512(dinp, inp, dout *float32, n int)
TEXT ·geluBackwardAVX512(SB), NOSPLIT, $0-32
	BINARY_ARGS
	BROADCAST_CONSTS

loop:
	VMOVUPS (SI), Z0
	GELUGRAD(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMULPS  (DX), Z7, Z7
	VMOVUPS Z7, (DI)
	STEP(64, 16)
	JNZ     loop
	VZEROUPPER
	RET

// AVX2: the constants are memory operands, whole ymm rows of ·consts.
#undef K_LO
#undef K_HI
#undef K_LOG2E
#undef K_C1
#undef K_C2
#undef K_P0
#undef K_P1
#undef K_P2
#undef K_P3
#undef K_P4
#undef K_P5
#undef K_ONE
#undef K_C
#undef K_K
#undef K_C3
#undef K_K2
#define K_LO ·consts+0(SB)
#define K_HI ·consts+32(SB)
#define K_LOG2E ·consts+64(SB)
#define K_C1 ·consts+96(SB)
#define K_C2 ·consts+128(SB)
#define K_P0 ·consts+160(SB)
#define K_P1 ·consts+192(SB)
#define K_P2 ·consts+224(SB)
#define K_P3 ·consts+256(SB)
#define K_P4 ·consts+288(SB)
#define K_P5 ·consts+320(SB)
#define K_ONE ·consts+352(SB)
#define K_C ·consts+384(SB)
#define K_K ·consts+416(SB)
#define K_C3 ·consts+448(SB)
#define K_K2 ·consts+480(SB)

// func expAVX2(dst, src *float32, n int)
TEXT ·expAVX2(SB), NOSPLIT, $0-24
	UNARY_ARGS

loop:
	VMOVUPS (SI), Y0
	EXP(Y0, Y1, Y2, Y3)
	VMOVUPS Y3, (DI)
	STEP(32, 8)
	JNZ     loop
	VZEROUPPER
	RET

// func geluAVX2(dst, src *float32, n int)
TEXT ·geluAVX2(SB), NOSPLIT, $0-24
	UNARY_ARGS

loop:
	VMOVUPS (SI), Y0
	GELU(Y0, Y1, Y2, Y3, Y4)
	VMOVUPS Y4, (DI)
	STEP(32, 8)
	JNZ     loop
	VZEROUPPER
	RET

// func geluBackwardAVX2(dinp, inp, dout *float32, n int)
TEXT ·geluBackwardAVX2(SB), NOSPLIT, $0-32
	BINARY_ARGS

loop:
	VMOVUPS (SI), Y0
	GELUGRAD(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7)
	VMULPS  (DX), Y7, Y7
	VMOVUPS Y7, (DI)
	STEP(32, 8)
	JNZ     loop
	VZEROUPPER
	RET
