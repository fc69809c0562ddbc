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

// GELUBOTH sets P = gelu(X) and G = gelu'(X) from one exp; X2, M, N, T, S
// and A are scratch. The ops are those of GELU and GELUGRAD.
#define GELUBOTH(X, X2, M, N, T, S, A, G, P) \
	VMULPS  X, X, X2; \
	VMULPS  X, X2, M; \
	VMULPS  K_C, M, M; \
	VADDPS  X, M, M; \
	VMULPS  K_K, M, M; \
	EXP(M, N, T, G); \
	VADDPS  K_ONE, G, S; \
	VDIVPS  S, X, P; \
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

// EXP3 is EXP on three independent vectors, op by op interleaved: one EXP
// is a chain of dependent ops too long for the out-of-order window to
// overlap with the next, so the kernels interleave by hand. It and the
// other AVX-512-only macros (EXP2, GELUBOTH4) form n and 2^n with two
// instructions instead of five, with EXP's bits: VRNDSCALEPS $0 rounds
// to the nearest even integer as VCVTPS2DQ does (|n| < 2^31, so the
// round trip through int32 is exact), and VSCALEFPS P·2^n is the
// correctly rounded product, as VMULPS by the exact power 2^n is (n in
// [-126, 127] after the clamps, so the power is a normal float32). N
// holds n as a float; T is free after the reduction.
#define EXP3(Xa, Na, Ta, Pa, Xb, Nb, Tb, Pb, Xc, Nc, Tc, Pc) \
	VMAXPS    K_LO, Xa, Xa; \
	VMAXPS    K_LO, Xb, Xb; \
	VMAXPS    K_LO, Xc, Xc; \
	VMINPS    K_HI, Xa, Xa; \
	VMINPS    K_HI, Xb, Xb; \
	VMINPS    K_HI, Xc, Xc; \
	VMULPS    K_LOG2E, Xa, Ta; \
	VMULPS    K_LOG2E, Xb, Tb; \
	VMULPS    K_LOG2E, Xc, Tc; \
	VRNDSCALEPS $0, Ta, Na; \
	VRNDSCALEPS $0, Tb, Nb; \
	VRNDSCALEPS $0, Tc, Nc; \
	VMULPS    K_C1, Na, Pa; \
	VMULPS    K_C1, Nb, Pb; \
	VMULPS    K_C1, Nc, Pc; \
	VSUBPS    Pa, Xa, Xa; \
	VSUBPS    Pb, Xb, Xb; \
	VSUBPS    Pc, Xc, Xc; \
	VMULPS    K_C2, Na, Pa; \
	VMULPS    K_C2, Nb, Pb; \
	VMULPS    K_C2, Nc, Pc; \
	VSUBPS    Pa, Xa, Xa; \
	VSUBPS    Pb, Xb, Xb; \
	VSUBPS    Pc, Xc, Xc; \
	VMULPS    K_P0, Xa, Pa; \
	VMULPS    K_P0, Xb, Pb; \
	VMULPS    K_P0, Xc, Pc; \
	VADDPS    K_P1, Pa, Pa; \
	VADDPS    K_P1, Pb, Pb; \
	VADDPS    K_P1, Pc, Pc; \
	VMULPS    Xa, Pa, Pa; \
	VMULPS    Xb, Pb, Pb; \
	VMULPS    Xc, Pc, Pc; \
	VADDPS    K_P2, Pa, Pa; \
	VADDPS    K_P2, Pb, Pb; \
	VADDPS    K_P2, Pc, Pc; \
	VMULPS    Xa, Pa, Pa; \
	VMULPS    Xb, Pb, Pb; \
	VMULPS    Xc, Pc, Pc; \
	VADDPS    K_P3, Pa, Pa; \
	VADDPS    K_P3, Pb, Pb; \
	VADDPS    K_P3, Pc, Pc; \
	VMULPS    Xa, Pa, Pa; \
	VMULPS    Xb, Pb, Pb; \
	VMULPS    Xc, Pc, Pc; \
	VADDPS    K_P4, Pa, Pa; \
	VADDPS    K_P4, Pb, Pb; \
	VADDPS    K_P4, Pc, Pc; \
	VMULPS    Xa, Pa, Pa; \
	VMULPS    Xb, Pb, Pb; \
	VMULPS    Xc, Pc, Pc; \
	VADDPS    K_P5, Pa, Pa; \
	VADDPS    K_P5, Pb, Pb; \
	VADDPS    K_P5, Pc, Pc; \
	VMULPS    Xa, Xa, Ta; \
	VMULPS    Xb, Xb, Tb; \
	VMULPS    Xc, Xc, Tc; \
	VMULPS    Ta, Pa, Pa; \
	VMULPS    Tb, Pb, Pb; \
	VMULPS    Tc, Pc, Pc; \
	VADDPS    Xa, Pa, Pa; \
	VADDPS    Xb, Pb, Pb; \
	VADDPS    Xc, Pc, Pc; \
	VADDPS    K_ONE, Pa, Pa; \
	VADDPS    K_ONE, Pb, Pb; \
	VADDPS    K_ONE, Pc, Pc; \
	VSCALEFPS Na, Pa, Pa; \
	VSCALEFPS Nb, Pb, Pb; \
	VSCALEFPS Nc, Pc, Pc

// EXP2 is EXP3 for two vectors.
#define EXP2(Xa, Na, Ta, Pa, Xb, Nb, Tb, Pb) \
	VMAXPS    K_LO, Xa, Xa; \
	VMAXPS    K_LO, Xb, Xb; \
	VMINPS    K_HI, Xa, Xa; \
	VMINPS    K_HI, Xb, Xb; \
	VMULPS    K_LOG2E, Xa, Ta; \
	VMULPS    K_LOG2E, Xb, Tb; \
	VRNDSCALEPS $0, Ta, Na; \
	VRNDSCALEPS $0, Tb, Nb; \
	VMULPS    K_C1, Na, Pa; \
	VMULPS    K_C1, Nb, Pb; \
	VSUBPS    Pa, Xa, Xa; \
	VSUBPS    Pb, Xb, Xb; \
	VMULPS    K_C2, Na, Pa; \
	VMULPS    K_C2, Nb, Pb; \
	VSUBPS    Pa, Xa, Xa; \
	VSUBPS    Pb, Xb, Xb; \
	VMULPS    K_P0, Xa, Pa; \
	VMULPS    K_P0, Xb, Pb; \
	VADDPS    K_P1, Pa, Pa; \
	VADDPS    K_P1, Pb, Pb; \
	VMULPS    Xa, Pa, Pa; \
	VMULPS    Xb, Pb, Pb; \
	VADDPS    K_P2, Pa, Pa; \
	VADDPS    K_P2, Pb, Pb; \
	VMULPS    Xa, Pa, Pa; \
	VMULPS    Xb, Pb, Pb; \
	VADDPS    K_P3, Pa, Pa; \
	VADDPS    K_P3, Pb, Pb; \
	VMULPS    Xa, Pa, Pa; \
	VMULPS    Xb, Pb, Pb; \
	VADDPS    K_P4, Pa, Pa; \
	VADDPS    K_P4, Pb, Pb; \
	VMULPS    Xa, Pa, Pa; \
	VMULPS    Xb, Pb, Pb; \
	VADDPS    K_P5, Pa, Pa; \
	VADDPS    K_P5, Pb, Pb; \
	VMULPS    Xa, Xa, Ta; \
	VMULPS    Xb, Xb, Tb; \
	VMULPS    Ta, Pa, Pa; \
	VMULPS    Tb, Pb, Pb; \
	VADDPS    Xa, Pa, Pa; \
	VADDPS    Xb, Pb, Pb; \
	VADDPS    K_ONE, Pa, Pa; \
	VADDPS    K_ONE, Pb, Pb; \
	VSCALEFPS Na, Pa, Pa; \
	VSCALEFPS Nb, Pb, Pb

// GELUBOTH2 is GELUBOTH on two vectors, interleaved like EXP3; it needs
// K_ONE in a register (AVX-512 only), which frees GELUBOTH's A (1/S is
// K_ONE/S directly, and M, dead after EXP, holds A's values). Each vector
// sees GELUBOTH's ops (n and 2^n as in EXP3).
#define GELUBOTH2(Xa, X2a, Ma, Na, Ta, Sa, Ga, Pa, Xb, X2b, Mb, Nb, Tb, Sb, Gb, Pb) \
	VMULPS    Xa, Xa, X2a; \
	VMULPS    Xb, Xb, X2b; \
	VMULPS    Xa, X2a, Ma; \
	VMULPS    Xb, X2b, Mb; \
	VMULPS    K_C, Ma, Ma; \
	VMULPS    K_C, Mb, Mb; \
	VADDPS    Xa, Ma, Ma; \
	VADDPS    Xb, Mb, Mb; \
	VMULPS    K_K, Ma, Ma; \
	VMULPS    K_K, Mb, Mb; \
	EXP2(Ma, Na, Ta, Ga, Mb, Nb, Tb, Gb); \
	VADDPS    K_ONE, Ga, Sa; \
	VADDPS    K_ONE, Gb, Sb; \
	VDIVPS    Sa, Xa, Pa; \
	VDIVPS    Sb, Xb, Pb; \
	VDIVPS    Sa, K_ONE, Sa; \
	VDIVPS    Sb, K_ONE, Sb; \
	VMULPS    K_C3, X2a, Ma; \
	VMULPS    K_C3, X2b, Mb; \
	VADDPS    K_ONE, Ma, Ma; \
	VADDPS    K_ONE, Mb, Mb; \
	VMULPS    K_K2, Ma, Ma; \
	VMULPS    K_K2, Mb, Mb; \
	VMULPS    Sa, Ga, Ga; \
	VMULPS    Sb, Gb, Gb; \
	VMULPS    Sa, Ga, Ga; \
	VMULPS    Sb, Gb, Gb; \
	VMULPS    Xa, Ga, Ga; \
	VMULPS    Xb, Gb, Gb; \
	VMULPS    Ma, Ga, Ga; \
	VMULPS    Mb, Gb, Gb; \
	VADDPS    Sa, Ga, Ga; \
	VADDPS    Sb, Gb, Gb

// M_* are the constants as memory operands for embedded broadcast
// ({1to16} of a ·consts row), which leaves all 32 registers to data.
#define M_LO ·consts+0(SB)
#define M_HI ·consts+32(SB)
#define M_LOG2E ·consts+64(SB)
#define M_C1 ·consts+96(SB)
#define M_C2 ·consts+128(SB)
#define M_P0 ·consts+160(SB)
#define M_P1 ·consts+192(SB)
#define M_P2 ·consts+224(SB)
#define M_P3 ·consts+256(SB)
#define M_P4 ·consts+288(SB)
#define M_P5 ·consts+320(SB)
#define M_ONE ·consts+352(SB)
#define M_C ·consts+384(SB)
#define M_K ·consts+416(SB)
#define M_C3 ·consts+448(SB)
#define M_K2 ·consts+480(SB)

// GELUBOTH4 is GELUBOTH2 on four vectors, the constants from memory
// (M_*) except ONE, a register holding 1 (the dividend of 1/S), and P in
// T's register (T is dead after EXP): seven registers per vector. One
// vector's GELUBOTH is a chain of about 45 dependent ops; four in step
// keep the FP pipes busy where two leave them waiting. Each vector sees
// GELUBOTH's ops (n and 2^n as in EXP3).
#define GELUBOTH4(Xa, X2a, Ma, Na, Ta, Sa, Ga, Xb, X2b, Mb, Nb, Tb, Sb, Gb, Xc, X2c, Mc, Nc, Tc, Sc, Gc, Xd, X2d, Md, Nd, Td, Sd, Gd, ONE) \
	VMULPS    Xa, Xa, X2a; \
	VMULPS    Xb, Xb, X2b; \
	VMULPS    Xc, Xc, X2c; \
	VMULPS    Xd, Xd, X2d; \
	VMULPS    Xa, X2a, Ma; \
	VMULPS    Xb, X2b, Mb; \
	VMULPS    Xc, X2c, Mc; \
	VMULPS    Xd, X2d, Md; \
	VMULPS.BCST M_C, Ma, Ma; \
	VMULPS.BCST M_C, Mb, Mb; \
	VMULPS.BCST M_C, Mc, Mc; \
	VMULPS.BCST M_C, Md, Md; \
	VADDPS    Xa, Ma, Ma; \
	VADDPS    Xb, Mb, Mb; \
	VADDPS    Xc, Mc, Mc; \
	VADDPS    Xd, Md, Md; \
	VMULPS.BCST M_K, Ma, Ma; \
	VMULPS.BCST M_K, Mb, Mb; \
	VMULPS.BCST M_K, Mc, Mc; \
	VMULPS.BCST M_K, Md, Md; \
	VMAXPS.BCST M_LO, Ma, Ma; \
	VMAXPS.BCST M_LO, Mb, Mb; \
	VMAXPS.BCST M_LO, Mc, Mc; \
	VMAXPS.BCST M_LO, Md, Md; \
	VMINPS.BCST M_HI, Ma, Ma; \
	VMINPS.BCST M_HI, Mb, Mb; \
	VMINPS.BCST M_HI, Mc, Mc; \
	VMINPS.BCST M_HI, Md, Md; \
	VMULPS.BCST M_LOG2E, Ma, Ta; \
	VMULPS.BCST M_LOG2E, Mb, Tb; \
	VMULPS.BCST M_LOG2E, Mc, Tc; \
	VMULPS.BCST M_LOG2E, Md, Td; \
	VRNDSCALEPS $0, Ta, Na; \
	VRNDSCALEPS $0, Tb, Nb; \
	VRNDSCALEPS $0, Tc, Nc; \
	VRNDSCALEPS $0, Td, Nd; \
	VMULPS.BCST M_C1, Na, Ga; \
	VMULPS.BCST M_C1, Nb, Gb; \
	VMULPS.BCST M_C1, Nc, Gc; \
	VMULPS.BCST M_C1, Nd, Gd; \
	VSUBPS    Ga, Ma, Ma; \
	VSUBPS    Gb, Mb, Mb; \
	VSUBPS    Gc, Mc, Mc; \
	VSUBPS    Gd, Md, Md; \
	VMULPS.BCST M_C2, Na, Ga; \
	VMULPS.BCST M_C2, Nb, Gb; \
	VMULPS.BCST M_C2, Nc, Gc; \
	VMULPS.BCST M_C2, Nd, Gd; \
	VSUBPS    Ga, Ma, Ma; \
	VSUBPS    Gb, Mb, Mb; \
	VSUBPS    Gc, Mc, Mc; \
	VSUBPS    Gd, Md, Md; \
	VMULPS.BCST M_P0, Ma, Ga; \
	VMULPS.BCST M_P0, Mb, Gb; \
	VMULPS.BCST M_P0, Mc, Gc; \
	VMULPS.BCST M_P0, Md, Gd; \
	VADDPS.BCST M_P1, Ga, Ga; \
	VADDPS.BCST M_P1, Gb, Gb; \
	VADDPS.BCST M_P1, Gc, Gc; \
	VADDPS.BCST M_P1, Gd, Gd; \
	VMULPS    Ma, Ga, Ga; \
	VMULPS    Mb, Gb, Gb; \
	VMULPS    Mc, Gc, Gc; \
	VMULPS    Md, Gd, Gd; \
	VADDPS.BCST M_P2, Ga, Ga; \
	VADDPS.BCST M_P2, Gb, Gb; \
	VADDPS.BCST M_P2, Gc, Gc; \
	VADDPS.BCST M_P2, Gd, Gd; \
	VMULPS    Ma, Ga, Ga; \
	VMULPS    Mb, Gb, Gb; \
	VMULPS    Mc, Gc, Gc; \
	VMULPS    Md, Gd, Gd; \
	VADDPS.BCST M_P3, Ga, Ga; \
	VADDPS.BCST M_P3, Gb, Gb; \
	VADDPS.BCST M_P3, Gc, Gc; \
	VADDPS.BCST M_P3, Gd, Gd; \
	VMULPS    Ma, Ga, Ga; \
	VMULPS    Mb, Gb, Gb; \
	VMULPS    Mc, Gc, Gc; \
	VMULPS    Md, Gd, Gd; \
	VADDPS.BCST M_P4, Ga, Ga; \
	VADDPS.BCST M_P4, Gb, Gb; \
	VADDPS.BCST M_P4, Gc, Gc; \
	VADDPS.BCST M_P4, Gd, Gd; \
	VMULPS    Ma, Ga, Ga; \
	VMULPS    Mb, Gb, Gb; \
	VMULPS    Mc, Gc, Gc; \
	VMULPS    Md, Gd, Gd; \
	VADDPS.BCST M_P5, Ga, Ga; \
	VADDPS.BCST M_P5, Gb, Gb; \
	VADDPS.BCST M_P5, Gc, Gc; \
	VADDPS.BCST M_P5, Gd, Gd; \
	VMULPS    Ma, Ma, Ta; \
	VMULPS    Mb, Mb, Tb; \
	VMULPS    Mc, Mc, Tc; \
	VMULPS    Md, Md, Td; \
	VMULPS    Ta, Ga, Ga; \
	VMULPS    Tb, Gb, Gb; \
	VMULPS    Tc, Gc, Gc; \
	VMULPS    Td, Gd, Gd; \
	VADDPS    Ma, Ga, Ga; \
	VADDPS    Mb, Gb, Gb; \
	VADDPS    Mc, Gc, Gc; \
	VADDPS    Md, Gd, Gd; \
	VADDPS.BCST M_ONE, Ga, Ga; \
	VADDPS.BCST M_ONE, Gb, Gb; \
	VADDPS.BCST M_ONE, Gc, Gc; \
	VADDPS.BCST M_ONE, Gd, Gd; \
	VSCALEFPS Na, Ga, Ga; \
	VSCALEFPS Nb, Gb, Gb; \
	VSCALEFPS Nc, Gc, Gc; \
	VSCALEFPS Nd, Gd, Gd; \
	VADDPS.BCST M_ONE, Ga, Sa; \
	VADDPS.BCST M_ONE, Gb, Sb; \
	VADDPS.BCST M_ONE, Gc, Sc; \
	VADDPS.BCST M_ONE, Gd, Sd; \
	VDIVPS    Sa, Xa, Ta; \
	VDIVPS    Sb, Xb, Tb; \
	VDIVPS    Sc, Xc, Tc; \
	VDIVPS    Sd, Xd, Td; \
	VDIVPS    Sa, ONE, Sa; \
	VDIVPS    Sb, ONE, Sb; \
	VDIVPS    Sc, ONE, Sc; \
	VDIVPS    Sd, ONE, Sd; \
	VMULPS.BCST M_C3, X2a, Ma; \
	VMULPS.BCST M_C3, X2b, Mb; \
	VMULPS.BCST M_C3, X2c, Mc; \
	VMULPS.BCST M_C3, X2d, Md; \
	VADDPS.BCST M_ONE, Ma, Ma; \
	VADDPS.BCST M_ONE, Mb, Mb; \
	VADDPS.BCST M_ONE, Mc, Mc; \
	VADDPS.BCST M_ONE, Md, Md; \
	VMULPS.BCST M_K2, Ma, Ma; \
	VMULPS.BCST M_K2, Mb, Mb; \
	VMULPS.BCST M_K2, Mc, Mc; \
	VMULPS.BCST M_K2, Md, Md; \
	VMULPS    Sa, Ga, Ga; \
	VMULPS    Sb, Gb, Gb; \
	VMULPS    Sc, Gc, Gc; \
	VMULPS    Sd, Gd, Gd; \
	VMULPS    Sa, Ga, Ga; \
	VMULPS    Sb, Gb, Gb; \
	VMULPS    Sc, Gc, Gc; \
	VMULPS    Sd, Gd, Gd; \
	VMULPS    Xa, Ga, Ga; \
	VMULPS    Xb, Gb, Gb; \
	VMULPS    Xc, Gc, Gc; \
	VMULPS    Xd, Gd, Gd; \
	VMULPS    Ma, Ga, Ga; \
	VMULPS    Mb, Gb, Gb; \
	VMULPS    Mc, Gc, Gc; \
	VMULPS    Md, Gd, Gd; \
	VADDPS    Sa, Ga, Ga; \
	VADDPS    Sb, Gb, Gb; \
	VADDPS    Sc, Gc, Gc; \
	VADDPS    Sd, Gd, Gd

// ADAM updates one vector of parameters at (DI), gradients at (SI), first
// moments at (DX) and second moments at (R8), the coefficients of AdamCoef
// in B1, B2, OB1, OB2, C1, C2, LR and EPS; T0…T5 are scratch. The op
// sequence is adamGeneric's.
#define ADAM(B1, B2, OB1, OB2, C1, C2, LR, EPS, T0, T1, T2, T3, T4, T5) \
	VMOVUPS (SI), T0; \
	VMULPS  (DX), B1, T1; \
	VMULPS  T0, OB1, T2; \
	VADDPS  T2, T1, T1; \
	VMOVUPS T1, (DX); \
	VMULPS  (R8), B2, T3; \
	VMULPS  T0, OB2, T4; \
	VMULPS  T0, T4, T4; \
	VADDPS  T4, T3, T3; \
	VMOVUPS T3, (R8); \
	VDIVPS  C1, T1, T1; \
	VMULPS  LR, T1, T1; \
	VDIVPS  C2, T3, T3; \
	VSQRTPS T3, T3; \
	VADDPS  EPS, T3, T3; \
	VDIVPS  T3, T1, T1; \
	VMOVUPS (DI), T5; \
	VSUBPS  T1, T5, T5; \
	VMOVUPS T5, (DI)

#define ADAM_ARGS \
	MOVQ p+0(FP), DI; \
	MOVQ grad+8(FP), SI; \
	MOVQ m+16(FP), DX; \
	MOVQ v+24(FP), R8; \
	MOVQ n+32(FP), CX; \
	MOVQ k+40(FP), AX

#define ADAM_STEP(BYTES, LANES) \
	ADDQ $BYTES, DI; \
	ADDQ $BYTES, SI; \
	ADDQ $BYTES, DX; \
	ADDQ $BYTES, R8; \
	SUBQ $LANES, CX

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

// func geluWithGradAVX512(dst, grad, src *float32, n int)
TEXT ·geluWithGradAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ grad+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX

	// Four vectors per pass while 64 lanes are left (GELUBOTH4), then
	// two, then one (n is a positive multiple of 16).
	CMPQ         CX, $64
	JLT          tail
	VBROADCASTSS ·consts+352(SB), Z31

loop4:
	VMOVUPS   (SI), Z0
	VMOVUPS   64(SI), Z7
	VMOVUPS   128(SI), Z14
	VMOVUPS   192(SI), Z21
	GELUBOTH4(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15, Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z31)
	VMOVUPS   Z4, (DI)
	VMOVUPS   Z11, 64(DI)
	VMOVUPS   Z18, 128(DI)
	VMOVUPS   Z25, 192(DI)
	VMOVUPS   Z6, (DX)
	VMOVUPS   Z13, 64(DX)
	VMOVUPS   Z20, 128(DX)
	VMOVUPS   Z27, 192(DX)
	STEP(256, 64)
	CMPQ      CX, $64
	JGE       loop4

tail:
	TESTQ CX, CX
	JZ    done
	BROADCAST_CONSTS
	CMPQ  CX, $32
	JLT   one

loop:
	VMOVUPS   (SI), Z0
	VMOVUPS   64(SI), Z8
	GELUBOTH2(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15)
	VMOVUPS   Z7, (DI)
	VMOVUPS   Z15, 64(DI)
	VMOVUPS   Z6, (DX)
	VMOVUPS   Z14, 64(DX)
	STEP(128, 32)
	CMPQ      CX, $32
	JGE       loop

one:
	TESTQ   CX, CX
	JZ      done
	VMOVUPS (SI), Z0
	GELUBOTH(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8)
	VMOVUPS Z8, (DI)
	VMOVUPS Z7, (DX)

done:
	VZEROUPPER
	RET

// func addAVX512(dst, x, y *float32, n int)
TEXT ·addAVX512(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX

loop:
	VMOVUPS (SI), Z0
	VADDPS  (DX), Z0, Z0
	VMOVUPS Z0, (DI)
	STEP(64, 16)
	JNZ     loop
	VZEROUPPER
	RET

// func adamAVX512(p, grad, m, v *float32, n int, k *AdamCoef)
TEXT ·adamAVX512(SB), NOSPLIT, $0-48
	ADAM_ARGS
	VBROADCASTSS 0(AX), Z16
	VBROADCASTSS 4(AX), Z17
	VBROADCASTSS 8(AX), Z18
	VBROADCASTSS 12(AX), Z19
	VBROADCASTSS 16(AX), Z20
	VBROADCASTSS 20(AX), Z21
	VBROADCASTSS 24(AX), Z22
	VBROADCASTSS 28(AX), Z23

loop:
	ADAM(Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z0, Z1, Z2, Z3, Z4, Z5)
	ADAM_STEP(64, 16)
	JNZ loop
	VZEROUPPER
	RET

// The causal softmax kernels work on 16 query columns (lanes) at a time,
// c0…c0+15, of a (T,T) block with row stride T: K1 masks the lanes < T,
// K3 the lanes visible from row j (lane index > j−1). Rows j ≥ c0+16 see
// no lane of the chunk and are only zeroed. Z13 holds the lane indices,
// Z14 the broadcast j−1, Z15 ones, Z7 sixteens, Z8 T. The forward kernel's
// three-row pass uses K3–K5 and Z0–Z6, Z9 and Z28–Z31 (GELU's constants,
// which the softmax does not need) as scratch.

// SOFTMAX_CHUNK_SETUP sets K1, R11 = min(T, c0+16) and SI = &st[0, c0].
#define SOFTMAX_CHUNK_SETUP(BASE) \
	VPCMPGTD Z13, Z8, K1; \
	LEAQ     16(R10), R11; \
	CMPQ     R11, R8; \
	CMOVQGT  R8, R11; \
	LEAQ     (BASE)(R10*4), SI

// ROWMASK sets K3 = lanes visible from the current row and steps j.
#define ROWMASK \
	VPCMPGTD Z14, Z13, K3; \
	KANDW    K1, K3, K3; \
	VPADDD   Z15, Z14, Z14

// ROWMASKK is ROWMASK into mask register K.
#define ROWMASKK(K) \
	VPCMPGTD Z14, Z13, K; \
	KANDW    K1, K, K; \
	VPADDD   Z15, Z14, Z14

#define RESET_J \
	VPBROADCASTD R12, Z14

// func causalSoftmaxTAVX512(st *float32, t int, scale float32)
TEXT ·causalSoftmaxTAVX512(SB), NOSPLIT, $0-20
	MOVQ         st+0(FP), DI
	MOVQ         t+8(FP), R8
	VBROADCASTSS scale+16(FP), Z12
	BROADCAST_CONSTS
	MOVQ         R8, R9
	SHLQ         $2, R9
	VPBROADCASTD R8, Z8
	MOVL         $1, AX
	VPBROADCASTD AX, Z15
	MOVL         $16, AX
	VPBROADCASTD AX, Z7
	MOVL         $-1, R12
	VMOVDQU32    ·iota16(SB), Z13
	XORQ         R10, R10

chunk:
	SOFTMAX_CHUNK_SETUP(DI)

	// Pass 1: v = scale·st, stored back; running max over visible rows.
	MOVQ    R11, CX
	MOVQ    SI, DX
	MOVL    $0xff800000, AX
	VPBROADCASTD AX, Z10
	RESET_J

scalemax:
	ROWMASK
	VMOVUPS.Z (DX), K1, Z0
	VMULPS    Z12, Z0, Z0
	VMOVUPS   Z0, K1, (DX)
	VMAXPS    Z10, Z0, K3, Z10
	ADDQ      R9, DX
	DECQ      CX
	JNZ       scalemax

	// Pass 2: e = exp(v − max), zero where not visible; sum over rows in
	// increasing j. Three rows per pass (EXP3), then one at a time.
	MOVQ   R11, CX
	MOVQ   SI, DX
	VPXORD Z11, Z11, Z11
	RESET_J
	CMPQ   CX, $3
	JLT    expsum

expsum3:
	ROWMASKK(K3)
	ROWMASKK(K4)
	ROWMASKK(K5)
	VMOVUPS.Z (DX), K1, Z0
	VMOVUPS.Z (DX)(R9*1), K1, Z4
	VMOVUPS.Z (DX)(R9*2), K1, Z28
	VSUBPS    Z10, Z0, Z0
	VSUBPS    Z10, Z4, Z4
	VSUBPS    Z10, Z28, Z28
	EXP3(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z9, Z28, Z29, Z30, Z31)
	VMOVAPS.Z Z3, K3, Z3
	VADDPS    Z3, Z11, K3, Z11
	VMOVUPS   Z3, K1, (DX)
	VMOVAPS.Z Z9, K4, Z9
	VADDPS    Z9, Z11, K4, Z11
	VMOVUPS   Z9, K1, (DX)(R9*1)
	VMOVAPS.Z Z31, K5, Z31
	VADDPS    Z31, Z11, K5, Z11
	VMOVUPS   Z31, K1, (DX)(R9*2)
	LEAQ      (DX)(R9*2), DX
	ADDQ      R9, DX
	SUBQ      $3, CX
	CMPQ      CX, $3
	JGE       expsum3
	TESTQ     CX, CX
	JZ        expdone

expsum:
	ROWMASK
	VMOVUPS.Z (DX), K1, Z0
	VSUBPS    Z10, Z0, Z0
	EXP(Z0, Z1, Z2, Z3)
	VMOVAPS.Z Z3, K3, Z3
	VADDPS    Z3, Z11, K3, Z11
	VMOVUPS   Z3, K1, (DX)
	ADDQ      R9, DX
	DECQ      CX
	JNZ       expsum

expdone:

	// Pass 3: scale by 1/sum.
	VDIVPS Z11, K_ONE, Z4
	MOVQ   R11, CX
	MOVQ   SI, DX

norm:
	VMOVUPS.Z (DX), K1, Z0
	VMULPS    Z4, Z0, Z0
	VMOVUPS   Z0, K1, (DX)
	ADDQ      R9, DX
	DECQ      CX
	JNZ       norm

	// Rows no lane of the chunk sees: zero.
	MOVQ   R8, CX
	SUBQ   R11, CX
	JZ     nextchunk
	VPXORD Z0, Z0, Z0

zerorows:
	VMOVUPS Z0, K1, (DX)
	ADDQ    R9, DX
	DECQ    CX
	JNZ     zerorows

nextchunk:
	VPADDD Z7, Z13, Z13
	ADDQ   $16, R10
	CMPQ   R10, R8
	JLT    chunk
	VZEROUPPER
	RET

// SMHIGH2 is pass 2 of causalSoftmaxT32AVX512 on rows R and R+1 (R < 16)
// of the high chunk, which its lanes see in full.
#define SMHIGH2(R) \
	VMOVUPS (R*128+64)(DI), Z0;     \
	VMOVUPS ((R+1)*128+64)(DI), Z4; \
	VSUBPS  Z9, Z0, Z0;             \
	VSUBPS  Z9, Z4, Z4;             \
	EXP2(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7); \
	VMOVUPS Z3, (R*128+64)(DI);     \
	VADDPS  Z3, Z11, Z11;           \
	VMOVUPS Z7, ((R+1)*128+64)(DI); \
	VADDPS  Z7, Z11, Z11

// SMPAIR is pass 2 of causalSoftmaxT32AVX512 on two pairs of rows, J in
// 1…7. Of a chunk's triangle, row J is seen by lanes J… and row 16−J by
// lanes 16−J…, 16 entries in all: one vector holds row J's lanes in
// place and row 16−J's rotated into lanes 0…J−1 (VALIGND), one exp
// serves both, and two rotations back store them with zeros in the
// lanes that do not see them. The low chunk pairs rows J and 16−J, the
// high one rows 16+J and 32−J. KP (lanes < J), KA (lanes ≥ J) and KB
// (lanes ≥ 16−J) are scratch masks; the sums take rows J and 16+J now,
// their partners after row 8's turn.
#define SMPAIR(J, KP, KA, KB) \
	MOVL      $((1<<J)-1), AX;                 \
	KMOVW     AX, KP;                          \
	KNOTW     KP, KA;                          \
	MOVL      $((0xffff<<(16-J))&0xffff), AX;  \
	KMOVW     AX, KB;                          \
	VMOVUPS   (J*128)(DI), Z0;                 \
	VMOVUPS   ((16-J)*128)(DI), Z12;           \
	VMOVUPS   ((16+J)*128+64)(DI), Z4;         \
	VMOVUPS   ((32-J)*128+64)(DI), Z13;        \
	VSUBPS    Z8, Z0, Z0;                      \
	VSUBPS    Z8, Z12, Z12;                    \
	VSUBPS    Z9, Z4, Z4;                      \
	VSUBPS    Z9, Z13, Z13;                    \
	VALIGND   $(16-J), Z12, Z12, KP, Z0;       \
	VALIGND   $(16-J), Z13, Z13, KP, Z4;       \
	EXP2(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7);      \
	VMOVAPS.Z Z3, KA, Z12;                     \
	VMOVUPS   Z12, (J*128)(DI);                \
	VADDPS    Z12, Z10, Z10;                   \
	VALIGND.Z $J, Z3, Z3, KB, Z13;             \
	VMOVUPS   Z13, ((16-J)*128)(DI);           \
	VMOVAPS.Z Z7, KA, Z14;                     \
	VMOVUPS   Z14, ((16+J)*128+64)(DI);        \
	VADDPS    Z14, Z11, Z11;                   \
	VALIGND.Z $J, Z7, Z7, KB, Z15;             \
	VMOVUPS   Z15, ((32-J)*128+64)(DI)

// func causalSoftmaxT32AVX512(st *float32, scale float32)
//
// causalSoftmaxTAVX512 for T = 32, both 16-query chunks in the same
// passes, so that each pass overlaps the two chunks' dependency chains
// (the running max, the exp and the sum) instead of running one after the
// other. Row j of st is 128 bytes: the low chunk (queries 0–15) at 0, the
// high one (16–31) at 64. The low chunk sees rows 0–15, lane i from row
// j ≤ i; the high chunk sees rows 0–15 in full and, from row 16+r, lanes
// r… — both the mask 0xffff<<r (R13, into K3, in pass 1); pass 2 packs
// the two triangles into whole vectors (SMPAIR, K1–K6). Z8/Z9 are the low
// and high running max, Z10/Z11 the sums; per lane the ops are those of
// causalSoftmaxTAVX512.
TEXT ·causalSoftmaxT32AVX512(SB), NOSPLIT, $0-12
	MOVQ         st+0(FP), DI
	VBROADCASTSS scale+8(FP), Z12
	BROADCAST_CONSTS
	MOVL         $0xff800000, AX
	VPBROADCASTD AX, Z8
	VPBROADCASTD AX, Z9

	// Pass 1: v = scale·st, stored back; running max over visible rows.
	MOVQ DI, DX
	MOVL $0xffff, R13
	MOVQ $16, CX

sm32max0:
	KMOVW     R13, K3
	VMOVUPS   (DX), Z0
	VMOVUPS   64(DX), Z1
	VMULPS    Z12, Z0, Z0
	VMULPS    Z12, Z1, Z1
	VMOVUPS   Z0, (DX)
	VMOVUPS   Z1, 64(DX)
	VMAXPS    Z8, Z0, K3, Z8
	VMAXPS    Z9, Z1, Z9
	SHLL      $1, R13
	ADDQ      $128, DX
	DECQ      CX
	JNZ       sm32max0
	MOVL      $0xffff, R13
	MOVQ      $16, CX

sm32max1:
	KMOVW     R13, K3
	VMOVUPS   64(DX), Z1
	VMULPS    Z12, Z1, Z1
	VMOVUPS   Z1, 64(DX)
	VMAXPS    Z9, Z1, K3, Z9
	SHLL      $1, R13
	ADDQ      $128, DX
	DECQ      CX
	JNZ       sm32max1

	// Pass 2: e = exp(v − max), zero where not visible, in 33 exps (the
	// 528 visible entries, 16 per vector) instead of 48: see SMPAIR. The
	// sums run over rows in increasing j, unmasked: an entry a lane does
	// not see is stored as +0, and s + (+0) = s for a sum that starts
	// from +0 and adds only exps (never negative).
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	SMHIGH2(0)
	SMHIGH2(2)
	SMHIGH2(4)
	SMHIGH2(6)
	SMHIGH2(8)
	SMHIGH2(10)
	SMHIGH2(12)
	SMHIGH2(14)

	// The low chunk's row 0 and the high chunk's row 16, both in full.
	VMOVUPS (DI), Z0
	VMOVUPS (16*128+64)(DI), Z4
	VSUBPS  Z8, Z0, Z0
	VSUBPS  Z9, Z4, Z4
	EXP2(Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7)
	VMOVUPS Z3, (DI)
	VADDPS  Z3, Z10, Z10
	VMOVUPS Z7, (16*128+64)(DI)
	VADDPS  Z7, Z11, Z11
	SMPAIR(1, K1, K2, K3)
	SMPAIR(2, K4, K5, K6)
	SMPAIR(3, K1, K2, K3)
	SMPAIR(4, K4, K5, K6)
	SMPAIR(5, K1, K2, K3)
	SMPAIR(6, K4, K5, K6)
	SMPAIR(7, K1, K2, K3)

	// The low chunk's row 8 (lanes 8–15) with the high chunk's row 24
	// (its lanes 8–15 in lanes 0–7), each less its own chunk's max.
	MOVL      $0x00ff, AX
	KMOVW     AX, K4
	KNOTW     K4, K5
	VMOVUPS   (8*128)(DI), Z0
	VMOVUPS   (24*128+64)(DI), Z12
	VSUBPS    Z8, Z0, Z0
	VSUBPS    Z9, Z12, Z12
	VALIGND   $8, Z12, Z12, K4, Z0
	EXP(Z0, Z1, Z2, Z3)
	VMOVAPS.Z Z3, K5, Z12
	VMOVUPS   Z12, (8*128)(DI)
	VALIGND.Z $8, Z3, Z3, K5, Z13
	VMOVUPS   Z13, (24*128+64)(DI)

	// The rows the pairs stored ahead of their turn: j = 8…15 of the low
	// chunk, 24…31 of the high one.
	VADDPS Z12, Z10, Z10
	VADDPS Z13, Z11, Z11
	VADDPS (9*128)(DI), Z10, Z10
	VADDPS (25*128+64)(DI), Z11, Z11
	VADDPS (10*128)(DI), Z10, Z10
	VADDPS (26*128+64)(DI), Z11, Z11
	VADDPS (11*128)(DI), Z10, Z10
	VADDPS (27*128+64)(DI), Z11, Z11
	VADDPS (12*128)(DI), Z10, Z10
	VADDPS (28*128+64)(DI), Z11, Z11
	VADDPS (13*128)(DI), Z10, Z10
	VADDPS (29*128+64)(DI), Z11, Z11
	VADDPS (14*128)(DI), Z10, Z10
	VADDPS (30*128+64)(DI), Z11, Z11
	VADDPS (15*128)(DI), Z10, Z10
	VADDPS (31*128+64)(DI), Z11, Z11

	// Pass 3: scale by 1/sum; the low chunk's rows 16–31 are zero.
	VDIVPS Z10, K_ONE, Z4
	VDIVPS Z11, K_ONE, Z5
	MOVQ   DI, DX
	MOVQ   $16, CX

sm32norm0:
	VMULPS  (DX), Z4, Z0
	VMULPS  64(DX), Z5, Z1
	VMOVUPS Z0, (DX)
	VMOVUPS Z1, 64(DX)
	ADDQ    $128, DX
	DECQ    CX
	JNZ     sm32norm0
	VPXORD  Z2, Z2, Z2
	MOVQ    $16, CX

sm32norm1:
	VMULPS  64(DX), Z5, Z1
	VMOVUPS Z2, (DX)
	VMOVUPS Z1, 64(DX)
	ADDQ    $128, DX
	DECQ    CX
	JNZ     sm32norm1
	VZEROUPPER
	RET

// func causalSoftmaxGradT32AVX512(ds, pt *float32, scale float32)
//
// causalSoftmaxGradTAVX512 for T = 32 with both 16-query chunks in the
// same passes, laid out and masked as in causalSoftmaxT32AVX512: Z10/Z11
// are the low and high chunks' d = Σ P·G, DX walks ds and R14 pt. Per
// lane the ops are those of causalSoftmaxGradTAVX512.
TEXT ·causalSoftmaxGradT32AVX512(SB), NOSPLIT, $0-20
	MOVQ         ds+0(FP), DI
	MOVQ         pt+8(FP), BX
	VBROADCASTSS scale+16(FP), Z12

	// Pass 1: d = Σ P·G over visible rows.
	VPXORD Z10, Z10, Z10
	VPXORD Z11, Z11, Z11
	MOVQ   DI, DX
	MOVQ   BX, R14
	MOVL   $0xffff, R13
	MOVQ   $16, CX

smg32dot0:
	KMOVW   R13, K3
	VMOVUPS (DX), Z0
	VMOVUPS (R14), Z1
	VMOVUPS 64(DX), Z4
	VMOVUPS 64(R14), Z5
	VMULPS  Z0, Z1, Z2
	VMULPS  Z4, Z5, Z6
	VADDPS  Z2, Z10, K3, Z10
	VADDPS  Z6, Z11, Z11
	SHLL    $1, R13
	ADDQ    $128, DX
	ADDQ    $128, R14
	DECQ    CX
	JNZ     smg32dot0
	MOVL    $0xffff, R13
	MOVQ    $16, CX

smg32dot1:
	KMOVW   R13, K3
	VMOVUPS 64(DX), Z4
	VMOVUPS 64(R14), Z5
	VMULPS  Z4, Z5, Z6
	VADDPS  Z6, Z11, K3, Z11
	SHLL    $1, R13
	ADDQ    $128, DX
	ADDQ    $128, R14
	DECQ    CX
	JNZ     smg32dot1

	// Pass 2: ds = (P·(G − d))·scale, zero where not visible.
	MOVQ DI, DX
	MOVQ BX, R14
	MOVL $0xffff, R13
	MOVQ $16, CX

smg32apply0:
	KMOVW     R13, K3
	VMOVUPS   (DX), Z0
	VMOVUPS   (R14), Z1
	VMOVUPS   64(DX), Z4
	VMOVUPS   64(R14), Z5
	VSUBPS    Z10, Z0, Z0
	VSUBPS    Z11, Z4, Z4
	VMULPS    Z0, Z1, Z0
	VMULPS    Z4, Z5, Z4
	VMULPS    Z12, Z0, Z0
	VMULPS    Z12, Z4, Z4
	VMOVAPS.Z Z0, K3, Z0
	VMOVUPS   Z0, (DX)
	VMOVUPS   Z4, 64(DX)
	SHLL      $1, R13
	ADDQ      $128, DX
	ADDQ      $128, R14
	DECQ      CX
	JNZ       smg32apply0
	MOVL      $0xffff, R13
	MOVQ      $16, CX
	VPXORD    Z2, Z2, Z2

smg32apply1:
	KMOVW     R13, K3
	VMOVUPS   64(DX), Z4
	VMOVUPS   64(R14), Z5
	VSUBPS    Z11, Z4, Z4
	VMULPS    Z4, Z5, Z4
	VMULPS    Z12, Z4, Z4
	VMOVAPS.Z Z4, K3, Z4
	VMOVUPS   Z2, (DX)
	VMOVUPS   Z4, 64(DX)
	SHLL      $1, R13
	ADDQ      $128, DX
	ADDQ      $128, R14
	DECQ      CX
	JNZ       smg32apply1
	VZEROUPPER
	RET

// func causalSoftmaxGradTAVX512(ds, pt *float32, t int, scale float32)
TEXT ·causalSoftmaxGradTAVX512(SB), NOSPLIT, $0-28
	MOVQ         ds+0(FP), DI
	MOVQ         pt+8(FP), BX
	MOVQ         t+16(FP), R8
	VBROADCASTSS scale+24(FP), Z12
	MOVQ         R8, R9
	SHLQ         $2, R9
	VPBROADCASTD R8, Z8
	MOVL         $1, AX
	VPBROADCASTD AX, Z15
	MOVL         $16, AX
	VPBROADCASTD AX, Z7
	MOVL         $-1, R12
	VMOVDQU32    ·iota16(SB), Z13
	XORQ         R10, R10

gchunk:
	SOFTMAX_CHUNK_SETUP(DI)
	LEAQ (BX)(R10*4), R13

	// Pass 1: d = Σ P·G over visible rows.
	MOVQ   R11, CX
	MOVQ   SI, DX
	MOVQ   R13, R14
	VPXORD Z10, Z10, Z10
	RESET_J

gdot:
	ROWMASK
	VMOVUPS.Z (DX), K1, Z0
	VMOVUPS.Z (R14), K1, Z1
	VMULPS    Z0, Z1, Z2
	VADDPS    Z2, Z10, K3, Z10
	ADDQ      R9, DX
	ADDQ      R9, R14
	DECQ      CX
	JNZ       gdot

	// Pass 2: ds = (P·(G − d))·scale, zero where not visible.
	MOVQ R11, CX
	MOVQ SI, DX
	MOVQ R13, R14
	RESET_J

gapply:
	ROWMASK
	VMOVUPS.Z (DX), K1, Z0
	VMOVUPS.Z (R14), K1, Z1
	VSUBPS    Z10, Z0, Z0
	VMULPS    Z0, Z1, Z0
	VMULPS    Z12, Z0, Z0
	VMOVAPS.Z Z0, K3, Z0
	VMOVUPS   Z0, K1, (DX)
	ADDQ      R9, DX
	ADDQ      R9, R14
	DECQ      CX
	JNZ       gapply

	MOVQ   R8, CX
	SUBQ   R11, CX
	JZ     gnext
	VPXORD Z0, Z0, Z0

gzero:
	VMOVUPS Z0, K1, (DX)
	ADDQ    R9, DX
	DECQ    CX
	JNZ     gzero

gnext:
	VPADDD Z7, Z13, Z13
	ADDQ   $16, R10
	CMPQ   R10, R8
	JLT    gchunk
	VZEROUPPER
	RET

// WIDTHMASK sets K1 to the low CX bits (CX ≤ 16); clobbers AX.
#define WIDTHMASK \
	MOVL  $1, AX; \
	SHLL  CX, AX; \
	DECL  AX; \
	KMOVW AX, K1

// func layerNormApplyAVX512(y, x, w, b, mean, rstd *float32, n, c int)
TEXT ·layerNormApplyAVX512(SB), NOSPLIT, $0-64
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ b+24(FP), R9
	MOVQ mean+32(FP), R10
	MOVQ rstd+40(FP), R11
	MOVQ n+48(FP), R12
	MOVQ c+56(FP), R13
	TESTQ $15, R13
	JNZ   lnrow

	// C a multiple of 16: whole vectors, no masks; the row's mean and rstd
	// and w, b are operands (embedded broadcast, memory).
lnrowu:
	XORQ BX, BX
	MOVQ R13, DX

lncolu:
	VMOVUPS     (SI)(BX*1), Z0
	VSUBPS.BCST (R10), Z0, Z0
	VMULPS.BCST (R11), Z0, Z0
	VMULPS      (R8)(BX*1), Z0, Z0
	VADDPS      (R9)(BX*1), Z0, Z0
	VMOVUPS     Z0, (DI)(BX*1)
	ADDQ        $64, BX
	SUBQ        $16, DX
	JNZ         lncolu
	LEAQ        (SI)(R13*4), SI
	LEAQ        (DI)(R13*4), DI
	ADDQ        $4, R10
	ADDQ        $4, R11
	DECQ        R12
	JNZ         lnrowu
	VZEROUPPER
	RET

lnrow:
	VBROADCASTSS (R10), Z1
	VBROADCASTSS (R11), Z2
	XORQ         BX, BX
	MOVQ         R13, DX

lncol:
	MOVQ      DX, CX
	CMPQ      CX, $16
	JLE       lnw
	MOVQ      $16, CX

lnw:
	WIDTHMASK
	VMOVUPS.Z (SI)(BX*1), K1, Z0
	VSUBPS    Z1, Z0, Z0
	VMULPS    Z2, Z0, Z0
	VMOVUPS.Z (R8)(BX*1), K1, Z3
	VMULPS    Z3, Z0, Z0
	VMOVUPS.Z (R9)(BX*1), K1, Z3
	VADDPS    Z3, Z0, Z0
	VMOVUPS   Z0, K1, (DI)(BX*1)
	ADDQ      $64, BX
	SUBQ      CX, DX
	JNZ       lncol

	LEAQ (SI)(R13*4), SI
	LEAQ (DI)(R13*4), DI
	ADDQ $4, R10
	ADDQ $4, R11
	DECQ R12
	JNZ  lnrow
	VZEROUPPER
	RET

// func layerNormGradApplyAVX512(dx, dw, db, dy, x, w, mean, rstd, gm, gxm *float32, n, c, width int)
TEXT ·layerNormGradApplyAVX512(SB), NOSPLIT, $0-104
	MOVQ dx+0(FP), DI
	MOVQ dw+8(FP), R8
	MOVQ db+16(FP), R9
	MOVQ dy+24(FP), DX
	MOVQ x+32(FP), SI
	MOVQ w+40(FP), R10
	MOVQ mean+48(FP), R11
	MOVQ rstd+56(FP), R12
	MOVQ gm+64(FP), R13
	MOVQ gxm+72(FP), R14
	MOVQ c+88(FP), BX
	SHLQ $2, BX
	MOVQ width+96(FP), CX
	WIDTHMASK
	MOVQ n+80(FP), CX

	VMOVUPS.Z (R8), K1, Z4
	VMOVUPS.Z (R9), K1, Z5
	VMOVUPS.Z (R10), K1, Z6
	CMPQ      width+96(FP), $16
	JNE       lngrow

	// A whole 16-column chunk: plain loads and stores, the row's mean,
	// rstd, gm and gxm as embedded-broadcast operands; the same ops.
lngrowu:
	VMOVUPS     (SI), Z0
	VSUBPS.BCST (R11), Z0, Z0
	VMULPS.BCST (R12), Z0, Z0
	VMOVUPS     (DX), Z3
	VMULPS      Z6, Z3, Z9
	VADDPS      Z3, Z5, Z5
	VMULPS      Z0, Z3, Z10
	VADDPS      Z10, Z4, Z4
	VSUBPS.BCST (R13), Z9, Z9
	VMULPS.BCST (R14), Z0, Z11
	VSUBPS      Z11, Z9, Z9
	VMULPS.BCST (R12), Z9, Z9
	VADDPS      (DI), Z9, Z12
	VMOVUPS     Z12, (DI)
	ADDQ        BX, DI
	ADDQ        BX, DX
	ADDQ        BX, SI
	ADDQ        $4, R11
	ADDQ        $4, R12
	ADDQ        $4, R13
	ADDQ        $4, R14
	DECQ        CX
	JNZ         lngrowu
	JMP         lngdone

lngrow:
	VBROADCASTSS (R11), Z1
	VBROADCASTSS (R12), Z2
	VBROADCASTSS (R13), Z7
	VBROADCASTSS (R14), Z8
	VMOVUPS.Z    (SI), K1, Z0
	VSUBPS       Z1, Z0, Z0
	VMULPS       Z2, Z0, Z0
	VMOVUPS.Z    (DX), K1, Z3
	VMULPS       Z6, Z3, Z9
	VADDPS       Z3, Z5, Z5
	VMULPS       Z0, Z3, Z10
	VADDPS       Z10, Z4, Z4
	VSUBPS       Z7, Z9, Z9
	VMULPS       Z8, Z0, Z11
	VSUBPS       Z11, Z9, Z9
	VMULPS       Z9, Z2, Z9
	VMOVUPS.Z    (DI), K1, Z12
	VADDPS       Z9, Z12, Z12
	VMOVUPS      Z12, K1, (DI)
	ADDQ         BX, DI
	ADDQ         BX, DX
	ADDQ         BX, SI
	ADDQ         $4, R11
	ADDQ         $4, R12
	ADDQ         $4, R13
	ADDQ         $4, R14
	DECQ         CX
	JNZ          lngrow

lngdone:
	VMOVUPS Z4, K1, (R8)
	VMOVUPS Z5, K1, (R9)
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

// func geluWithGradAVX2(dst, grad, src *float32, n int)
TEXT ·geluWithGradAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ grad+8(FP), DX
	MOVQ src+16(FP), SI
	MOVQ n+24(FP), CX

loop:
	VMOVUPS (SI), Y0
	GELUBOTH(Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8)
	VMOVUPS Y8, (DI)
	VMOVUPS Y7, (DX)
	STEP(32, 8)
	JNZ     loop
	VZEROUPPER
	RET

// func addAVX2(dst, x, y *float32, n int)
TEXT ·addAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX

loop:
	VMOVUPS (SI), Y0
	VADDPS  (DX), Y0, Y0
	VMOVUPS Y0, (DI)
	STEP(32, 8)
	JNZ     loop
	VZEROUPPER
	RET

// func adamAVX2(p, grad, m, v *float32, n int, k *AdamCoef)
TEXT ·adamAVX2(SB), NOSPLIT, $0-48
	ADAM_ARGS
	VBROADCASTSS 0(AX), Y8
	VBROADCASTSS 4(AX), Y9
	VBROADCASTSS 8(AX), Y10
	VBROADCASTSS 12(AX), Y11
	VBROADCASTSS 16(AX), Y12
	VBROADCASTSS 20(AX), Y13
	VBROADCASTSS 24(AX), Y14
	VBROADCASTSS 28(AX), Y15

loop:
	ADAM(Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15, Y0, Y1, Y2, Y3, Y4, Y5)
	ADAM_STEP(32, 8)
	JNZ loop
	VZEROUPPER
	RET

// func transpose8AVX(dst, src *float32, t8, t, ld int)
// Per block of 8 source rows Y0…Y7: unpack row pairs, shuffle quads, then
// swap 128-bit halves, leaving column k of the block in Y(8+k)… as below.
TEXT ·transpose8AVX(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ t8+16(FP), CX
	MOVQ t+24(FP), R9
	SHLQ $2, R9
	MOVQ ld+32(FP), R10
	SHLQ $2, R10

tblock:
	MOVQ    SI, AX
	VMOVUPS (AX), Y0
	ADDQ    R10, AX
	VMOVUPS (AX), Y1
	ADDQ    R10, AX
	VMOVUPS (AX), Y2
	ADDQ    R10, AX
	VMOVUPS (AX), Y3
	ADDQ    R10, AX
	VMOVUPS (AX), Y4
	ADDQ    R10, AX
	VMOVUPS (AX), Y5
	ADDQ    R10, AX
	VMOVUPS (AX), Y6
	ADDQ    R10, AX
	VMOVUPS (AX), Y7
	ADDQ    R10, AX
	MOVQ    AX, SI

	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15

	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7

	// Columns 0…3 from the low halves, 4…7 from the high ones.
	MOVQ       DI, AX
	VPERM2F128 $0x20, Y4, Y0, Y8
	VMOVUPS    Y8, (AX)
	ADDQ       R9, AX
	VPERM2F128 $0x20, Y5, Y1, Y8
	VMOVUPS    Y8, (AX)
	ADDQ       R9, AX
	VPERM2F128 $0x20, Y6, Y2, Y8
	VMOVUPS    Y8, (AX)
	ADDQ       R9, AX
	VPERM2F128 $0x20, Y7, Y3, Y8
	VMOVUPS    Y8, (AX)
	ADDQ       R9, AX
	VPERM2F128 $0x31, Y4, Y0, Y8
	VMOVUPS    Y8, (AX)
	ADDQ       R9, AX
	VPERM2F128 $0x31, Y5, Y1, Y8
	VMOVUPS    Y8, (AX)
	ADDQ       R9, AX
	VPERM2F128 $0x31, Y6, Y2, Y8
	VMOVUPS    Y8, (AX)
	ADDQ       R9, AX
	VPERM2F128 $0x31, Y7, Y3, Y8
	VMOVUPS    Y8, (AX)

	ADDQ $32, DI
	SUBQ $8, CX
	JNZ  tblock
	VZEROUPPER
	RET

// func interleaveAVX512(d, a, b *float32, n int)
TEXT ·interleaveAVX512(SB), NOSPLIT, $0-32
	MOVQ      d+0(FP), DI
	MOVQ      a+8(FP), SI
	MOVQ      b+16(FP), DX
	MOVQ      n+24(FP), CX
	VMOVDQU32 ·interLo(SB), Z2
	VMOVDQU32 ·interHi(SB), Z3

interloop:
	VMOVUPS   (SI), Z0
	VMOVAPS   Z0, Z1
	VPERMT2PS (DX), Z2, Z0
	VPERMT2PS (DX), Z3, Z1
	VMOVUPS   Z0, (DI)
	VMOVUPS   Z1, 64(DI)
	ADDQ      $64, SI
	ADDQ      $64, DX
	ADDQ      $128, DI
	SUBQ      $16, CX
	JNZ       interloop
	VZEROUPPER
	RET
