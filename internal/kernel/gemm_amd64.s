//go:build amd64 && !purego

#include "textflag.h"

// Micro-kernels of Gemm. Each C element is one accumulator lane that
// starts from C (flagAcc) or zero, adds A[i,p]·B[p,j] for p = 0…K-1 with
// one fused multiply-add each (VFMADD231PS: the exact product and sum,
// rounded once, as fma32 in the pure-Go kernel), then adds bias
// (flagBias).

// MULADD2 accumulates broadcast(*addr)·[Z16|Z17] into z0|z1, t holding
// the broadcast: one load feeds two FMAs, where two embedded broadcasts
// would load it twice (on Intel cores a k step of the 8x32 tile is then
// bound by loads, 18 for 16 FMAs, and runs at about 65% of the FMA peak
// against 90% with 10 loads).
#define MULADD2(addr, z0, z1, t) \
	VBROADCASTSS addr, t;    \
	VFMADD231PS  Z16, t, z0; \
	VFMADD231PS  Z17, t, z1

// MULADD8X32 is one k step of an 8x32 tile after B's row is in Z16|Z17:
// the eight rows' FMAs, then A and B step on.
#define MULADD8X32 \
	MULADD2((AX), Z0, Z1, Z18);         \
	MULADD2((AX)(BX*1), Z2, Z3, Z19);   \
	MULADD2((AX)(BX*2), Z4, Z5, Z20);   \
	MULADD2((CX), Z6, Z7, Z21);         \
	MULADD2((AX)(BX*4), Z8, Z9, Z22);   \
	MULADD2((CX)(BX*2), Z10, Z11, Z23); \
	MULADD2((DX), Z12, Z13, Z24);       \
	MULADD2((CX)(BX*4), Z14, Z15, Z25); \
	ADDQ R10, AX;                       \
	ADDQ R10, CX;                       \
	ADDQ R10, DX;                       \
	ADDQ R11, SI

// LOADC2 loads one C row (masked) into z0|z1 from ptr.
#define LOADC2(ptr, z0, z1) \
	VMOVUPS.Z (ptr), K1, z0; \
	VMOVUPS.Z 64(ptr), K2, z1

#define STOREC2(ptr, z0, z1) \
	VMOVUPS z0, K1, (ptr); \
	VMOVUPS z1, K2, 64(ptr)

// SCALEC2 multiplies z0|z1, one row of the tile, by the row of E at ptr
// (masked like C): C = (A·B)⊙E, flagScale.
#define SCALEC2(ptr, z0, z1) \
	VMOVUPS.Z (ptr), K1, Z16; \
	VMOVUPS.Z 64(ptr), K2, Z17; \
	VMULPS    Z16, z0, z0;      \
	VMULPS    Z17, z1, z1

// ADDC2 adds the row of E at ptr to z0|z1 (masked like C): C = A·B + E,
// flagAddE.
#define ADDC2(ptr, z0, z1) \
	VMOVUPS.Z (ptr), K1, Z16; \
	VMOVUPS.Z 64(ptr), K2, Z17; \
	VADDPS    Z16, z0, z0;      \
	VADDPS    Z17, z1, z1

#define ADDBIAS2(z0, z1) \
	VADDPS Z16, z0, z0; \
	VADDPS Z17, z1, z1

// PREFETCH_ROW steps ptr down one row of C (R9 bytes) and asks for its
// 32 columns (2 lines).
#define PREFETCH_ROW(ptr) \
	ADDQ       R9, ptr; \
	PREFETCHT0 (ptr);   \
	PREFETCHT0 64(ptr)

// PREFETCH_NEXT_C asks for the next tile's 8 rows of C while this tile's
// k loop runs, ptr on this tile's last row: an accumulated C (a weight
// gradient over chunks) is often out of L2. A prefetch past the panel's
// last row does not fault.
#define PREFETCH_NEXT_C(ptr) \
	PREFETCH_ROW(ptr); \
	PREFETCH_ROW(ptr); \
	PREFETCH_ROW(ptr); \
	PREFETCH_ROW(ptr); \
	PREFETCH_ROW(ptr); \
	PREFETCH_ROW(ptr); \
	PREFETCH_ROW(ptr); \
	PREFETCH_ROW(ptr)

// NEXT_TILE moves to the next 8-row tile of a panel after a tile's store
// has left DI on its last row: C (DI) and A (the a argument, kept in its
// slot) move down 8 rows, and it loops to LABEL while rows remain.
#define NEXT_TILE(LABEL, ROWS) \
	ADDQ R9, DI; \
	MOVQ a+8(FP), AX; \
	LEAQ (AX)(BX*8), AX; \
	MOVQ AX, a+8(FP); \
	SUBQ $8, ROWS; \
	JNZ  LABEL

// ZERO16Z zeroes Z0–Z15, the sums of a 16-register tile (ZERO16Y is
// its ymm twin).
#define ZERO16Z \
	VPXORD Z0, Z0, Z0; \
	VPXORD Z1, Z1, Z1; \
	VPXORD Z2, Z2, Z2; \
	VPXORD Z3, Z3, Z3; \
	VPXORD Z4, Z4, Z4; \
	VPXORD Z5, Z5, Z5; \
	VPXORD Z6, Z6, Z6; \
	VPXORD Z7, Z7, Z7; \
	VPXORD Z8, Z8, Z8; \
	VPXORD Z9, Z9, Z9; \
	VPXORD Z10, Z10, Z10; \
	VPXORD Z11, Z11, Z11; \
	VPXORD Z12, Z12, Z12; \
	VPXORD Z13, Z13, Z13; \
	VPXORD Z14, Z14, Z14; \
	VPXORD Z15, Z15, Z15

// func gemm8x32AVX512(c, a, b, bias *float32, ldc, rsa, csa, ldb, k int, masks uint32, flags, rows int, s *float32)
TEXT ·gemm8x32AVX512(SB), NOSPLIT, $0-104
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), SI
	MOVQ bias+24(FP), R8
	MOVQ ldc+32(FP), R9
	SHLQ $2, R9
	MOVQ rsa+40(FP), BX
	SHLQ $2, BX
	MOVQ csa+48(FP), R10
	SHLQ $2, R10
	MOVQ ldb+56(FP), R11
	SHLQ $2, R11
	MOVQ k+64(FP), R12
	MOVL masks+72(FP), R13
	KMOVW R13, K1
	SHRL $16, R13
	KMOVW R13, K2
	MOVQ flags+80(FP), R14
	CMPL masks+72(FP), $-1
	JNE  tile832
	ORQ  $4, R14 // a full panel: the k loop's loads need no mask

	// CX = row 3 of A, DX = row 6.
	// One 8-row tile per pass, rows/8 passes: C and A move down 8 rows,
	// B and K start over.
tile832:
	MOVQ b+16(FP), SI
	MOVQ k+64(FP), R12
	LEAQ (AX)(BX*2), CX
	ADDQ BX, CX
	LEAQ (CX)(BX*2), DX
	ADDQ BX, DX

	TESTQ $1, R14
	JZ    zero8
	MOVQ  DI, R13
	LOADC2(R13, Z0, Z1)
	ADDQ  R9, R13
	LOADC2(R13, Z2, Z3)
	ADDQ  R9, R13
	LOADC2(R13, Z4, Z5)
	ADDQ  R9, R13
	LOADC2(R13, Z6, Z7)
	ADDQ  R9, R13
	LOADC2(R13, Z8, Z9)
	ADDQ  R9, R13
	LOADC2(R13, Z10, Z11)
	ADDQ  R9, R13
	LOADC2(R13, Z12, Z13)
	ADDQ  R9, R13
	LOADC2(R13, Z14, Z15)
	PREFETCH_NEXT_C(R13)
	JMP   kloop8

zero8:
	ZERO16Z

	// Masked loads of B cost about 13% of the loop's throughput on Zen 4
	// against plain ones, so a full panel (flag 4) runs loop8u.
kloop8:
	TESTQ $4, R14
	JNZ   loop8u

loop8:
	VMOVUPS.Z (SI), K1, Z16
	VMOVUPS.Z 64(SI), K2, Z17
	MULADD8X32
	DECQ R12
	JNZ  loop8
	JMP  done8

loop8u:
	TESTQ $32, R14
	JNZ   dbias8

loop8uk:
	VMOVUPS (SI), Z16
	VMOVUPS 64(SI), Z17
	MULADD8X32
	DECQ R12
	JNZ  loop8uk
	JMP  done8

	// flagDBias (full panels, rsa = 1): the tile's eight A rows at step
	// p are A[i0…i0+7, p], contiguous at AX; Y31 adds them to the bias
	// gradient at s in p order, as the one-row Gemm ones·A' would.
dbias8:
	MOVQ    s+96(FP), R13
	VMOVUPS (R13), Y31

loop8ub:
	VMOVUPS (SI), Z16
	VMOVUPS 64(SI), Z17
	VADDPS  (AX), Y31, Y31
	MULADD8X32
	DECQ R12
	JNZ  loop8ub
	VMOVUPS Y31, (R13)
	ADDQ    $32, R13
	MOVQ    R13, s+96(FP)

done8:

	TESTQ $2, R14
	JZ    store8
	VMOVUPS.Z (R8), K1, Z16
	VMOVUPS.Z 64(R8), K2, Z17
	ADDBIAS2(Z0, Z1)
	ADDBIAS2(Z2, Z3)
	ADDBIAS2(Z4, Z5)
	ADDBIAS2(Z6, Z7)
	ADDBIAS2(Z8, Z9)
	ADDBIAS2(Z10, Z11)
	ADDBIAS2(Z12, Z13)
	ADDBIAS2(Z14, Z15)

store8:
	TESTQ $24, R14
	JZ    store8c
	MOVQ  s+96(FP), R13
	TESTQ $16, R14
	JNZ   addc8
	SCALEC2(R13, Z0, Z1)
	ADDQ  R9, R13
	SCALEC2(R13, Z2, Z3)
	ADDQ  R9, R13
	SCALEC2(R13, Z4, Z5)
	ADDQ  R9, R13
	SCALEC2(R13, Z6, Z7)
	ADDQ  R9, R13
	SCALEC2(R13, Z8, Z9)
	ADDQ  R9, R13
	SCALEC2(R13, Z10, Z11)
	ADDQ  R9, R13
	SCALEC2(R13, Z12, Z13)
	ADDQ  R9, R13
	SCALEC2(R13, Z14, Z15)
	ADDQ  R9, R13
	JMP   epi8

addc8:
	ADDC2(R13, Z0, Z1)
	ADDQ  R9, R13
	ADDC2(R13, Z2, Z3)
	ADDQ  R9, R13
	ADDC2(R13, Z4, Z5)
	ADDQ  R9, R13
	ADDC2(R13, Z6, Z7)
	ADDQ  R9, R13
	ADDC2(R13, Z8, Z9)
	ADDQ  R9, R13
	ADDC2(R13, Z10, Z11)
	ADDQ  R9, R13
	ADDC2(R13, Z12, Z13)
	ADDQ  R9, R13
	ADDC2(R13, Z14, Z15)
	ADDQ  R9, R13

epi8:
	MOVQ  R13, s+96(FP)

store8c:
	STOREC2(DI, Z0, Z1)
	ADDQ R9, DI
	STOREC2(DI, Z2, Z3)
	ADDQ R9, DI
	STOREC2(DI, Z4, Z5)
	ADDQ R9, DI
	STOREC2(DI, Z6, Z7)
	ADDQ R9, DI
	STOREC2(DI, Z8, Z9)
	ADDQ R9, DI
	STOREC2(DI, Z10, Z11)
	ADDQ R9, DI
	STOREC2(DI, Z12, Z13)
	ADDQ R9, DI
	STOREC2(DI, Z14, Z15)
	NEXT_TILE(tile832, rows+88(FP))
	VZEROUPPER
	RET

// func gemm1x32AVX512(c, a, b, bias *float32, ldc, rsa, csa, ldb, k int, masks uint32, flags int)
TEXT ·gemm1x32AVX512(SB), NOSPLIT, $0-88
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), SI
	MOVQ bias+24(FP), R8
	MOVQ csa+48(FP), R10
	SHLQ $2, R10
	MOVQ ldb+56(FP), R11
	SHLQ $2, R11
	MOVQ k+64(FP), R12
	MOVL masks+72(FP), R13
	KMOVW R13, K1
	SHRL $16, R13
	KMOVW R13, K2
	MOVQ flags+80(FP), R14

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	TESTQ  $1, R14
	JZ     loop1
	LOADC2(DI, Z0, Z1)

loop1:
	VMOVUPS.Z (SI), K1, Z16
	VMOVUPS.Z 64(SI), K2, Z17
	MULADD2((AX), Z0, Z1, Z18)
	ADDQ R10, AX
	ADDQ R11, SI
	DECQ R12
	JNZ  loop1

	TESTQ $2, R14
	JZ    store1
	VMOVUPS.Z (R8), K1, Z16
	VMOVUPS.Z 64(R8), K2, Z17
	ADDBIAS2(Z0, Z1)

store1:
	STOREC2(DI, Z0, Z1)
	VZEROUPPER
	RET

// MULADDY accumulates broadcast(*addr)·[Y12|Y13] into y0|y1 (AVX2 has no
// embedded broadcast, so Y14 holds it).
#define MULADDY(addr, y0, y1) \
	VBROADCASTSS addr, Y14; \
	VFMADD231PS  Y12, Y14, y0; \
	VFMADD231PS  Y13, Y14, y1

// func gemm4x16AVX2(c, a, b, bias *float32, ldc, rsa, csa, ldb, k, flags int)
TEXT ·gemm4x16AVX2(SB), NOSPLIT, $0-80
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), SI
	MOVQ bias+24(FP), R8
	MOVQ ldc+32(FP), R9
	SHLQ $2, R9
	MOVQ rsa+40(FP), BX
	SHLQ $2, BX
	MOVQ csa+48(FP), R10
	SHLQ $2, R10
	MOVQ ldb+56(FP), R11
	SHLQ $2, R11
	MOVQ k+64(FP), R12
	MOVQ flags+72(FP), R14
	LEAQ (AX)(BX*2), CX
	ADDQ BX, CX

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	TESTQ  $1, R14
	JZ     loop4
	MOVQ   DI, R13
	VMOVUPS (R13), Y0
	VMOVUPS 32(R13), Y1
	ADDQ   R9, R13
	VMOVUPS (R13), Y2
	VMOVUPS 32(R13), Y3
	ADDQ   R9, R13
	VMOVUPS (R13), Y4
	VMOVUPS 32(R13), Y5
	ADDQ   R9, R13
	VMOVUPS (R13), Y6
	VMOVUPS 32(R13), Y7

loop4:
	VMOVUPS (SI), Y12
	VMOVUPS 32(SI), Y13
	MULADDY((AX), Y0, Y1)
	MULADDY((AX)(BX*1), Y2, Y3)
	MULADDY((AX)(BX*2), Y4, Y5)
	MULADDY((CX), Y6, Y7)
	ADDQ R10, AX
	ADDQ R10, CX
	ADDQ R11, SI
	DECQ R12
	JNZ  loop4

	TESTQ $2, R14
	JZ    store4
	VMOVUPS (R8), Y12
	VMOVUPS 32(R8), Y13
	VADDPS Y12, Y0, Y0
	VADDPS Y13, Y1, Y1
	VADDPS Y12, Y2, Y2
	VADDPS Y13, Y3, Y3
	VADDPS Y12, Y4, Y4
	VADDPS Y13, Y5, Y5
	VADDPS Y12, Y6, Y6
	VADDPS Y13, Y7, Y7

store4:
	VMOVUPS Y0, (DI)
	VMOVUPS Y1, 32(DI)
	ADDQ    R9, DI
	VMOVUPS Y2, (DI)
	VMOVUPS Y3, 32(DI)
	ADDQ    R9, DI
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ    R9, DI
	VMOVUPS Y6, (DI)
	VMOVUPS Y7, 32(DI)
	VZEROUPPER
	RET

// MULADD1 accumulates broadcast(*addr)·Z16 into z0 (an embedded
// broadcast: one load per FMA either way).
#define MULADD1(addr, z0) \
	VFMADD231PS.BCST addr, Z16, z0

// func gemm8x16AVX512(c, a, b, bias *float32, ldc, rsa, csa, ldb, k int, masks uint32, flags, rows int)
TEXT ·gemm8x16AVX512(SB), NOSPLIT, $0-96
	MOVQ  c+0(FP), DI
	MOVQ  a+8(FP), AX
	MOVQ  b+16(FP), SI
	MOVQ  bias+24(FP), R8
	MOVQ  ldc+32(FP), R9
	SHLQ  $2, R9
	MOVQ  rsa+40(FP), BX
	SHLQ  $2, BX
	MOVQ  csa+48(FP), R10
	SHLQ  $2, R10
	MOVQ  ldb+56(FP), R11
	SHLQ  $2, R11
	MOVQ  k+64(FP), R12
	MOVL  masks+72(FP), R13
	KMOVW R13, K1
	MOVQ  flags+80(FP), R14

	// One 8-row tile per pass, rows/8 passes: C and A move down 8 rows,
	// B and K start over.
tile816:
	MOVQ b+16(FP), SI
	MOVQ k+64(FP), R12
	LEAQ (AX)(BX*2), CX
	ADDQ BX, CX
	LEAQ (CX)(BX*2), DX
	ADDQ BX, DX

	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VPXORD Z4, Z4, Z4
	VPXORD Z5, Z5, Z5
	VPXORD Z6, Z6, Z6
	VPXORD Z7, Z7, Z7
	TESTQ  $1, R14
	JZ     loop816
	MOVQ   DI, R13
	VMOVUPS.Z (R13), K1, Z0
	ADDQ   R9, R13
	VMOVUPS.Z (R13), K1, Z1
	ADDQ   R9, R13
	VMOVUPS.Z (R13), K1, Z2
	ADDQ   R9, R13
	VMOVUPS.Z (R13), K1, Z3
	ADDQ   R9, R13
	VMOVUPS.Z (R13), K1, Z4
	ADDQ   R9, R13
	VMOVUPS.Z (R13), K1, Z5
	ADDQ   R9, R13
	VMOVUPS.Z (R13), K1, Z6
	ADDQ   R9, R13
	VMOVUPS.Z (R13), K1, Z7

loop816:
	VMOVUPS.Z (SI), K1, Z16
	MULADD1((AX), Z0)
	MULADD1((AX)(BX*1), Z1)
	MULADD1((AX)(BX*2), Z2)
	MULADD1((CX), Z3)
	MULADD1((AX)(BX*4), Z4)
	MULADD1((CX)(BX*2), Z5)
	MULADD1((DX), Z6)
	MULADD1((CX)(BX*4), Z7)
	ADDQ R10, AX
	ADDQ R10, CX
	ADDQ R10, DX
	ADDQ R11, SI
	DECQ R12
	JNZ  loop816

	TESTQ $2, R14
	JZ    store816
	VMOVUPS.Z (R8), K1, Z16
	VADDPS Z16, Z0, Z0
	VADDPS Z16, Z1, Z1
	VADDPS Z16, Z2, Z2
	VADDPS Z16, Z3, Z3
	VADDPS Z16, Z4, Z4
	VADDPS Z16, Z5, Z5
	VADDPS Z16, Z6, Z6
	VADDPS Z16, Z7, Z7

store816:
	VMOVUPS Z0, K1, (DI)
	ADDQ    R9, DI
	VMOVUPS Z1, K1, (DI)
	ADDQ    R9, DI
	VMOVUPS Z2, K1, (DI)
	ADDQ    R9, DI
	VMOVUPS Z3, K1, (DI)
	ADDQ    R9, DI
	VMOVUPS Z4, K1, (DI)
	ADDQ    R9, DI
	VMOVUPS Z5, K1, (DI)
	ADDQ    R9, DI
	VMOVUPS Z6, K1, (DI)
	ADDQ    R9, DI
	VMOVUPS Z7, K1, (DI)
	NEXT_TILE(tile816, rows+88(FP))
	VZEROUPPER
	RET

// MULADDY1 accumulates broadcast(*addr)·Y8 into y0 (Y9 the broadcast).
#define MULADDY1(addr, y0) \
	VBROADCASTSS addr, Y9; \
	VFMADD231PS  Y8, Y9, y0

// func gemm8x8AVX(c, a, b, bias *float32, ldc, rsa, csa, ldb, k, flags, rows int)
//
// An 8-row, exactly-8-column tile on ymm registers. Zen 4 issues two ymm
// multiplies and two ymm adds per cycle but only one of each on zmm, so a
// head-sized product (8 columns) runs twice as fast here as in a masked
// zmm tile. Same operation order as every other kernel.
TEXT ·gemm8x8AVX(SB), NOSPLIT, $0-88
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), SI
	MOVQ bias+24(FP), R8
	MOVQ ldc+32(FP), R9
	SHLQ $2, R9
	MOVQ rsa+40(FP), BX
	SHLQ $2, BX
	MOVQ csa+48(FP), R10
	SHLQ $2, R10
	MOVQ ldb+56(FP), R11
	SHLQ $2, R11
	MOVQ k+64(FP), R12
	MOVQ flags+72(FP), R14

	// One 8-row tile per pass, rows/8 passes: C and A move down 8 rows,
	// B and K start over.
tile88:
	MOVQ b+16(FP), SI
	MOVQ k+64(FP), R12
	LEAQ (AX)(BX*2), CX
	ADDQ BX, CX
	LEAQ (CX)(BX*2), DX
	ADDQ BX, DX

	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	TESTQ  $1, R14
	JZ     loop88
	MOVQ   DI, R13
	VMOVUPS (R13), Y0
	ADDQ   R9, R13
	VMOVUPS (R13), Y1
	ADDQ   R9, R13
	VMOVUPS (R13), Y2
	ADDQ   R9, R13
	VMOVUPS (R13), Y3
	ADDQ   R9, R13
	VMOVUPS (R13), Y4
	ADDQ   R9, R13
	VMOVUPS (R13), Y5
	ADDQ   R9, R13
	VMOVUPS (R13), Y6
	ADDQ   R9, R13
	VMOVUPS (R13), Y7

loop88:
	VMOVUPS (SI), Y8
	MULADDY1((AX), Y0)
	MULADDY1((AX)(BX*1), Y1)
	MULADDY1((AX)(BX*2), Y2)
	MULADDY1((CX), Y3)
	MULADDY1((AX)(BX*4), Y4)
	MULADDY1((CX)(BX*2), Y5)
	MULADDY1((DX), Y6)
	MULADDY1((CX)(BX*4), Y7)
	ADDQ R10, AX
	ADDQ R10, CX
	ADDQ R10, DX
	ADDQ R11, SI
	DECQ R12
	JNZ  loop88

	TESTQ $2, R14
	JZ    store88
	VMOVUPS (R8), Y8
	VADDPS Y8, Y0, Y0
	VADDPS Y8, Y1, Y1
	VADDPS Y8, Y2, Y2
	VADDPS Y8, Y3, Y3
	VADDPS Y8, Y4, Y4
	VADDPS Y8, Y5, Y5
	VADDPS Y8, Y6, Y6
	VADDPS Y8, Y7, Y7

store88:
	VMOVUPS Y0, (DI)
	ADDQ    R9, DI
	VMOVUPS Y1, (DI)
	ADDQ    R9, DI
	VMOVUPS Y2, (DI)
	ADDQ    R9, DI
	VMOVUPS Y3, (DI)
	ADDQ    R9, DI
	VMOVUPS Y4, (DI)
	ADDQ    R9, DI
	VMOVUPS Y5, (DI)
	ADDQ    R9, DI
	VMOVUPS Y6, (DI)
	ADDQ    R9, DI
	VMOVUPS Y7, (DI)
	NEXT_TILE(tile88, rows+80(FP))
	VZEROUPPER
	RET

// ZERO16Y clears Y0–Y15, the sums of a 16x8 tile.
#define ZERO16Y \
	VXORPS Y0, Y0, Y0; \
	VXORPS Y1, Y1, Y1; \
	VXORPS Y2, Y2, Y2; \
	VXORPS Y3, Y3, Y3; \
	VXORPS Y4, Y4, Y4; \
	VXORPS Y5, Y5, Y5; \
	VXORPS Y6, Y6, Y6; \
	VXORPS Y7, Y7, Y7; \
	VXORPS Y8, Y8, Y8; \
	VXORPS Y9, Y9, Y9; \
	VXORPS Y10, Y10, Y10; \
	VXORPS Y11, Y11, Y11; \
	VXORPS Y12, Y12, Y12; \
	VXORPS Y13, Y13, Y13; \
	VXORPS Y14, Y14, Y14; \
	VXORPS Y15, Y15, Y15

// STORE16Y stores Y0–Y15 to 16 rows of C from DI on, R9 bytes apart,
// leaving DI on the last row.
#define STORE16Y \
	VMOVUPS Y0, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y1, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y2, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y3, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y4, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y5, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y6, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y7, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y8, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y9, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y10, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y11, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y12, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y13, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y14, (DI); \
	ADDQ    R9, DI; \
	VMOVUPS Y15, (DI)

// func gemm16x8AVX512(c, a, b, bias *float32, ldc, rsa, csa, ldb, k, flags, rows int)
//
// gemm8x8AVX for 16-row tiles (rows a positive multiple of 16), on the 16
// extra ymm registers of AVX-512VL and with embedded-broadcast multiplies:
// half the tiles and no separate broadcast instructions. Rows of A are
// addressed from three bases (rows 0, 7 and 14) and the index registers
// BX = rsa, R13 = 3·rsa, R14 = 5·rsa. Same operation order as every other
// kernel.
TEXT ·gemm16x8AVX512(SB), NOSPLIT, $0-88
	MOVQ bias+24(FP), R8
	MOVQ ldc+32(FP), R9
	SHLQ $2, R9
	MOVQ rsa+40(FP), BX
	SHLQ $2, BX
	MOVQ csa+48(FP), R10
	SHLQ $2, R10
	MOVQ ldb+56(FP), R11
	SHLQ $2, R11
	LEAQ (BX)(BX*2), R13
	LEAQ (BX)(BX*4), R14
	MOVQ c+0(FP), DI

tile168:
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), SI
	MOVQ k+64(FP), R12
	LEAQ (AX)(R13*2), CX
	ADDQ BX, CX
	LEAQ (CX)(R13*2), DX
	ADDQ BX, DX

	ZERO16Y
	TESTQ  $1, flags+72(FP)
	JZ     loop168
	MOVQ   DI, R12
	VMOVUPS (R12), Y0
	ADDQ    R9, R12
	VMOVUPS (R12), Y1
	ADDQ    R9, R12
	VMOVUPS (R12), Y2
	ADDQ    R9, R12
	VMOVUPS (R12), Y3
	ADDQ    R9, R12
	VMOVUPS (R12), Y4
	ADDQ    R9, R12
	VMOVUPS (R12), Y5
	ADDQ    R9, R12
	VMOVUPS (R12), Y6
	ADDQ    R9, R12
	VMOVUPS (R12), Y7
	ADDQ    R9, R12
	VMOVUPS (R12), Y8
	ADDQ    R9, R12
	VMOVUPS (R12), Y9
	ADDQ    R9, R12
	VMOVUPS (R12), Y10
	ADDQ    R9, R12
	VMOVUPS (R12), Y11
	ADDQ    R9, R12
	VMOVUPS (R12), Y12
	ADDQ    R9, R12
	VMOVUPS (R12), Y13
	ADDQ    R9, R12
	VMOVUPS (R12), Y14
	ADDQ    R9, R12
	VMOVUPS (R12), Y15
	MOVQ   k+64(FP), R12

loop168:
	VMOVUPS (SI), Y16
	VFMADD231PS.BCST (AX), Y16, Y0
	VFMADD231PS.BCST (AX)(BX*1), Y16, Y1
	VFMADD231PS.BCST (AX)(BX*2), Y16, Y2
	VFMADD231PS.BCST (AX)(R13*1), Y16, Y3
	VFMADD231PS.BCST (AX)(BX*4), Y16, Y4
	VFMADD231PS.BCST (AX)(R14*1), Y16, Y5
	VFMADD231PS.BCST (AX)(R13*2), Y16, Y6
	VFMADD231PS.BCST (CX), Y16, Y7
	VFMADD231PS.BCST (CX)(BX*1), Y16, Y8
	VFMADD231PS.BCST (CX)(BX*2), Y16, Y9
	VFMADD231PS.BCST (CX)(R13*1), Y16, Y10
	VFMADD231PS.BCST (CX)(BX*4), Y16, Y11
	VFMADD231PS.BCST (CX)(R14*1), Y16, Y12
	VFMADD231PS.BCST (CX)(R13*2), Y16, Y13
	VFMADD231PS.BCST (DX), Y16, Y14
	VFMADD231PS.BCST (DX)(BX*1), Y16, Y15
	ADDQ R10, AX
	ADDQ R10, CX
	ADDQ R10, DX
	ADDQ R11, SI
	DECQ R12
	JNZ  loop168

	TESTQ $2, flags+72(FP)
	JZ    store168
	VMOVUPS (R8), Y16
	VADDPS Y16, Y0, Y0
	VADDPS Y16, Y1, Y1
	VADDPS Y16, Y2, Y2
	VADDPS Y16, Y3, Y3
	VADDPS Y16, Y4, Y4
	VADDPS Y16, Y5, Y5
	VADDPS Y16, Y6, Y6
	VADDPS Y16, Y7, Y7
	VADDPS Y16, Y8, Y8
	VADDPS Y16, Y9, Y9
	VADDPS Y16, Y10, Y10
	VADDPS Y16, Y11, Y11
	VADDPS Y16, Y12, Y12
	VADDPS Y16, Y13, Y13
	VADDPS Y16, Y14, Y14
	VADDPS Y16, Y15, Y15

store168:
	STORE16Y
	ADDQ    R9, DI
	MOVQ a+8(FP), AX
	SHLQ $4, BX
	ADDQ BX, AX
	SHRQ $4, BX
	MOVQ AX, a+8(FP)
	SUBQ $16, rows+80(FP)
	JNZ  tile168
	VZEROUPPER
	RET


// func tri8AVX512(c, a, b *float32, ldc, rsa, csa, ldb, t, upper int)
//
// R14 is the tile's first row r0. A lower tile starts A at row r0, column
// 0 and B at row 0, and runs K = r0+8; an upper one starts A at (r0, r0)
// and B at row r0, and runs K = T−r0. AX addresses A's rows 0–3 of the
// tile and CX rows 4–7 (R13 = 3·rsa).
TEXT ·tri8AVX512(SB), NOSPLIT, $0-72
	MOVQ ldc+24(FP), R9
	SHLQ $2, R9
	MOVQ rsa+32(FP), BX
	SHLQ $2, BX
	MOVQ csa+40(FP), R10
	SHLQ $2, R10
	MOVQ ldb+48(FP), R11
	SHLQ $2, R11
	MOVQ t+56(FP), R8
	LEAQ (BX)(BX*2), R13
	XORQ R14, R14

tri8tile:
	MOVQ  a+8(FP), AX
	MOVQ  R14, DX
	IMULQ BX, DX
	ADDQ  DX, AX
	MOVQ  b+16(FP), SI
	CMPQ  upper+64(FP), $0
	JNE   tri8upper
	LEAQ  8(R14), R12
	JMP   tri8start

tri8upper:
	MOVQ  R14, DX
	IMULQ R10, DX
	ADDQ  DX, AX
	MOVQ  R14, DX
	IMULQ R11, DX
	ADDQ  DX, SI
	MOVQ  R8, R12
	SUBQ  R14, R12

tri8start:
	LEAQ   (AX)(BX*4), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

tri8loop:
	VMOVUPS     (SI), Y8
	VFMADD231PS.BCST (AX), Y8, Y0
	VFMADD231PS.BCST (AX)(BX*1), Y8, Y1
	VFMADD231PS.BCST (AX)(BX*2), Y8, Y2
	VFMADD231PS.BCST (AX)(R13*1), Y8, Y3
	VFMADD231PS.BCST (CX), Y8, Y4
	VFMADD231PS.BCST (CX)(BX*1), Y8, Y5
	VFMADD231PS.BCST (CX)(BX*2), Y8, Y6
	VFMADD231PS.BCST (CX)(R13*1), Y8, Y7
	ADDQ        R10, AX
	ADDQ        R10, CX
	ADDQ        R11, SI
	DECQ        R12
	JNZ         tri8loop

	MOVQ    R14, DI
	IMULQ   R9, DI
	ADDQ    c+0(FP), DI
	VMOVUPS Y0, (DI)
	ADDQ    R9, DI
	VMOVUPS Y1, (DI)
	ADDQ    R9, DI
	VMOVUPS Y2, (DI)
	ADDQ    R9, DI
	VMOVUPS Y3, (DI)
	ADDQ    R9, DI
	VMOVUPS Y4, (DI)
	ADDQ    R9, DI
	VMOVUPS Y5, (DI)
	ADDQ    R9, DI
	VMOVUPS Y6, (DI)
	ADDQ    R9, DI
	VMOVUPS Y7, (DI)
	ADDQ    $8, R14
	CMPQ    R14, R8
	JLT     tri8tile
	VZEROUPPER
	RET

// func upper32x8AVX512(c, a, b *float32, ldc, lda, ldb int)
//
// Z16+2p and Z17+2p hold columns 0–15 and 16–31 of B's row p. Rows 0–15
// go two per pass (AX row j, DX row j+1), rows 16–31 four per pass (AX,
// DX, R8, R10), right half only. Every accumulator starts from +0 and
// adds its 8 products in increasing p.
TEXT ·upper32x8AVX512(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ a+8(FP), AX
	MOVQ b+16(FP), SI
	MOVQ ldc+24(FP), R9
	SHLQ $2, R9
	MOVQ lda+32(FP), BX
	SHLQ $2, BX
	MOVQ ldb+40(FP), R11
	SHLQ $2, R11
	VMOVUPS (SI), Z16
	VMOVUPS 64(SI), Z17
	ADDQ    R11, SI
	VMOVUPS (SI), Z18
	VMOVUPS 64(SI), Z19
	ADDQ    R11, SI
	VMOVUPS (SI), Z20
	VMOVUPS 64(SI), Z21
	ADDQ    R11, SI
	VMOVUPS (SI), Z22
	VMOVUPS 64(SI), Z23
	ADDQ    R11, SI
	VMOVUPS (SI), Z24
	VMOVUPS 64(SI), Z25
	ADDQ    R11, SI
	VMOVUPS (SI), Z26
	VMOVUPS 64(SI), Z27
	ADDQ    R11, SI
	VMOVUPS (SI), Z28
	VMOVUPS 64(SI), Z29
	ADDQ    R11, SI
	VMOVUPS (SI), Z30
	VMOVUPS 64(SI), Z31
	MOVQ    $8, CX

upper_lo:
	LEAQ   (AX)(BX*1), DX
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VFMADD231PS.BCST 0(AX), Z16, Z0
	VFMADD231PS.BCST 0(AX), Z17, Z1
	VFMADD231PS.BCST 0(DX), Z16, Z2
	VFMADD231PS.BCST 0(DX), Z17, Z3
	VFMADD231PS.BCST 4(AX), Z18, Z0
	VFMADD231PS.BCST 4(AX), Z19, Z1
	VFMADD231PS.BCST 4(DX), Z18, Z2
	VFMADD231PS.BCST 4(DX), Z19, Z3
	VFMADD231PS.BCST 8(AX), Z20, Z0
	VFMADD231PS.BCST 8(AX), Z21, Z1
	VFMADD231PS.BCST 8(DX), Z20, Z2
	VFMADD231PS.BCST 8(DX), Z21, Z3
	VFMADD231PS.BCST 12(AX), Z22, Z0
	VFMADD231PS.BCST 12(AX), Z23, Z1
	VFMADD231PS.BCST 12(DX), Z22, Z2
	VFMADD231PS.BCST 12(DX), Z23, Z3
	VFMADD231PS.BCST 16(AX), Z24, Z0
	VFMADD231PS.BCST 16(AX), Z25, Z1
	VFMADD231PS.BCST 16(DX), Z24, Z2
	VFMADD231PS.BCST 16(DX), Z25, Z3
	VFMADD231PS.BCST 20(AX), Z26, Z0
	VFMADD231PS.BCST 20(AX), Z27, Z1
	VFMADD231PS.BCST 20(DX), Z26, Z2
	VFMADD231PS.BCST 20(DX), Z27, Z3
	VFMADD231PS.BCST 24(AX), Z28, Z0
	VFMADD231PS.BCST 24(AX), Z29, Z1
	VFMADD231PS.BCST 24(DX), Z28, Z2
	VFMADD231PS.BCST 24(DX), Z29, Z3
	VFMADD231PS.BCST 28(AX), Z30, Z0
	VFMADD231PS.BCST 28(AX), Z31, Z1
	VFMADD231PS.BCST 28(DX), Z30, Z2
	VFMADD231PS.BCST 28(DX), Z31, Z3
	VMOVUPS Z0, (DI)
	VMOVUPS Z1, 64(DI)
	VMOVUPS Z2, (DI)(R9*1)
	VMOVUPS Z3, 64(DI)(R9*1)
	LEAQ    (AX)(BX*2), AX
	LEAQ    (DI)(R9*2), DI
	DECQ    CX
	JNZ     upper_lo
	MOVQ    $4, CX

upper_hi:
	LEAQ   (AX)(BX*1), DX
	LEAQ   (AX)(BX*2), R8
	LEAQ   (DX)(BX*2), R10
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	VPXORD Z2, Z2, Z2
	VPXORD Z3, Z3, Z3
	VFMADD231PS.BCST 0(AX), Z17, Z0
	VFMADD231PS.BCST 0(DX), Z17, Z1
	VFMADD231PS.BCST 0(R8), Z17, Z2
	VFMADD231PS.BCST 0(R10), Z17, Z3
	VFMADD231PS.BCST 4(AX), Z19, Z0
	VFMADD231PS.BCST 4(DX), Z19, Z1
	VFMADD231PS.BCST 4(R8), Z19, Z2
	VFMADD231PS.BCST 4(R10), Z19, Z3
	VFMADD231PS.BCST 8(AX), Z21, Z0
	VFMADD231PS.BCST 8(DX), Z21, Z1
	VFMADD231PS.BCST 8(R8), Z21, Z2
	VFMADD231PS.BCST 8(R10), Z21, Z3
	VFMADD231PS.BCST 12(AX), Z23, Z0
	VFMADD231PS.BCST 12(DX), Z23, Z1
	VFMADD231PS.BCST 12(R8), Z23, Z2
	VFMADD231PS.BCST 12(R10), Z23, Z3
	VFMADD231PS.BCST 16(AX), Z25, Z0
	VFMADD231PS.BCST 16(DX), Z25, Z1
	VFMADD231PS.BCST 16(R8), Z25, Z2
	VFMADD231PS.BCST 16(R10), Z25, Z3
	VFMADD231PS.BCST 20(AX), Z27, Z0
	VFMADD231PS.BCST 20(DX), Z27, Z1
	VFMADD231PS.BCST 20(R8), Z27, Z2
	VFMADD231PS.BCST 20(R10), Z27, Z3
	VFMADD231PS.BCST 24(AX), Z29, Z0
	VFMADD231PS.BCST 24(DX), Z29, Z1
	VFMADD231PS.BCST 24(R8), Z29, Z2
	VFMADD231PS.BCST 24(R10), Z29, Z3
	VFMADD231PS.BCST 28(AX), Z31, Z0
	VFMADD231PS.BCST 28(DX), Z31, Z1
	VFMADD231PS.BCST 28(R8), Z31, Z2
	VFMADD231PS.BCST 28(R10), Z31, Z3
	VMOVUPS Z0, 64(DI)
	LEAQ    (DI)(R9*1), R12
	VMOVUPS Z1, 64(R12)
	ADDQ    R9, R12
	VMOVUPS Z2, 64(R12)
	ADDQ    R9, R12
	VMOVUPS Z3, 64(R12)
	LEAQ    (AX)(BX*4), AX
	LEAQ    (R12)(R9*1), DI
	DECQ    CX
	JNZ     upper_hi
	VZEROUPPER
	RET

// TRI16_ALL, TRI16_LO and TRI16_HI are one k step of tri16AVX512 on all
// 16 rows of the tile, its first 8 or its last 8: B's row into Y16, the
// rows' products and sums (TRI16_ROWSLO, TRI16_ROWSHI), then A and B step
// on (TRI16_NEXT).
#define TRI16_ROWSLO \
	VFMADD231PS.BCST (AX), Y16, Y0; \
	VFMADD231PS.BCST (AX)(BX*1), Y16, Y1; \
	VFMADD231PS.BCST (AX)(BX*2), Y16, Y2; \
	VFMADD231PS.BCST (AX)(R13*1), Y16, Y3; \
	VFMADD231PS.BCST (CX), Y16, Y4; \
	VFMADD231PS.BCST (CX)(BX*1), Y16, Y5; \
	VFMADD231PS.BCST (CX)(BX*2), Y16, Y6; \
	VFMADD231PS.BCST (CX)(R13*1), Y16, Y7; \

#define TRI16_ROWSHI \
	VFMADD231PS.BCST (DX), Y16, Y8; \
	VFMADD231PS.BCST (DX)(BX*1), Y16, Y9; \
	VFMADD231PS.BCST (DX)(BX*2), Y16, Y10; \
	VFMADD231PS.BCST (DX)(R13*1), Y16, Y11; \
	VFMADD231PS.BCST (R8), Y16, Y12; \
	VFMADD231PS.BCST (R8)(BX*1), Y16, Y13; \
	VFMADD231PS.BCST (R8)(BX*2), Y16, Y14; \
	VFMADD231PS.BCST (R8)(R13*1), Y16, Y15; \

#define TRI16_NEXT \
	ADDQ        R10, AX; \
	ADDQ        R10, CX; \
	ADDQ        R10, DX; \
	ADDQ        R10, R8; \
	ADDQ        R11, SI

#define TRI16_ALL \
	VMOVUPS     (SI), Y16; \
	TRI16_ROWSLO ; \
	TRI16_ROWSHI ; \
	TRI16_NEXT  

#define TRI16_LO \
	VMOVUPS     (SI), Y16; \
	TRI16_ROWSLO ; \
	TRI16_NEXT  

#define TRI16_HI \
	VMOVUPS     (SI), Y16; \
	TRI16_ROWSHI ; \
	TRI16_NEXT  

// func tri16AVX512(c, a, b *float32, ldc, rsa, csa, ldb, t, upper int)
//
// tri8AVX512 in 16-row tiles, each in two phases over K, which halves the
// tiles' fixed cost. A lower tile [r0, r0+16) runs p < r0+8 on all 16 rows,
// then p in [r0+8, r0+16) on its last 8 (its first 8 see only zeros
// there); an upper tile runs p in [r0, r0+8) on its first 8 rows, then
// p ≥ r0+8 on all 16. AX, CX, DX and R8 address A's rows 0, 4, 8 and 12
// of the tile (R13 = 3·rsa), SI B's row; Y0–Y15 are the rows' sums.
TEXT ·tri16AVX512(SB), NOSPLIT, $0-72
	MOVQ ldc+24(FP), R9
	SHLQ $2, R9
	MOVQ rsa+32(FP), BX
	SHLQ $2, BX
	MOVQ csa+40(FP), R10
	SHLQ $2, R10
	MOVQ ldb+48(FP), R11
	SHLQ $2, R11
	LEAQ (BX)(BX*2), R13
	XORQ R14, R14

tri16tile:
	MOVQ  a+8(FP), AX
	MOVQ  R14, DX
	IMULQ BX, DX
	ADDQ  DX, AX
	MOVQ  b+16(FP), SI
	CMPQ  upper+64(FP), $0
	JEQ   tri16ptrs
	MOVQ  R14, DX
	IMULQ R10, DX
	ADDQ  DX, AX
	MOVQ  R14, DX
	IMULQ R11, DX
	ADDQ  DX, SI

tri16ptrs:
	LEAQ (AX)(BX*4), CX
	LEAQ (CX)(BX*4), DX
	LEAQ (DX)(BX*4), R8
	ZERO16Y
	CMPQ upper+64(FP), $0
	JNE  tri16up

	// Lower: all rows for p < r0+8, then the last 8 for 8 more.
	LEAQ 8(R14), R12
tri16lo1:
	TRI16_ALL
	DECQ        R12
	JNZ         tri16lo1
	MOVQ        $8, R12
tri16lo2:
	TRI16_HI
	DECQ        R12
	JNZ         tri16lo2
	JMP         tri16store

	// Upper: the first 8 rows for p in [r0, r0+8), then all rows to T.
tri16up:
	MOVQ $8, R12
tri16up1:
	TRI16_LO
	DECQ        R12
	JNZ         tri16up1
	MOVQ        t+56(FP), R12
	SUBQ        R14, R12
	SUBQ        $8, R12
tri16up2:
	TRI16_ALL
	DECQ        R12
	JNZ         tri16up2

tri16store:
	MOVQ    R14, DI
	IMULQ   R9, DI
	ADDQ    c+0(FP), DI
	STORE16Y
	ADDQ    $16, R14
	CMPQ    R14, t+56(FP)
	JLT     tri16tile
	VZEROUPPER
	RET

// The pair kernel: TriGemm's 8-wide products of two heads at once, one
// zmm a row. Lane 2k+h holds head h's column k: B's row (the two heads'
// 8 columns side by side) is permuted into that order as it is loaded,
// A's two values for a (row, p) are adjacent in memory and broadcast as
// one 64-bit pair, and each row is permuted back before it is stored.
// PAIR_ROWSLO and PAIR_ROWSHI are one p step of rows 0–7 and 8–15 of a
// 16-row tile; TRI16_NEXT steps A and B on, as in tri16AVX512.
#define PAIR_ROWSLO \
	VBROADCASTSD (AX), Z19; \
	VFMADD231PS  Z19, Z16, Z0; \
	VBROADCASTSD (AX)(BX*1), Z20; \
	VFMADD231PS  Z20, Z16, Z1; \
	VBROADCASTSD (AX)(BX*2), Z21; \
	VFMADD231PS  Z21, Z16, Z2; \
	VBROADCASTSD (AX)(R13*1), Z22; \
	VFMADD231PS  Z22, Z16, Z3; \
	VBROADCASTSD (CX), Z23; \
	VFMADD231PS  Z23, Z16, Z4; \
	VBROADCASTSD (CX)(BX*1), Z24; \
	VFMADD231PS  Z24, Z16, Z5; \
	VBROADCASTSD (CX)(BX*2), Z25; \
	VFMADD231PS  Z25, Z16, Z6; \
	VBROADCASTSD (CX)(R13*1), Z26; \
	VFMADD231PS  Z26, Z16, Z7; \

#define PAIR_ROWSHI \
	VBROADCASTSD (DX), Z19; \
	VFMADD231PS  Z19, Z16, Z8; \
	VBROADCASTSD (DX)(BX*1), Z20; \
	VFMADD231PS  Z20, Z16, Z9; \
	VBROADCASTSD (DX)(BX*2), Z21; \
	VFMADD231PS  Z21, Z16, Z10; \
	VBROADCASTSD (DX)(R13*1), Z22; \
	VFMADD231PS  Z22, Z16, Z11; \
	VBROADCASTSD (R8), Z23; \
	VFMADD231PS  Z23, Z16, Z12; \
	VBROADCASTSD (R8)(BX*1), Z24; \
	VFMADD231PS  Z24, Z16, Z13; \
	VBROADCASTSD (R8)(BX*2), Z25; \
	VFMADD231PS  Z25, Z16, Z14; \
	VBROADCASTSD (R8)(R13*1), Z26; \
	VFMADD231PS  Z26, Z16, Z15; \

#define PAIR_LOADB \
	VPERMPS (SI), Z17, Z16

#define PAIR_ALL \
	PAIR_LOADB; \
	PAIR_ROWSLO \
	PAIR_ROWSHI \
	TRI16_NEXT

#define PAIR_LO \
	PAIR_LOADB; \
	PAIR_ROWSLO \
	TRI16_NEXT

#define PAIR_HI \
	PAIR_LOADB; \
	PAIR_ROWSHI \
	TRI16_NEXT

// PAIR_STORE permutes row R's lanes back to the heads' column order and
// stores it at DI, then steps DI to the next row.
#define PAIR_STORE(R) \
	VPERMPS R, Z18, R; \
	VMOVUPS R, (DI); \
	ADDQ    R9, DI

// func triPairAVX512(c, a, b *float32, ldc, rsa, csa, ldb, t, upper int)
//
// tri16AVX512 on two 8-wide heads at once (TriGemmPairs): the same 16-row
// tiles and two phases over p, zmm rows of both heads' columns. AX, CX, DX
// and R8 address A's rows 0, 4, 8 and 12 of the tile (R13 = 3·rsa), SI
// B's row; Z0–Z15 are the rows' sums, Z16 B's permuted row, Z17 and Z18
// the permutations in and out, Z19–Z26 the broadcast pairs.
TEXT ·triPairAVX512(SB), NOSPLIT, $0-72
	MOVQ      ldc+24(FP), R9
	SHLQ      $2, R9
	MOVQ      rsa+32(FP), BX
	SHLQ      $2, BX
	MOVQ      csa+40(FP), R10
	SHLQ      $2, R10
	MOVQ      ldb+48(FP), R11
	SHLQ      $2, R11
	LEAQ      (BX)(BX*2), R13
	VMOVDQU32 ·pairIn(SB), Z17
	VMOVDQU32 ·pairOut(SB), Z18
	XORQ      R14, R14

pairtile:
	MOVQ  a+8(FP), AX
	MOVQ  R14, DX
	IMULQ BX, DX
	ADDQ  DX, AX
	MOVQ  b+16(FP), SI
	CMPQ  upper+64(FP), $0
	JEQ   pairptrs
	MOVQ  R14, DX
	IMULQ R10, DX
	ADDQ  DX, AX
	MOVQ  R14, DX
	IMULQ R11, DX
	ADDQ  DX, SI

pairptrs:
	LEAQ (AX)(BX*4), CX
	LEAQ (CX)(BX*4), DX
	LEAQ (DX)(BX*4), R8
	ZERO16Z
	CMPQ upper+64(FP), $0
	JNE  pairup

	// Lower: all rows for p < r0+8, then the last 8 for 8 more.
	LEAQ 8(R14), R12

pairlo1:
	PAIR_ALL
	DECQ R12
	JNZ  pairlo1
	MOVQ $8, R12

pairlo2:
	PAIR_HI
	DECQ R12
	JNZ  pairlo2
	JMP  pairstore

	// Upper: the first 8 rows for p in [r0, r0+8), then all rows to T.
pairup:
	MOVQ $8, R12

pairup1:
	PAIR_LO
	DECQ R12
	JNZ  pairup1
	MOVQ t+56(FP), R12
	SUBQ R14, R12
	SUBQ $8, R12

pairup2:
	PAIR_ALL
	DECQ R12
	JNZ  pairup2

pairstore:
	MOVQ  R14, DI
	IMULQ R9, DI
	ADDQ  c+0(FP), DI
	PAIR_STORE(Z0)
	PAIR_STORE(Z1)
	PAIR_STORE(Z2)
	PAIR_STORE(Z3)
	PAIR_STORE(Z4)
	PAIR_STORE(Z5)
	PAIR_STORE(Z6)
	PAIR_STORE(Z7)
	PAIR_STORE(Z8)
	PAIR_STORE(Z9)
	PAIR_STORE(Z10)
	PAIR_STORE(Z11)
	PAIR_STORE(Z12)
	PAIR_STORE(Z13)
	PAIR_STORE(Z14)
	PAIR_STORE(Z15)
	ADDQ $16, R14
	CMPQ R14, t+56(FP)
	JLT  pairtile
	VZEROUPPER
	RET

// func axpyFMA(y, x *float32, a float32, n int)
// y[i] = fma(a, x[i], y[i]) for i < n, n a positive multiple of 8: one
// VFMADD231PS per element, fma32's bits.
TEXT ·axpyFMA(SB), NOSPLIT, $0-32
	MOVQ         y+0(FP), DI
	MOVQ         x+8(FP), SI
	VBROADCASTSS a+16(FP), Y0
	MOVQ         n+24(FP), CX
	CMPQ         CX, $32
	JLT          axpy8

axpy32:
	VMOVUPS     (DI), Y1
	VMOVUPS     32(DI), Y2
	VMOVUPS     64(DI), Y3
	VMOVUPS     96(DI), Y4
	VFMADD231PS (SI), Y0, Y1
	VFMADD231PS 32(SI), Y0, Y2
	VFMADD231PS 64(SI), Y0, Y3
	VFMADD231PS 96(SI), Y0, Y4
	VMOVUPS     Y1, (DI)
	VMOVUPS     Y2, 32(DI)
	VMOVUPS     Y3, 64(DI)
	VMOVUPS     Y4, 96(DI)
	ADDQ        $128, DI
	ADDQ        $128, SI
	SUBQ        $32, CX
	CMPQ        CX, $32
	JGE         axpy32
	TESTQ       CX, CX
	JZ          axpydone

axpy8:
	VMOVUPS     (DI), Y1
	VFMADD231PS (SI), Y0, Y1
	VMOVUPS     Y1, (DI)
	ADDQ        $32, DI
	ADDQ        $32, SI
	SUBQ        $8, CX
	JNZ         axpy8

axpydone:
	VZEROUPPER
	RET
