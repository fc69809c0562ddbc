//go:build amd64 && !purego

#include "textflag.h"

// LayerNorm row statistics with rows in lanes. Each row's sums run over its
// features j = 0, 1, … in turn, so a vector kernel that keeps one row per
// lane needs columns of 16 rows: the kernels transpose each 16x16 block of
// 16 rows into a scratch buffer in their stack frame, which Go does not
// zero (16·C floats per operand, column j at
// byte 64·j) and then walk the columns, one vector add per feature. The
// operations per lane are those of layerNormStatsGeneric and
// layerNormGradMeansGeneric. AVX512F instructions only.

// TRANSPOSE16 transposes the 16x16 matrix whose rows are Z0…Z15 in place,
// through Z16…Z31: afterwards Zk holds column k. Stage 1 interleaves row
// pairs (ps), stage 2 row quads (pd); then within each 128-bit lane L
// register k (k < 4) holds column 4L+k of rows 0-3, register 4+k of rows
// 4-7 and so on, and two 128-bit shuffles gather the four lanes.
#define TRANSPOSE16 \
	VUNPCKLPS Z1, Z0, Z16; \
	VUNPCKHPS Z1, Z0, Z17; \
	VUNPCKLPS Z3, Z2, Z18; \
	VUNPCKHPS Z3, Z2, Z19; \
	VUNPCKLPS Z5, Z4, Z20; \
	VUNPCKHPS Z5, Z4, Z21; \
	VUNPCKLPS Z7, Z6, Z22; \
	VUNPCKHPS Z7, Z6, Z23; \
	VUNPCKLPS Z9, Z8, Z24; \
	VUNPCKHPS Z9, Z8, Z25; \
	VUNPCKLPS Z11, Z10, Z26; \
	VUNPCKHPS Z11, Z10, Z27; \
	VUNPCKLPS Z13, Z12, Z28; \
	VUNPCKHPS Z13, Z12, Z29; \
	VUNPCKLPS Z15, Z14, Z30; \
	VUNPCKHPS Z15, Z14, Z31; \
	VUNPCKLPD Z18, Z16, Z0; \
	VUNPCKHPD Z18, Z16, Z1; \
	VUNPCKLPD Z19, Z17, Z2; \
	VUNPCKHPD Z19, Z17, Z3; \
	VUNPCKLPD Z22, Z20, Z4; \
	VUNPCKHPD Z22, Z20, Z5; \
	VUNPCKLPD Z23, Z21, Z6; \
	VUNPCKHPD Z23, Z21, Z7; \
	VUNPCKLPD Z26, Z24, Z8; \
	VUNPCKHPD Z26, Z24, Z9; \
	VUNPCKLPD Z27, Z25, Z10; \
	VUNPCKHPD Z27, Z25, Z11; \
	VUNPCKLPD Z30, Z28, Z12; \
	VUNPCKHPD Z30, Z28, Z13; \
	VUNPCKLPD Z31, Z29, Z14; \
	VUNPCKHPD Z31, Z29, Z15; \
	VSHUFF32X4 $0x88, Z4, Z0, Z16; \
	VSHUFF32X4 $0xdd, Z4, Z0, Z20; \
	VSHUFF32X4 $0x88, Z12, Z8, Z24; \
	VSHUFF32X4 $0xdd, Z12, Z8, Z28; \
	VSHUFF32X4 $0x88, Z5, Z1, Z17; \
	VSHUFF32X4 $0xdd, Z5, Z1, Z21; \
	VSHUFF32X4 $0x88, Z13, Z9, Z25; \
	VSHUFF32X4 $0xdd, Z13, Z9, Z29; \
	VSHUFF32X4 $0x88, Z6, Z2, Z18; \
	VSHUFF32X4 $0xdd, Z6, Z2, Z22; \
	VSHUFF32X4 $0x88, Z14, Z10, Z26; \
	VSHUFF32X4 $0xdd, Z14, Z10, Z30; \
	VSHUFF32X4 $0x88, Z7, Z3, Z19; \
	VSHUFF32X4 $0xdd, Z7, Z3, Z23; \
	VSHUFF32X4 $0x88, Z15, Z11, Z27; \
	VSHUFF32X4 $0xdd, Z15, Z11, Z31; \
	VSHUFF32X4 $0x88, Z24, Z16, Z0; \
	VSHUFF32X4 $0x88, Z28, Z20, Z4; \
	VSHUFF32X4 $0xdd, Z24, Z16, Z8; \
	VSHUFF32X4 $0xdd, Z28, Z20, Z12; \
	VSHUFF32X4 $0x88, Z25, Z17, Z1; \
	VSHUFF32X4 $0x88, Z29, Z21, Z5; \
	VSHUFF32X4 $0xdd, Z25, Z17, Z9; \
	VSHUFF32X4 $0xdd, Z29, Z21, Z13; \
	VSHUFF32X4 $0x88, Z26, Z18, Z2; \
	VSHUFF32X4 $0x88, Z30, Z22, Z6; \
	VSHUFF32X4 $0xdd, Z26, Z18, Z10; \
	VSHUFF32X4 $0xdd, Z30, Z22, Z14; \
	VSHUFF32X4 $0x88, Z27, Z19, Z3; \
	VSHUFF32X4 $0x88, Z31, Z23, Z7; \
	VSHUFF32X4 $0xdd, Z27, Z19, Z11; \
	VSHUFF32X4 $0xdd, Z31, Z23, Z15

// LNRSTD sets R = 1/√(float64(V) + eps), rounded to float32, 8 lanes at a
// time (V = v/c, eps in Z29, 1.0 in Z28 as float64); T is scratch. Each
// register is named twice, as ymm and zmm.
#define LNRSTD(VY, VZ, RY, RZ, TY, TZ) \
	VCVTPS2PD     VY, RZ; \
	VADDPD        Z29, RZ, RZ; \
	VSQRTPD       RZ, RZ; \
	VDIVPD        RZ, Z28, RZ; \
	VCVTPD2PS     RZ, RY; \
	VEXTRACTF64X4 $1, VZ, TY; \
	VCVTPS2PD     TY, TZ; \
	VADDPD        Z29, TZ, TZ; \
	VSQRTPD       TZ, TZ; \
	VDIVPD        TZ, Z28, TZ; \
	VCVTPD2PS     TZ, TY; \
	VINSERTF64X4  $1, TY, RZ, RZ

// LOAD16 loads 16 rows of 16 floats at ptr, row stride R11 bytes, into
// Z0–Z15; R13 is scratch.
#define LOAD16(ptr) \
	MOVQ    ptr, R13; \
	VMOVUPS (R13), Z0; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z1; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z2; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z3; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z4; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z5; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z6; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z7; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z8; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z9; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z10; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z11; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z12; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z13; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z14; \
	ADDQ    R11, R13; \
	VMOVUPS (R13), Z15

// TBLOCK transposes one 16x16 block: 16 rows of 16 floats at AX (row
// stride R11 bytes) into 16 columns of 16 at BX (64 bytes apart). R13 is
// scratch.
#define TBLOCK \
	LOAD16(AX); \
	TRANSPOSE16; \
	VMOVUPS Z0, 0(BX); \
	VMOVUPS Z1, 64(BX); \
	VMOVUPS Z2, 128(BX); \
	VMOVUPS Z3, 192(BX); \
	VMOVUPS Z4, 256(BX); \
	VMOVUPS Z5, 320(BX); \
	VMOVUPS Z6, 384(BX); \
	VMOVUPS Z7, 448(BX); \
	VMOVUPS Z8, 512(BX); \
	VMOVUPS Z9, 576(BX); \
	VMOVUPS Z10, 640(BX); \
	VMOVUPS Z11, 704(BX); \
	VMOVUPS Z12, 768(BX); \
	VMOVUPS Z13, 832(BX); \
	VMOVUPS Z14, 896(BX); \
	VMOVUPS Z15, 960(BX)

// func layerNormStatsAVX512(mean, rstd, x *float32, n, c int, eps float64)
// n and c are positive multiples of 16, c at most 128; the scratch (two
// groups of 16·c floats) is the frame.
TEXT ·layerNormStatsAVX512(SB), $16384-48
	MOVQ mean+0(FP), DI
	MOVQ rstd+8(FP), SI
	MOVQ x+16(FP), DX
	LEAQ scratch-16384(SP), R8
	MOVQ n+24(FP), R9
	MOVQ c+32(FP), R10
	MOVQ R10, R11
	SHLQ $2, R11
	MOVQ R10, R14
	SHLQ $6, R14 // bytes of one transposed group

	// Two groups of 16 rows per pass while 32 rows are left: their sum
	// chains run side by side (one chain's adds wait on each other, two
	// chains fill the wait), then one group at a time as below.
rows2:
	CMPQ R9, $32
	JLT  rows
	MOVQ DX, AX
	MOVQ R8, BX
	MOVQ R10, CX

t2a:
	TBLOCK
	ADDQ $1024, BX
	ADDQ $64, AX
	SUBQ $16, CX
	JNZ  t2a
	MOVQ R11, AX
	SHLQ $4, AX
	ADDQ DX, AX
	MOVQ R10, CX

t2b:
	TBLOCK
	ADDQ $1024, BX
	ADDQ $64, AX
	SUBQ $16, CX
	JNZ  t2b

	VPBROADCASTD R10, Z30
	VCVTDQ2PS    Z30, Z30
	VBROADCASTSD eps+40(FP), Z29
	MOVQ         $0x3ff0000000000000, AX
	VPBROADCASTQ AX, Z28

	VPXORD Z0, Z0, Z0
	VPXORD Z4, Z4, Z4
	MOVQ   R8, BX
	MOVQ   R10, CX

sum2:
	VADDPS (BX), Z0, Z0
	VADDPS (BX)(R14*1), Z4, Z4
	ADDQ   $64, BX
	DECQ   CX
	JNZ    sum2
	VDIVPS  Z30, Z0, Z0
	VDIVPS  Z30, Z4, Z4
	VMOVUPS Z0, (DI)
	VMOVUPS Z4, 64(DI)

	VPXORD Z1, Z1, Z1
	VPXORD Z5, Z5, Z5
	MOVQ   R8, BX
	MOVQ   R10, CX

dev2:
	VMOVUPS (BX), Z2
	VMOVUPS (BX)(R14*1), Z6
	VSUBPS  Z0, Z2, Z2
	VSUBPS  Z4, Z6, Z6
	VMULPS  Z2, Z2, Z2
	VMULPS  Z6, Z6, Z6
	VADDPS  Z2, Z1, Z1
	VADDPS  Z6, Z5, Z5
	ADDQ    $64, BX
	DECQ    CX
	JNZ     dev2
	VDIVPS  Z30, Z1, Z1
	VDIVPS  Z30, Z5, Z5
	LNRSTD(Y1, Z1, Y2, Z2, Y3, Z3)
	LNRSTD(Y5, Z5, Y6, Z6, Y7, Z7)
	VMOVUPS Z2, (SI)
	VMOVUPS Z6, 64(SI)

	ADDQ $128, DI
	ADDQ $128, SI
	MOVQ R11, AX
	SHLQ $5, AX
	ADDQ AX, DX
	SUBQ $32, R9
	JMP  rows2

rows:
	TESTQ R9, R9
	JZ    statsdone
	// Transpose the 16 rows at DX, 16 columns at a time, into R8.
	MOVQ DX, AX
	MOVQ R8, BX
	MOVQ R10, CX

tblocks:
	TBLOCK
	ADDQ $1024, BX
	ADDQ $64, AX
	SUBQ $16, CX
	JNZ  tblocks

	// Constants, after the transposes have used every register: c (Z30)
	// in float32, eps (Z29) and 1 (Z28) in float64.
	VPBROADCASTD R10, Z30
	VCVTDQ2PS    Z30, Z30
	VBROADCASTSD eps+40(FP), Z29
	MOVQ         $0x3ff0000000000000, AX
	VPBROADCASTQ AX, Z28

	// Pass 1: s = Σ_j x_j, mean = s/c.
	VPXORD Z0, Z0, Z0
	MOVQ   R8, BX
	MOVQ   R10, CX

sum:
	VADDPS (BX), Z0, Z0
	ADDQ   $64, BX
	DECQ   CX
	JNZ    sum
	VDIVPS  Z30, Z0, Z0
	VMOVUPS Z0, (DI)

	// Pass 2: v = Σ_j (x_j − mean)², then v/c.
	VPXORD Z1, Z1, Z1
	MOVQ   R8, BX
	MOVQ   R10, CX

dev:
	VMOVUPS (BX), Z2
	VSUBPS  Z0, Z2, Z2
	VMULPS  Z2, Z2, Z2
	VADDPS  Z2, Z1, Z1
	ADDQ    $64, BX
	DECQ    CX
	JNZ     dev
	VDIVPS  Z30, Z1, Z1

	LNRSTD(Y1, Z1, Y2, Z2, Y3, Z3)
	VMOVUPS Z2, (SI)

	ADDQ $64, DI
	ADDQ $64, SI
	MOVQ R11, AX
	SHLQ $4, AX
	ADDQ AX, DX
	SUBQ $16, R9
	JNZ  rows

statsdone:
	VZEROUPPER
	RET

// func layerNormGradMeansAVX512(gm, gxm, dy, x, w, mean, rstd *float32, n, c int)
// n and c are positive multiples of 16, c at most 128; the scratch (32·c
// floats: xᵀ, then dyᵀ) is the frame.
TEXT ·layerNormGradMeansAVX512(SB), $16384-72
	MOVQ gm+0(FP), DI
	MOVQ gxm+8(FP), SI
	MOVQ dy+16(FP), DX
	MOVQ x+24(FP), R8
	LEAQ scratch-16384(SP), R12
	MOVQ n+56(FP), R9
	MOVQ c+64(FP), R10
	MOVQ R10, R11
	SHLQ $2, R11
	MOVQ R10, R14
	SHLQ $6, R14 // bytes of one transposed operand

grows:
	// Transpose the 16 rows at R8 (stride R11), 16 columns at a time, into R12.
	MOVQ R8, AX
	MOVQ R12, BX
	MOVQ R10, CX

gxblocks:
	TBLOCK
	ADDQ $1024, BX
	ADDQ $64, AX
	SUBQ $16, CX
	JNZ  gxblocks

	LEAQ (R12)(R14*1), BX

	// Transpose the 16 rows at DX (stride R11), 16 columns at a time, into BX.
	MOVQ DX, AX
	MOVQ R10, CX

gdyblocks:
	TBLOCK
	ADDQ $1024, BX
	ADDQ $64, AX
	SUBQ $16, CX
	JNZ  gdyblocks

	VPBROADCASTD R10, Z30
	VCVTDQ2PS    Z30, Z30
	MOVQ         DI, R13
	SUBQ         gm+0(FP), R13 // byte offset of the row group in mean and rstd
	MOVQ         mean+40(FP), AX
	VMOVUPS      (AX)(R13*1), Z28
	MOVQ         rstd+48(FP), AX
	VMOVUPS      (AX)(R13*1), Z29

	// One pass: x̂ = (x − mean)·rstd, g = dy·w, gs += g, gx += g·x̂.
	VPXORD Z0, Z0, Z0
	VPXORD Z1, Z1, Z1
	MOVQ   w+32(FP), BX
	MOVQ   R12, AX
	MOVQ   R10, CX

gpass:
	VMOVUPS      (AX), Z2
	VSUBPS       Z28, Z2, Z2
	VMULPS       Z29, Z2, Z2
	VBROADCASTSS (BX), Z3
	VMULPS       (AX)(R14*1), Z3, Z3
	VADDPS       Z3, Z0, Z0
	VMULPS       Z2, Z3, Z3
	VADDPS       Z3, Z1, Z1
	ADDQ         $64, AX
	ADDQ         $4, BX
	DECQ         CX
	JNZ          gpass
	VDIVPS       Z30, Z0, Z0
	VDIVPS       Z30, Z1, Z1
	VMOVUPS      Z0, (DI)
	VMOVUPS      Z1, (SI)

	ADDQ $64, DI
	ADDQ $64, SI
	MOVQ R11, AX
	SHLQ $4, AX
	ADDQ AX, DX
	ADDQ AX, R8
	SUBQ $16, R9
	JNZ  grows
	VZEROUPPER
	RET

// Row sums of the gate: Σ_j x_j² (rowSumSqAVX512) and Σ_j x_j·y_j
// (rowDotAVX512), each over a row's features in increasing j, rows in
// lanes as above.

// func rowSumSqAVX512(dst, x *float32, n, c int)
// n and c are positive multiples of 16, c at most 128; the scratch (16·c
// floats) is the frame.
TEXT ·rowSumSqAVX512(SB), $8192-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), DX
	LEAQ scratch-8192(SP), R8
	MOVQ n+16(FP), R9
	MOVQ c+24(FP), R10
	MOVQ R10, R11
	SHLQ $2, R11

sqrows:
	MOVQ DX, AX
	MOVQ R8, BX
	MOVQ R10, CX

sqblocks:
	TBLOCK
	ADDQ $1024, BX
	ADDQ $64, AX
	SUBQ $16, CX
	JNZ  sqblocks

	VPXORD Z0, Z0, Z0
	MOVQ   R8, BX
	MOVQ   R10, CX

sqsum:
	VMOVUPS (BX), Z1
	VMULPS  Z1, Z1, Z1
	VADDPS  Z1, Z0, Z0
	ADDQ    $64, BX
	DECQ    CX
	JNZ     sqsum
	VMOVUPS Z0, (DI)

	ADDQ $64, DI
	MOVQ R11, AX
	SHLQ $4, AX
	ADDQ AX, DX
	SUBQ $16, R9
	JNZ  sqrows
	VZEROUPPER
	RET

// func rowDotAVX512(dst, x, y *float32, n, c int)
// n and c are positive multiples of 16, c at most 128; the scratch (32·c
// floats) is the frame.
TEXT ·rowDotAVX512(SB), $16384-40
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), DX
	MOVQ y+16(FP), R8
	LEAQ scratch-16384(SP), R12
	MOVQ n+24(FP), R9
	MOVQ c+32(FP), R10
	MOVQ R10, R11
	SHLQ $2, R11
	MOVQ R10, R14
	SHLQ $6, R14

dotrows:
	MOVQ DX, AX
	MOVQ R12, BX
	MOVQ R10, CX

dxblocks:
	TBLOCK
	ADDQ $1024, BX
	ADDQ $64, AX
	SUBQ $16, CX
	JNZ  dxblocks
	LEAQ (R12)(R14*1), BX
	MOVQ R8, AX
	MOVQ R10, CX

dyblocks:
	TBLOCK
	ADDQ $1024, BX
	ADDQ $64, AX
	SUBQ $16, CX
	JNZ  dyblocks

	VPXORD Z0, Z0, Z0
	MOVQ   R12, AX
	MOVQ   R10, CX

dotsum:
	VMOVUPS (AX), Z1
	VMULPS  (AX)(R14*1), Z1, Z1
	VADDPS  Z1, Z0, Z0
	ADDQ    $64, AX
	DECQ    CX
	JNZ     dotsum
	VMOVUPS Z0, (DI)

	ADDQ $64, DI
	MOVQ R11, AX
	SHLQ $4, AX
	ADDQ AX, DX
	ADDQ AX, R8
	SUBQ $16, R9
	JNZ  dotrows
	VZEROUPPER
	RET

// GATEGAIN sets Z0 = 1/(1 + beta·s) from the float32 at S, all lanes; Z30
// holds beta, Z31 ones.
#define GATEGAIN(S) \
	VBROADCASTSS S, Z0; \
	VMULPS       Z30, Z0, Z0; \
	VADDPS       Z31, Z0, Z0; \
	VDIVPS       Z0, Z31, Z0

// func gateScaleAVX512(y, a, s *float32, n, c int, beta float32)
// y[i,·] = a[i,·]/(1 + beta·s[i]) as g = 1/(1 + beta·s[i]), y = g·a;
// c is a positive multiple of 16, n ≥ 1.
TEXT ·gateScaleAVX512(SB), NOSPLIT, $0-44
	MOVQ         y+0(FP), DI
	MOVQ         a+8(FP), SI
	MOVQ         s+16(FP), DX
	MOVQ         n+24(FP), R9
	MOVQ         c+32(FP), R10
	VBROADCASTSS beta+40(FP), Z30
	MOVL         $0x3f800000, AX
	VPBROADCASTD AX, Z31

gsrow:
	GATEGAIN((DX))
	MOVQ R10, CX

gscol:
	VMULPS  (SI), Z0, Z1
	VMOVUPS Z1, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	SUBQ    $16, CX
	JNZ     gscol
	ADDQ    $4, DX
	DECQ    R9
	JNZ     gsrow
	VZEROUPPER
	RET

// func gateGradApplyAVX512(da, dy, a, s, u *float32, n, c int, beta, cf float32)
// da[i,·] += dy·g + k·a with g = 1/(1 + beta·s[i]) and k = (2·u[i])/cf;
// c is a positive multiple of 16, n ≥ 1.
TEXT ·gateGradApplyAVX512(SB), NOSPLIT, $0-64
	MOVQ         da+0(FP), DI
	MOVQ         dy+8(FP), SI
	MOVQ         a+16(FP), DX
	MOVQ         s+24(FP), R8
	MOVQ         u+32(FP), R12
	MOVQ         n+40(FP), R9
	MOVQ         c+48(FP), R10
	VBROADCASTSS beta+56(FP), Z30
	VBROADCASTSS cf+60(FP), Z29
	MOVL         $0x3f800000, AX
	VPBROADCASTD AX, Z31

ggrow:
	GATEGAIN((R8))
	VBROADCASTSS (R12), Z2
	VADDPS       Z2, Z2, Z2
	VDIVPS       Z29, Z2, Z2
	MOVQ         R10, CX

ggcol:
	VMULPS  (SI), Z0, Z3
	VMULPS  (DX), Z2, Z4
	VADDPS  Z4, Z3, Z3
	VADDPS  (DI), Z3, Z3
	VMOVUPS Z3, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DX
	ADDQ    $64, DI
	SUBQ    $16, CX
	JNZ     ggcol
	ADDQ    $4, R8
	ADDQ    $4, R12
	DECQ    R9
	JNZ     ggrow
	VZEROUPPER
	RET

// func transpose16AVX512(dst, src *float32, r, c, ldd int)
//
// Block (i0, j0) of src: 16 rows of 16 floats at src + (i0·C + j0)·4, row
// stride C·4 (R11), into Z0–Z15; TRANSPOSE16 leaves column j0+k in Zk,
// which is row j0+k of dst, stored at dst + ((j0+k)·ldd + i0)·4, row
// stride ldd·4 (R12). DX walks the block's source, BX its destination; R8 counts
// the blocks of a block row, R9 the block rows.
TEXT ·transpose16AVX512(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ r+16(FP), R9
	MOVQ c+24(FP), R10
	MOVQ R10, R11
	SHLQ $2, R11
	MOVQ ldd+32(FP), R12
	SHLQ $2, R12
	SHRQ $4, R9

tbrow:
	MOVQ SI, DX
	MOVQ DI, BX
	MOVQ R10, R8
	SHRQ $4, R8

tbcol:
	LOAD16(DX)
	TRANSPOSE16
	MOVQ    BX, R13
	VMOVUPS Z0, (R13)
	ADDQ    R12, R13
	VMOVUPS Z1, (R13)
	ADDQ    R12, R13
	VMOVUPS Z2, (R13)
	ADDQ    R12, R13
	VMOVUPS Z3, (R13)
	ADDQ    R12, R13
	VMOVUPS Z4, (R13)
	ADDQ    R12, R13
	VMOVUPS Z5, (R13)
	ADDQ    R12, R13
	VMOVUPS Z6, (R13)
	ADDQ    R12, R13
	VMOVUPS Z7, (R13)
	ADDQ    R12, R13
	VMOVUPS Z8, (R13)
	ADDQ    R12, R13
	VMOVUPS Z9, (R13)
	ADDQ    R12, R13
	VMOVUPS Z10, (R13)
	ADDQ    R12, R13
	VMOVUPS Z11, (R13)
	ADDQ    R12, R13
	VMOVUPS Z12, (R13)
	ADDQ    R12, R13
	VMOVUPS Z13, (R13)
	ADDQ    R12, R13
	VMOVUPS Z14, (R13)
	ADDQ    R12, R13
	VMOVUPS Z15, (R13)
	ADDQ    $64, DX
	MOVQ    R12, AX
	SHLQ    $4, AX
	ADDQ    AX, BX
	DECQ    R8
	JNZ     tbcol
	MOVQ    R11, AX
	SHLQ    $4, AX
	ADDQ    AX, SI
	ADDQ    $64, DI
	DECQ    R9
	JNZ     tbrow
	VZEROUPPER
	RET
