package transformer

import (
	"math"

	"github.com/ideabench/ideabench/internal/kernel"
	"github.com/ideabench/ideabench/internal/vmath"
)

// attnTile is the row-block height of the causal products: a block of
// query rows [i0, i0+attnTile) needs keys 0…i0+attnTile-1 only, so tiles
// wholly above the diagonal are never computed.
const attnTile = 8

// attentionForward runs causal multi-head scaled dot-product attention.
// From qkv (B,T,3D), laid out [q | k | v] with head h at columns h·hs…,
// it overwrites att (B,NH,T,T) with the softmax probabilities (entries
// above the diagonal are zero) and out (B,T,D); kt (hs·T) is scratch:
//
//	att[b,h,t,t2] = softmax_{t2≤t}(q_t·k_t2 / √hs),  out[b,t,h] = Σ_{t2≤t} att·v_t2
//
// Per (b,h) both products are Gemm calls on row blocks of attnTile: the
// scores S = Q·Kᵀ (Kᵀ packed into kt) and out = P·V, each summed in
// increasing order of its inner index.
func attentionForward[F Float](out, att, kt, qkv []F, b, t, d, nh int) {
	hs := d / nh
	scale := F(1 / math.Sqrt(float64(hs)))
	ld := 3 * d
	for bi := range b {
		base := bi * t * ld
		for h := range nh {
			q, k, v := base+h*hs, base+d+h*hs, base+2*d+h*hs
			for j := range t {
				for c, kv := range qkv[k+j*ld : k+j*ld+hs] {
					kt[c*t+j] = kv
				}
			}
			p := att[(bi*nh+h)*t*t:][:t*t]
			for i0 := 0; i0 < t; i0 += attnTile {
				rows, cols := min(attnTile, t-i0), min(t, i0+attnTile)
				kernel.Gemm(p[i0*t:], t, qkv[q+i0*ld:], ld, 1, kt, t, nil, rows, cols, hs, false)
			}
			softmaxCausal(p, scale, t)
			o := out[bi*t*d+h*hs:]
			for i0 := 0; i0 < t; i0 += attnTile {
				rows, inner := min(attnTile, t-i0), min(t, i0+attnTile)
				kernel.Gemm(o[i0*d:], d, p[i0*t:], t, 1, qkv[v:], ld, nil, rows, hs, inner, false)
			}
		}
	}
}

// attentionBackward mirrors attentionForward, accumulating into dqkv
// (B,T,3D) from dout (B,T,D); ds (T·T) and vt (hs·T) are scratch. With
// P the probabilities and G = dO·Vᵀ:
//
//	dV += Pᵀ·dO,  dS_ij = P_ij·(G_ij - Σ_k P_ik G_ik)/√hs,  dQ += dS·K,  dK += dSᵀ·Q
//
// The transposed products read P and dS through Gemm's strides; for key
// rows [j0, j0+attnTile) only query rows i ≥ j0 contribute.
func attentionBackward[F Float](dqkv, ds, vt, dout, att, qkv []F, b, t, d, nh int) {
	hs := d / nh
	scale := F(1 / math.Sqrt(float64(hs)))
	ld := 3 * d
	for bi := range b {
		base := bi * t * ld
		for h := range nh {
			q, k, v := base+h*hs, base+d+h*hs, base+2*d+h*hs
			do := dout[bi*t*d+h*hs:]
			p := att[(bi*nh+h)*t*t:][:t*t]
			for j := range t {
				for c, vv := range qkv[v+j*ld : v+j*ld+hs] {
					vt[c*t+j] = vv
				}
			}
			for j0 := 0; j0 < t; j0 += attnTile {
				rows := min(attnTile, t-j0)
				kernel.Gemm(dqkv[v+j0*ld:], ld, p[j0*t+j0:], 1, t, do[j0*d:], d, nil, rows, hs, t-j0, true)
			}
			for i0 := 0; i0 < t; i0 += attnTile {
				rows, cols := min(attnTile, t-i0), min(t, i0+attnTile)
				kernel.Gemm(ds[i0*t:], t, do[i0*d:], d, 1, vt, t, nil, rows, cols, hs, false)
			}
			for i := range t {
				pr, g := p[i*t:i*t+i+1], ds[i*t:i*t+t]
				var dot F
				for j, pv := range pr {
					dot += F(pv * g[j])
				}
				for j, pv := range pr {
					g[j] = F(pv*(g[j]-dot)) * scale
				}
				clear(g[i+1:])
			}
			for i0 := 0; i0 < t; i0 += attnTile {
				rows, inner := min(attnTile, t-i0), min(t, i0+attnTile)
				kernel.Gemm(dqkv[q+i0*ld:], ld, ds[i0*t:], t, 1, qkv[k:], ld, nil, rows, hs, inner, true)
			}
			for j0 := 0; j0 < t; j0 += attnTile {
				rows := min(attnTile, t-j0)
				kernel.Gemm(dqkv[k+j0*ld:], ld, ds[j0*t+j0:], 1, t, qkv[q+j0*ld:], ld, nil, rows, hs, t-j0, true)
			}
		}
	}
}

// softmaxCausal turns the raw scores p (T,T) into causal softmax rows in
// place: row i becomes softmax_j≤i(scale·p[i,j]) and zero above the
// diagonal. exp runs once over the whole block (the entries above the
// diagonal are cleared first, so they are finite), which keeps every row
// in whole vectors.
func softmaxCausal[F Float](p []F, scale F, t int) {
	for i := range t {
		row := p[i*t : i*t+i+1]
		mx := F(math.Inf(-1))
		for j, v := range row {
			v *= scale
			row[j] = v
			if v > mx {
				mx = v
			}
		}
		for j := range row {
			row[j] -= mx
		}
		clear(p[i*t+i+1 : i*t+t])
	}
	expInPlace(p)
	for i := range t {
		row := p[i*t : i*t+i+1]
		var sum F
		for _, e := range row {
			sum += e
		}
		inv := 1 / sum
		for j := range row {
			row[j] *= inv
		}
		clear(p[i*t+i+1 : i*t+t])
	}
}

// expInPlace replaces x[i] by exp(x[i]): vmath.Exp for float32, math.Exp
// for the float64 gradient check.
func expInPlace[F Float](x []F) {
	if x32, ok := any(x).([]float32); ok {
		vmath.Exp(x32, x32)
		return
	}
	for i, v := range x {
		x[i] = F(math.Exp(float64(v)))
	}
}
