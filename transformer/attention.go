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
// (zero where j > i) and out (B,T,D); qt (hs·T) is scratch:
//
//	P[i,j] = softmax_{j≤i}(q_i·k_j / √hs),  out[b,i,h] = Σ_{j≤i} P[i,j]·v_j
//
// Per (b,h): Sᵀ = K·Qᵀ (Qᵀ packed into qt), the softmax, and out = P·V
// with P read through the kernels' strides; every sum runs in increasing
// order of its inner index.
func attentionForward[F Float](out, att, qt, qkv []F, b, t, d, nh int) {
	hs := d / nh
	scale := F(1 / math.Sqrt(float64(hs)))
	ld := 3 * d
	for bi := range b {
		base := bi * t * ld
		for h := range nh {
			q, k, v := base+h*hs, base+d+h*hs, base+2*d+h*hs
			packT(qt, qkv[q:], t, hs, ld)
			st := att[(bi*nh+h)*t*t:][:t*t]
			// Sᵀ = K·Qᵀ on and above the diagonal's tiles.
			kernel.UpperGemm(st, t, qkv[k:], ld, qt, t, t, hs)
			causalSoftmaxT(st, t, scale)
			// out = P·V, P lower triangular, read from Pᵀ.
			kernel.TriGemm(out[bi*t*d+h*hs:], d, st, 1, t, qkv[v:], ld, t, hs, false)
		}
	}
}

// attentionBackward mirrors attentionForward, overwriting dqkv (B,T,3D)
// from dout (B,T,D); ds (T·T) and dot (hs·T) are scratch. Every element of
// dqkv is one Gemm sum, started from +0. With P the probabilities and
// G = dO·Vᵀ:
//
//	dV = Pᵀ·dO,  dS_ij = P_ij·(G_ij - Σ_k P_ik G_ik)/√hs,  dQ = dS·K,  dK = dSᵀ·Q
//
// G and dS are kept transposed like P (Gᵀ = V·dOᵀ, dOᵀ packed into dot).
func attentionBackward[F Float](dqkv, ds, dot, dout, att, qkv []F, b, t, d, nh int) {
	hs := d / nh
	scale := F(1 / math.Sqrt(float64(hs)))
	ld := 3 * d
	for bi := range b {
		base := bi * t * ld
		for h := range nh {
			q, k, v := base+h*hs, base+d+h*hs, base+2*d+h*hs
			do := dout[bi*t*d+h*hs:]
			st := att[(bi*nh+h)*t*t:][:t*t]
			packT(dot, do, t, hs, d)
			// dV[j] = Σ_{i≥j} P[i,j]·dO[i]: Pᵀ upper triangular.
			kernel.TriGemm(dqkv[v:], ld, st, t, 1, do, d, t, hs, true)
			// Gᵀ[j,i] = v_j·dO_i on and above the diagonal's tiles.
			kernel.UpperGemm(ds, t, qkv[v:], ld, dot, t, t, hs)
			causalSoftmaxGradT(ds, st, t, scale)
			// dQ[i] = Σ_{j≤i} dS[i,j]·k_j: dS lower, read from dSᵀ.
			kernel.TriGemm(dqkv[q:], ld, ds, 1, t, qkv[k:], ld, t, hs, false)
			// dK[j] = Σ_{i≥j} dS[i,j]·q_i: dSᵀ upper.
			kernel.TriGemm(dqkv[k:], ld, ds, t, 1, qkv[q:], ld, t, hs, true)
		}
	}
}

// packT writes the transpose of the (T,hs) matrix src (row stride ld)
// into dst (hs,T); float32 8-wide heads (the default model) run
// vmath.Transpose8.
func packT[F Float](dst, src []F, t, hs, ld int) {
	if d32, ok := any(dst).([]float32); ok && hs == 8 {
		vmath.Transpose8(d32[:8*t], any(src).([]float32)[:(t-1)*ld+8], t, ld)
		return
	}
	for i := range t {
		for c, x := range src[i*ld : i*ld+hs] {
			dst[c*t+i] = x
		}
	}
}

// causalSoftmaxT is vmath.CausalSoftmaxT for float32 and the same
// definition through math.Exp for the float64 gradient check.
func causalSoftmaxT[F Float](st []F, t int, scale F) {
	if s32, ok := any(st).([]float32); ok {
		vmath.CausalSoftmaxT(s32, t, float32(scale))
		return
	}
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

// causalSoftmaxGradT is vmath.CausalSoftmaxGradT for float32 and its
// definition for float64.
func causalSoftmaxGradT[F Float](ds, pt []F, t int, scale F) {
	if d32, ok := any(ds).([]float32); ok {
		vmath.CausalSoftmaxGradT(d32, any(pt).([]float32), t, float32(scale))
		return
	}
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
