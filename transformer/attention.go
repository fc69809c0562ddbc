package transformer

import (
	"math"

	"github.com/ideabench/ideabench/internal/kernel"
	"github.com/ideabench/ideabench/internal/vmath"
)

// The causal products skip the tiles wholly across the diagonal:
// kernel.UpperGemm writes the score-like products Sᵀ and Gᵀ only on and
// above the diagonal's 16-row tiles, and kernel.TriGemm sums the four
// 8-column products (P·V, Pᵀ·dO, dS·K, dSᵀ·Q) over the 8-row tiles on the
// nonzero side. What they leave out is exact zeros (or entries the
// softmax overwrites), so every sum keeps Gemm's order and bits.

// Attention keeps each head's probabilities transposed, key-major:
// att[b,h,j,i] = P[i,j], the weight of key j in query i's output. Queries
// are then the contiguous lanes of a row, so the causal softmax and its
// backward pass vectorize across queries while every query's sums still
// run over keys j = 0, 1, … in turn (vmath.CausalSoftmaxT).

// attentionForward runs causal multi-head scaled dot-product attention.
// From qkv (B,T,3D), laid out [q | k | v] with head h at columns h·hs…,
// it overwrites att (B,NH,T,T) with the transposed softmax probabilities
// (zero where j > i) and out (B,T,D); qt (NH·hs·T) is scratch:
//
//	P[i,j] = softmax_{j≤i}(q_i·k_j / √hs),  out[b,i,h] = Σ_{j≤i} P[i,j]·v_j
//
// Per (b,h): Sᵀ = K·Qᵀ (Qᵀ packed into qt), the softmax, and out = P·V
// with P read through the kernels' strides; every sum runs in increasing
// order of its inner index. Each step runs on a window's NH heads in one
// call (kernel.Batch); the heads are independent, so the bits are those of
// one head after another.
//
// With bias (B,NH,T,T, key-major as att; nil for none) the logits are
// scale·q_i·k_j + bias[b,h,j,i]: each scaled score rounded, then the bias
// added, and the softmax run on them unscaled. A bias of zeros gives the
// bits of no bias (x·scale + 0 is x·scale, and the softmax's v = x·1 is
// x).
func attentionForward[F Float](out, att, qt, qkv, bias []F, b, t, d, nh int) {
	hs := d / nh
	scale := F(1 / math.Sqrt(float64(hs)))
	ld := 3 * d
	// Head h: Sᵀ at h·T·T, Qᵀ at h·hs·T, its q, k, v and output columns at h·hs.
	scores := kernel.Batch{Count: nh, SC: t * t, SA: hs, SB: hs * t}
	for bi := range b {
		base := bi * t * ld
		st := att[bi*nh*t*t:][:nh*t*t]
		packTN(qt, qkv[base:], t, hs, ld, nh)
		// Sᵀ = K·Qᵀ on and above the diagonal's tiles.
		kernel.UpperGemmN(st, t, qkv[base+d:], ld, qt, t, t, hs, scores)
		if bias != nil {
			addLogitBias(st, bias[bi*nh*t*t:][:nh*t*t], t, nh, scale)
			causalSoftmaxTN(st, t, nh, 1)
		} else {
			causalSoftmaxTN(st, t, nh, scale)
		}
		// out = P·V, P lower triangular, read from Pᵀ.
		lowerCausal(out[bi*t*d:], d, st, qkv[base+2*d:], ld, qt, t, hs, nh)
	}
}

// lowerCausal is TriGemmN(c, ldc, pt, 1, T, b, ldb, T, hs, false, ·) on
// the window's nh heads: the lower causal product whose A is read from
// its transpose pt (nh (T,T) blocks; P·V and dS·K), head h's columns of
// c and b at h·hs. Float32 heads 8 wide (kernel.TriGemmTFast, D a
// multiple of 16) run it transposed: kernel.TriGemmTN writes the heads'
// Cᵀ, (D,T) channel by channel, into scratch (D·T), and
// vmath.TransposeTo moves it into c's rows, ldc apart. The sums are the
// same, bit for bit (but for the sign of a zero that a fused
// multiply-add underflowed to, see kernel.TriGemmTN), on 8x32 zmm tiles
// where TriGemmN has 8x8 ymm ones. Measured on one core, one window of
// the default model (T 32, 4 heads): 431 ns through TriGemmN, 278 + 30
// (the transpose) transposed; 16-wide heads already run zmm tiles in
// TriGemmN, and there the transposed way was no faster (T 96, 8 heads:
// 7.3 µs against 6.5 + 0.9).
func lowerCausal[F Float](c []F, ldc int, pt, b []F, ldb int, scratch []F, t, hs, nh int) {
	d := nh * hs
	if c32, ok := any(c).([]float32); ok && hs == 8 && kernel.TriGemmTFast(t, hs) && d%16 == 0 {
		s32 := any(scratch).([]float32)[:d*t]
		kernel.TriGemmTN(s32, any(pt).([]float32), any(b).([]float32), ldb, t, hs, false,
			kernel.Batch{Count: nh, SC: hs * t, SA: t * t, SB: hs})
		vmath.TransposeTo(c32, ldc, s32, d, t)
		return
	}
	kernel.TriGemmN(c, ldc, pt, 1, t, b, ldb, t, hs, false, kernel.Batch{Count: nh, SC: hs, SA: t * t, SB: hs})
}

// attentionBackward mirrors attentionForward, overwriting dqkv (B,T,3D)
// from dout (B,T,D); ds (NH·T·T) and dot (NH·hs·T) are scratch, and so is
// pair (NH·T·T, or nil: see pairsFast). Every element of dqkv is one Gemm
// sum, started from +0. With P the probabilities and G = dO·Vᵀ:
//
//	dV = Pᵀ·dO,  dS_ij = P_ij·(G_ij - Σ_k P_ik G_ik)/√hs,  dQ = dS·K,  dK = dSᵀ·Q
//
// G and dS are kept transposed like P (Gᵀ = V·dOᵀ, dOᵀ packed into dot),
// and each step runs on a window's heads in one call, as forward.
//
// With dbias (B,NH,T,T; nil when the forward pass had no bias) the
// softmax's gradient of the logits, dZ_ij = P_ij·(G_ij − Σ_k P_ik G_ik),
// is written there key-major (zero above the diagonal), and dS = dZ·scale
// goes on: the bits of the fused gradient, which rounds the same two
// products.
func attentionBackward[F Float](dqkv, ds, pair, dot, dout, att, qkv, dbias []F, b, t, d, nh int) {
	hs := d / nh
	scale := F(1 / math.Sqrt(float64(hs)))
	ld := 3 * d
	// Head h: P, G and dS at h·T·T, dOᵀ at h·hs·T, its columns at h·hs.
	prod := kernel.Batch{Count: nh, SC: hs, SA: t * t, SB: hs}
	grads := kernel.Batch{Count: nh, SC: t * t, SA: hs, SB: hs * t}
	ds = ds[:nh*t*t]
	paired := pairsFast(pair, t, hs, nh)
	for bi := range b {
		base := bi * t * ld
		do := dout[bi*t*d:]
		st := att[bi*nh*t*t:][:nh*t*t]
		packTN(dot, do, t, hs, d, nh)
		// dV[j] = Σ_{i≥j} P[i,j]·dO[i]: Pᵀ upper triangular.
		if paired {
			interleavePairs(pair, st, t, nh)
			pairCausal(dqkv[base+2*d:], ld, pair, 2*t, 2, do, d, t, true, nh)
		} else {
			kernel.TriGemmN(dqkv[base+2*d:], ld, st, t, 1, do, d, t, hs, true, prod)
		}
		// Gᵀ[j,i] = v_j·dO_i on and above the diagonal's tiles.
		kernel.UpperGemmN(ds, t, qkv[base+2*d:], ld, dot, t, t, hs, grads)
		if dbias != nil {
			causalSoftmaxGradTN(ds, st, t, nh, 1)
			copy(dbias[bi*nh*t*t:][:nh*t*t], ds)
			for i := range ds {
				ds[i] *= scale
			}
		} else {
			causalSoftmaxGradTN(ds, st, t, nh, scale)
		}
		if paired {
			// dQ (A_h[i,j] = dSᵀ_h[j,i], read transposed) and dK
			// from the interleaved dSᵀ.
			interleavePairs(pair, ds, t, nh)
			pairCausal(dqkv[base:], ld, pair, 2, 2*t, qkv[base+d:], ld, t, false, nh)
			pairCausal(dqkv[base+d:], ld, pair, 2*t, 2, qkv[base:], ld, t, true, nh)
			continue
		}
		// dQ[i] = Σ_{j≤i} dS[i,j]·k_j: dS lower, read from dSᵀ (dot is
		// free again).
		lowerCausal(dqkv[base:], ld, ds, qkv[base+d:], ld, dot, t, hs, nh)
		// dK[j] = Σ_{i≥j} dS[i,j]·q_i: dSᵀ upper.
		kernel.TriGemmN(dqkv[base+d:], ld, ds, t, 1, qkv[base:], ld, t, hs, true, prod)
	}
}

// addLogitBias sets st[h,j,i] = st[h,j,i]·scale + bias[h,j,i] on and
// above the diagonal (j ≤ i) of each of the nh (T,T) key-major blocks;
// the entries below are left for the softmax, which zeroes them.
func addLogitBias[F Float](st, bias []F, t, nh int, scale F) {
	for h := range nh {
		for j := range t {
			row := st[(h*t+j)*t:][:t]
			b := bias[(h*t+j)*t:][:t]
			for i := j; i < t; i++ {
				row[i] = F(row[i]*scale) + b[i]
			}
		}
	}
}

// pairKernel reports whether attentionBackward can run the causal
// products Pᵀ·dO, dS·K and dSᵀ·Q of F heads hs wide on the heads two by
// two: float32 heads 8 wide, an even number of them, and T where
// kernel.TriGemmPairs has its assembly kernel. Activations for such a
// model keep a buffer for the interleaved blocks (acts.att2).
func pairKernel[F Float](t, hs, nh int) bool {
	_, ok := any(F(0)).(float32)
	return ok && hs == 8 && nh%2 == 0 && kernel.TriGemmPairsFast(t)
}

// pairsFast reports whether attentionBackward runs the heads two by two:
// pairKernel, and pair given with room for the window's interleaved
// blocks. Each head's sums are TriGemmN's, bit for bit, on zmm rows of
// two heads where TriGemmN has ymm rows of one (for dS·K that is the head
// by head path's lowerCausal but for the sign of a zero that a fused
// multiply-add underflowed to, see kernel.TriGemmTN). Measured on one
// core, T = 32: 127 ns a pair of heads against 119 a head for Pᵀ·dO
// (BenchmarkCausal); the default model's attention backward pass 10%
// faster with the interleaving counted (BenchmarkAttention, 14.5 against
// 13.0 µs for 8 windows), its step 1.4%. P·V in the forward pass gained
// nothing so (the interleave costs what the zmm rows save over
// kernel.TriGemmTN), and stays with lowerCausal.
func pairsFast[F Float](pair []F, t, hs, nh int) bool {
	return pairKernel[F](t, hs, nh) && len(pair) >= nh*t*t
}

// interleavePairs writes a window's nh (T,T) blocks src, interleaved two
// by two (vmath.InterleavePairs), into dst; float32 only (pairsFast).
func interleavePairs[F Float](dst, src []F, t, nh int) {
	vmath.InterleavePairs(any(dst).([]float32)[:nh*t*t], any(src).([]float32)[:nh*t*t], t*t, nh/2)
}

// pairCausal is kernel.TriGemmPairs on a window's nh/2 pairs of 8-wide
// heads: pair q's interleaved A at a2[q·2T·T:], its two heads' columns
// of c and b at 16q; float32 only (pairsFast).
func pairCausal[F Float](c []F, ldc int, a2 []F, rsa, csa int, b []F, ldb, t int, upper bool, nh int) {
	kernel.TriGemmPairs(any(c).([]float32), ldc, any(a2).([]float32), rsa, csa, any(b).([]float32), ldb, t, upper,
		kernel.Batch{Count: nh / 2, SC: 16, SA: 2 * t * t, SB: 16})
}

// packTN writes the transposes of nh (T,hs) matrices, head h's rows at
// src[h·hs:] with row stride ld, into dst (nh,hs,T); float32 8-wide heads
// (the default model) run vmath.Transpose8N, and wider heads whose width
// is a multiple of 8 too, each as hs/8 heads of 8: (nh·hs/8, 8, T) is the
// same layout as (nh, hs, T).
func packTN[F Float](dst, src []F, t, hs, ld, nh int) {
	if d32, ok := any(dst).([]float32); ok && hs%8 == 0 {
		n8 := nh * hs / 8
		vmath.Transpose8N(d32[:n8*8*t], any(src).([]float32)[:(n8-1)*8+(t-1)*ld+8], t, ld, n8, 8)
		return
	}
	for h := range nh {
		for i := range t {
			for c, x := range src[h*hs+i*ld : h*hs+i*ld+hs] {
				dst[(h*hs+c)*t+i] = x
			}
		}
	}
}

// causalSoftmaxTN is causalSoftmaxT on nh consecutive (T,T) blocks.
func causalSoftmaxTN[F Float](st []F, t, nh int, scale F) {
	if s32, ok := any(st).([]float32); ok {
		vmath.CausalSoftmaxTN(s32[:nh*t*t], t, nh, float32(scale))
		return
	}
	for h := range nh {
		causalSoftmaxT(st[h*t*t:(h+1)*t*t], t, scale)
	}
}

// causalSoftmaxGradTN is causalSoftmaxGradT on nh consecutive (T,T)
// blocks of ds and pt.
func causalSoftmaxGradTN[F Float](ds, pt []F, t, nh int, scale F) {
	if d32, ok := any(ds).([]float32); ok {
		vmath.CausalSoftmaxGradTN(d32[:nh*t*t], any(pt).([]float32)[:nh*t*t], t, nh, float32(scale))
		return
	}
	for h := range nh {
		causalSoftmaxGradT(ds[h*t*t:(h+1)*t*t], pt[h*t*t:(h+1)*t*t], t, scale)
	}
}

// causalSoftmaxT is vmath.CausalSoftmaxT's definition through math.Exp,
// for the float64 gradient check (causalSoftmaxTN sends float32 to vmath).
func causalSoftmaxT[F Float](st []F, t int, scale F) {
	for i := range t {
		m := F(math.Inf(-1))
		for j := 0; j <= i; j++ {
			st[j*t+i] *= scale
			m = max(m, st[j*t+i])
		}
		var s F
		for j := 0; j <= i; j++ {
			e := F(math.Exp(float64(st[j*t+i] - m)))
			st[j*t+i] = e
			s += e
		}
		for j := 0; j <= i; j++ {
			st[j*t+i] /= s
		}
		for j := i + 1; j < t; j++ {
			st[j*t+i] = 0
		}
	}
}

// causalSoftmaxGradT is vmath.CausalSoftmaxGradT's definition, for the
// float64 gradient check (causalSoftmaxGradTN sends float32 to vmath).
func causalSoftmaxGradT[F Float](ds, pt []F, t int, scale F) {
	for i := range t {
		var d F
		for j := 0; j <= i; j++ {
			d += pt[j*t+i] * ds[j*t+i]
		}
		for j := 0; j <= i; j++ {
			ds[j*t+i] = pt[j*t+i] * (ds[j*t+i] - d) * scale
		}
		for j := i + 1; j < t; j++ {
			ds[j*t+i] = 0
		}
	}
}
