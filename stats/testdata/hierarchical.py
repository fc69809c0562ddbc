#!/usr/bin/env python3
"""Reference numbers for stats.HierarchicalModel, computed independently of
the Go sampler: the hierarchical model of Corani, Benavoli, Demšar, Mangili
and Zaffalon (2017, Machine Learning 106(11)) with uncorrelated seeds,
sampled here by an adaptive component-wise random-walk Metropolis on the
full joint posterior (no scale mixture, no Gibbs steps), with numpy.

Model, on the data scaled by s̄ (the mean of the tracks' standard
deviations, ddof 0), as in the authors' reference implementation:

    x_ki ~ N(δ_k, σ_k²),  δ_k ~ t_ν(δ_0, σ_0),  σ_k ~ U(0, 1000)
    δ_0 ~ U(-max|x|, max|x|),  σ_0 ~ U(0, 1000·sd(x̄_k))
    ν = 1 + m,  m ~ Gamma(a, b) (rate b),  a ~ U(1, 2),  b ~ U(0.01, 0.1)

For each posterior sample the next track's δ lies left of the ROPE,
inside or right with the Student t's probabilities; the reported numbers
are the shares of samples in which each is the largest.

    /usr/bin/python3 stats/testdata/hierarchical.py > stats/testdata/hierarchical.json
"""
import json
import math

import numpy as np


def betacf(a, b, x):
    # Continued fraction of the regularized incomplete beta (modified Lentz).
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 400):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (d if abs(d) > tiny else tiny)
        c = 1 + aa / c
        c = c if abs(c) > tiny else tiny
        de = d * c
        h *= de
        if abs(de - 1) < 1e-15:
            break
    return h


def betainc(a, b, x):
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    lbt = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x)
    if x < (a + 1) / (a + b + 2):
        return math.exp(lbt) * betacf(a, b, x) / a
    return 1 - math.exp(lbt) * betacf(b, a, 1 - x) / b


def t_cdf(y, nu, mu, sigma):
    t = (y - mu) / sigma
    tail = 0.5 * betainc(nu / 2, 0.5, nu / (nu + t * t))
    return 1 - tail if t > 0 else tail


def log_post(th, z, bounds):
    K = len(z)
    d0, ls0 = th[0], th[1]
    deltas, lsig = th[2:2 + K], th[2 + K:2 + 2 * K]
    lm, a, b = th[2 + 2 * K], th[3 + 2 * K], th[4 + 2 * K]
    maxabs, s_hi, s0_hi = bounds
    s0, sig, m = math.exp(ls0), np.exp(lsig), math.exp(lm)
    if abs(d0) > maxabs or s0 > s0_hi or np.any(sig > s_hi) or not (1 < a < 2) or not (0.01 < b < 0.1):
        return -math.inf
    nu = 1 + m
    lp = 0.0
    for k in range(K):
        r = z[k] - deltas[k]
        lp += -len(z[k]) * lsig[k] - 0.5 * np.sum(r * r) / sig[k] ** 2
    u = (deltas - d0) / s0
    lp += np.sum(math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi) - ls0
                 - (nu + 1) / 2 * np.log1p(u * u / nu))
    lp += a * math.log(b) - math.lgamma(a) + (a - 1) * lm - b * m
    # Jacobians of the log parameters (uniform priors on σ_0, σ_k; m's).
    lp += ls0 + np.sum(lsig) + lm
    return lp


def sample(x, rope, rng, burn=20000, keep=120000):
    x = [np.asarray(r, float) for r in x]
    sbar = np.mean([np.std(r) for r in x])
    z = [r / sbar for r in x]
    rope = rope / sbar
    means = np.array([np.mean(r) for r in z])
    among = np.std(means) or 1.0
    bounds = (max(np.max(np.abs(r)) for r in z), 1000.0, 1000 * among)
    K = len(z)
    th = np.concatenate([[means.mean(), math.log(max(among, 1e-3))], means,
                         np.log([max(np.std(r), 1e-3) for r in z]), [math.log(10.0), 1.5, 0.05]])
    step = np.full(len(th), 0.3)
    step[-2], step[-1] = 0.2, 0.02
    lp = log_post(th, z, bounds)
    acc = np.zeros(len(th))
    counts = np.zeros(3)
    d0sum = 0.0
    for it in range(burn + keep):
        for j in range(len(th)):
            prop = th.copy()
            prop[j] += step[j] * rng.standard_normal()
            lq = log_post(prop, z, bounds)
            if math.log(rng.random()) < lq - lp:
                th, lp = prop, lq
                acc[j] += 1
        if it < burn and (it + 1) % 200 == 0:
            # Adapt each step toward a 0.44 acceptance rate, then freeze.
            rate = acc / 200
            step *= np.exp(rate - 0.44)
            acc[:] = 0
        if it >= burn:
            d0, s0, nu = th[0], math.exp(th[1]), 1 + math.exp(th[2 + 2 * K])
            pl = t_cdf(-rope, nu, d0, s0)
            pr = 1 - t_cdf(rope, nu, d0, s0)
            p = [pl, 1 - pl - pr, pr]
            counts[int(np.argmax(p))] += 1
            d0sum += d0 * sbar
    return counts / keep, d0sum / keep


def main():
    rng = np.random.default_rng(20261205)
    gen = np.random.default_rng(7)
    cases = [
        ("better_four", [0.03, 0.05, 0.04, 0.06], 0.01, 8),
        ("mixed_three", [0.03, -0.02, 0.01], 0.01, 8),
        ("two_tracks", [0.02, 0.03], 0.01, 8),
        ("near_null", [0.004, -0.002, 0.001, 0.006, -0.003], 0.004, 6),
    ]
    out = []
    for name, mus, sd, n in cases:
        x = [list(np.round(mu + sd * gen.standard_normal(n), 6)) for mu in mus]
        p, d0 = sample(x, 0.01, rng)
        out.append({"name": name, "x": x, "rope": 0.01, "p_worse": p[0], "p_equivalent": p[1], "p_better": p[2], "delta0": d0})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
