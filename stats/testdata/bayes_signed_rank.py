#!/usr/bin/env python3
"""Reference numbers for stats.BayesSignedRank, computed independently of
the Go code with numpy: the Bayesian signed-rank test of Benavoli, Corani,
Demšar and Zaffalon (2017, JMLR 18(77), §5.2), Dirichlet-process prior of
strength 0.5 with its pseudo-observation at 0.

For each stored case (effects z, ROPE r) it draws Dirichlet(0.5, 1, ..., 1)
weights with numpy's own Dirichlet sampler, computes θ_left, θ_rope,
θ_right over all pairs (i, j) of (0, z_1, ..., z_K) including i = j, and
counts in how many samples each θ is the largest (ties shared).

Run with Debian's python3-numpy:

    /usr/bin/python3 stats/testdata/bayes_signed_rank.py > stats/testdata/bayes_signed_rank.json
"""
import json

import numpy as np

CASES = [
    {"name": "one_far_right", "z": [1.0], "rope": 0.01},
    {"name": "mixed_four", "z": [0.02, -0.005, 0.015, 0.03], "rope": 0.01},
    {"name": "inside_and_left", "z": [-0.03, 0.004, -0.02, -0.001, -0.015], "rope": 0.01},
    {"name": "spread_six", "z": [0.05, -0.04, 0.012, 0.0, -0.011, 0.02], "rope": 0.01},
    {"name": "near_rope", "z": [0.011, 0.009, 0.012], "rope": 0.01},
]
SAMPLES = 400_000


def probabilities(z, rope, rng):
    zs = np.concatenate([[0.0], np.asarray(z, float)])
    alpha = np.concatenate([[0.5], np.ones(len(z))])
    w = rng.dirichlet(alpha, size=SAMPLES)  # (S, K+1)
    pair = zs[:, None] + zs[None, :]
    left = (pair < -2 * rope).astype(float)
    right = (pair > 2 * rope).astype(float)
    inside = 1.0 - left - right
    # θ = wᵀ M w for each sample.
    th = np.stack([np.einsum("si,ij,sj->s", w, m, w) for m in (left, inside, right)], axis=1)
    best = th.max(axis=1, keepdims=True)
    win = (th == best).astype(float)
    win /= win.sum(axis=1, keepdims=True)
    return win.mean(axis=0)


def main():
    rng = np.random.default_rng(20261205)
    out = []
    for c in CASES:
        p = probabilities(c["z"], c["rope"], rng)
        out.append({**c, "samples": SAMPLES, "left": p[0], "rope_p": p[1], "right": p[2]})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
