#!/usr/bin/env python3
"""A small patch transformer, trained as an ideabench external trainer.

ideabench runs this once per trial as

    python3 train.py [--idea gate] TRIAL.json

TRIAL.json names the cfg (lr, epochs, rho, beta, weight_decay, schedule,
warmup, clip, patience, epoch_windows), the seed, the model size (arch: d,
heads, layers, batch, patch), the exported train/val/test windows and the
folder `out` to write into. This script writes there what the contract asks
(docs/external.md):

    start_val.csv, start_test.csv   the untrained model's forecasts
    val.csv, test.csv               the trained model's forecasts
    result.json                     per-epoch val metric and training loss

ideabench scores the forecasts itself, on its own copy of the targets.

The model is the built-in one (package transformer) in PyTorch: patches of
`patch` positions embedded with a learned positional embedding, pre-LayerNorm
causal transformer blocks, a final LayerNorm and a head forecasting the next
h values from every token (all trained with loss "all"; the last token's
forecast is scored), with arch's norm and skip path. `--idea gate` puts the
per-token fading-memory gate on each block's attention branch (after its
output projection), at the cfg's rho and beta:

    u_t = mean_j a_tj^2,  s_t = rho s_{t-1} + (1-rho) u_t,  g_t = 1/(1+beta s_t),  y_t = g_t a_t

On a token track (the trial file names a vocab: mqar, forget-mqar, recall,
...) the model is the built-in token model instead: a token embedding, learned
positions (or none, arch.positions), the same blocks, a final LayerNorm and a
vocabulary head, trained on the cross-entropy of the labelled positions. It
writes, for each labelled position of val and test in order, the sequence,
the position and the log-probability of every token id; ideabench computes
cross-entropy and accuracy from them on its own copy of the labels.

Everything random is drawn from the trial's seed, with deterministic kernels
on one thread, so a rerun of a trial gives the same forecasts bit for bit
(ideabench checks that on one trial of every run).
"""
import argparse
import json
import math
import os
import sys

import numpy as np
import torch
import torch.nn as nn


def load_windows(path, channels, target, t, h):
    """Windows of one split: inputs (N, T, C) and targets (N, H); the test
    file holds no targets (None)."""
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    head = lines[0].strip().split(",")
    data = np.loadtxt(lines[1:], delimiter=",", dtype=np.float64, ndmin=2)
    col = {name: i for i, name in enumerate(head)}
    x = np.stack([data[:, [col[f"x.{ch}.{k}"] for k in range(t)]] for ch in channels], axis=-1)
    x = torch.tensor(x, dtype=torch.float32)
    if f"y.{target}.1" not in col:
        return x, None
    y = data[:, [col[f"y.{target}.{k}"] for k in range(1, h + 1)]]
    return x, torch.tensor(y, dtype=torch.float32)


class Gate(nn.Module):
    """The fading-memory gate on a branch's output a (B, L, D)."""

    def __init__(self, rho, beta):
        super().__init__()
        self.rho, self.beta = rho, beta

    def forward(self, a):
        u = (a * a).mean(-1)
        s = torch.zeros_like(u[:, 0])
        states = []
        for k in range(u.shape[1]):
            s = self.rho * s + (1 - self.rho) * u[:, k]
            states.append(s)
        g = 1 / (1 + self.beta * torch.stack(states, 1))
        return a * g.unsqueeze(-1)


class Block(nn.Module):
    """h = h + gate(proj(attn(ln1(h)))); h = h + fc2(gelu(fc1(ln2(h)))).

    The attention is written out as the built-in model's: a fused qkv
    linear, causal softmax, the output projection.
    """

    def __init__(self, d, heads, gate):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.heads = heads
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))
        self.gate = gate

    def forward(self, x, mask):
        b, n, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        w = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // self.heads) + mask, -1)
        a = self.proj((w @ v).transpose(1, 2).reshape(b, n, d))
        if self.gate is not None:
            a = self.gate(a)
        x = x + a
        return x + self.mlp(self.ln2(x))


class PatchTransformer(nn.Module):
    """The built-in model's architecture (package transformer) in PyTorch.

    Tokens are patches of `patch` positions (all channels), embedded with a
    learned positional embedding; every token forecasts the next h values
    of the target channel (the last token's forecast is the one scored).
    arch.norm "last" subtracts each window's last value and "revin" its
    mean and standard deviation (per channel), both undone on the forecast;
    arch.skip adds a linear map of the target channel's window to the last
    token's forecast, started at the least-squares fit on the train windows.
    """

    def __init__(self, t, c, h, target, arch, gate):
        super().__init__()
        self.patch = max(arch.get("patch", 0), 1)
        if t % self.patch:
            raise ValueError(f"arch.patch = {self.patch} does not divide the look-back {t}")
        d, heads, layers = arch["d"], arch["heads"], arch["layers"]
        self.t, self.h, self.tokens, self.target = t, h, t // self.patch, target
        self.norm = arch.get("norm", "")
        self.embed = nn.Linear(self.patch * c, d)
        self.pos = nn.Parameter(torch.zeros(self.tokens, d))
        self.blocks = nn.ModuleList([Block(d, heads, gate) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, h)
        self.skip = nn.Linear(t, h) if arch.get("skip") else None
        self.register_buffer("mask", torch.triu(torch.full((self.tokens, self.tokens), float("-inf")), 1))
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif p.dim() > 1 or name == "pos":
                nn.init.normal_(p, std=0.02)
        if self.skip is not None:
            # The model starts as its skip path alone (fit_skip).
            nn.init.zeros_(self.head.weight)

    def normalize(self, x):
        """Window statistics (shift, scale), each (B, 1, C)."""
        if self.norm == "last":
            return x[:, -1:, :], torch.ones_like(x[:, -1:, :])
        if self.norm == "revin":
            return x.mean(1, keepdim=True), torch.sqrt(x.var(1, unbiased=False, keepdim=True) + 1e-5)
        return torch.zeros_like(x[:, :1, :]), torch.ones_like(x[:, :1, :])

    def forward(self, x, every=False):
        """Forecasts (B, H) of the last token, or (B, L, H) of every token."""
        shift, scale = self.normalize(x)
        z = (x - shift) / scale
        hid = self.embed(z.reshape(x.shape[0], self.tokens, -1)) + self.pos
        for b in self.blocks:
            hid = b(hid, self.mask)
        f = self.head(self.ln(hid))
        if self.skip is not None:
            f = torch.cat([f[:, :-1], (f[:, -1] + self.skip(z[:, :, self.target])).unsqueeze(1)], 1)
        k = self.target
        f = f * scale[:, :, k : k + 1] + shift[:, :, k : k + 1]
        return f if every else f[:, -1]

    @torch.no_grad()
    def fit_skip(self, x, y):
        """Starts the skip path at the least-squares map of the train windows."""
        shift, scale = self.normalize(x)
        k = self.target
        z = ((x - shift) / scale)[:, :, k].double()
        r = ((y - shift[:, :, k]) / scale[:, :, k]).double()
        a = torch.cat([z, torch.ones(len(z), 1, dtype=z.dtype)], 1)
        # The normal equations with a small ridge: lagged inputs of a
        # smooth series are nearly collinear, and lstsq's rank decision on
        # them moved from run to run (the rerun check caught it on the
        # illness track); the ridge keeps the solve well posed.
        g = a.T @ a
        g += 1e-8 * g.diagonal().mean() * torch.eye(len(g), dtype=g.dtype)
        sol = torch.linalg.solve(g, a.T @ r)
        self.skip.weight.copy_(sol[:-1].T.float())
        self.skip.bias.copy_(sol[-1].float())


class TokenTransformer(nn.Module):
    """The built-in token model (package transformer, Config.Vocab) in
    PyTorch: token embedding plus learned positions (none with
    arch.positions "none"), the blocks, a final LayerNorm and a head over
    the vocabulary at every position."""

    def __init__(self, vocab, t, arch, gate):
        super().__init__()
        d, heads, layers = arch["d"], arch["heads"], arch["layers"]
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(t, d)) if arch.get("positions", "") != "none" else None
        self.blocks = nn.ModuleList([Block(d, heads, gate) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)
        self.register_buffer("mask", torch.triu(torch.full((t, t), float("-inf")), 1))
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif p.dim() > 1 or name == "pos":
                nn.init.normal_(p, std=0.02)

    def forward(self, tokens):
        """Logits (B, T, V)."""
        hid = self.embed(tokens)
        if self.pos is not None:
            hid = hid + self.pos
        for b in self.blocks:
            hid = b(hid, self.mask)
        return self.head(self.ln(hid))


def load_tokens(path, t):
    """Sequences of one split: tokens (N, T) and labels (N, T), -1 where a
    position is not scored; the test file flags the scored positions
    (scored.<t>) and withholds the labels, which come back as 0 there."""
    with open(path) as f:
        lines = [line for line in f if not line.startswith("#")]
    head = lines[0].strip().split(",")
    data = np.loadtxt(lines[1:], delimiter=",", dtype=np.int64, ndmin=2)
    tokens = torch.from_numpy(data[:, 1 : t + 1].copy())
    rest = torch.from_numpy(data[:, t + 1 : 2 * t + 1].copy())
    if head[t + 1] == "scored.0":
        rest = torch.where(rest == 1, 0, -1)
    return tokens, rest


@torch.no_grad()
def token_scores(model, tokens, labels, batch=256):
    """The log-probabilities (M, V) at the labelled positions, in order."""
    model.eval()
    out = []
    for i in range(0, len(tokens), batch):
        lp = torch.log_softmax(model(tokens[i : i + batch]).double(), -1)
        out.append(lp[labels[i : i + batch] >= 0])
    model.train()
    return torch.cat(out)


def token_ce(model, tokens, labels):
    lp = token_scores(model, tokens, labels)
    y = labels[labels >= 0]
    return -lp[torch.arange(len(y)), y].mean().item()


def write_token_scores(path, lp, labels):
    where = (labels >= 0).nonzero().tolist()
    lp = lp.numpy()
    with open(path, "w") as w:
        w.write("sequence,position," + ",".join(f"lp.{j}" for j in range(lp.shape[1])) + "\n")
        for (n, k), row in zip(where, lp):
            w.write(f"{n},{k}," + ",".join(repr(float(v)) for v in row) + "\n")


def train_tokens(tr, cfg, arch, out, gate, rng):
    """The token track's trial: train on the labelled positions'
    cross-entropy, early stopping on val, scores written to out."""
    t = tr["t"]
    xtr, ytr = load_tokens(tr["train"], t)
    xva, yva = load_tokens(tr["val"], t)
    xte, yte = load_tokens(tr["test"], t)
    model = TokenTransformer(tr["vocab"], t, arch, gate)
    write_token_scores(os.path.join(out, "start_val.csv"), token_scores(model, xva, yva), yva)
    write_token_scores(os.path.join(out, "start_test.csv"), token_scores(model, xte, yte), yte)

    def loss_of(idx):
        logits = model(xtr[idx])
        y = ytr[idx]
        keep = y >= 0
        return nn.functional.cross_entropy(logits[keep], y[keep]) if keep.any() else None

    val_curve, epoch_loss, best_epoch = fit(model, cfg, arch, len(xtr), rng, loss_of, lambda: token_ce(model, xva, yva))
    if best_epoch is None:
        with open(os.path.join(out, "result.json"), "w") as w:
            json.dump({"diverged": True}, w)
        return
    write_token_scores(os.path.join(out, "val.csv"), token_scores(model, xva, yva), yva)
    write_token_scores(os.path.join(out, "test.csv"), token_scores(model, xte, yte), yte)
    with open(os.path.join(out, "result.json"), "w") as w:
        json.dump({"val_curve": val_curve, "epoch_loss": epoch_loss, "best_epoch": best_epoch}, w)


def fit(model, cfg, arch, n, rng, loss_of, val_of):
    """The cfg's training: epochs of seeded batches (epoch_windows of them
    per epoch where set), AdamW under the schedule, clipping, the val
    metric after each epoch and, with patience, early stopping back to the
    best val epoch's weights. Returns the val curve, the epoch losses and
    the best epoch, or best_epoch None when training diverged."""
    # Weight decay on the weight matrices and embeddings only, as the
    # built-in model: not on biases or LayerNorm gains.
    decayed = [p for p in model.parameters() if p.dim() >= 2]
    kept = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decayed, "weight_decay": cfg.get("weight_decay", 0)}, {"params": kept, "weight_decay": 0}], lr=cfg["lr"]
    )
    batch = arch.get("batch", 32)
    per_epoch = min(cfg.get("epoch_windows", 0) or n, n)
    steps = cfg["epochs"] * math.ceil(per_epoch / batch)
    patience, clip = cfg.get("patience", 0), cfg.get("clip", 0)
    best_val, best_epoch, best_state = float("inf"), 0, None
    if patience:
        best_val = val_of()
        best_state = {k: v.clone() for k, v in model.state_dict().items()}
    val_curve, epoch_loss, step = [], [], 0
    for epoch in range(1, cfg["epochs"] + 1):
        order = rng.permutation(n)[:per_epoch]
        total = 0.0
        for i in range(0, per_epoch, batch):
            idx = torch.from_numpy(order[i : i + batch])
            for g in opt.param_groups:
                g["lr"] = lr_at(cfg, step, steps)
            loss = loss_of(idx)
            step += 1
            if loss is None:
                continue  # no position to score: no step
            opt.zero_grad()
            loss.backward()
            if clip:
                nn.utils.clip_grad_norm_(model.parameters(), clip)
            opt.step()
            total += loss.item() * len(idx)
        val = val_of()
        if not (math.isfinite(total) and math.isfinite(val)):
            return None, None, None
        val_curve.append(val)
        epoch_loss.append(total / per_epoch)
        if patience:
            if val < best_val:
                best_val, best_epoch = val, epoch
                best_state = {k: v.clone() for k, v in model.state_dict().items()}
            elif epoch - best_epoch >= patience:
                break
    if patience:
        model.load_state_dict(best_state)
    else:
        best_epoch = len(val_curve)
    return val_curve, epoch_loss, best_epoch


def every_target(x, y, target, patch, tokens):
    """Each token's targets (B, L, H): the next h values of the target
    channel after its patch, from the window's inputs and targets."""
    full = torch.cat([x[:, :, target], y], 1)
    h = y.shape[1]
    return torch.stack([full[:, (k + 1) * patch : (k + 1) * patch + h] for k in range(tokens)], 1)


def lr_at(cfg, step, total):
    """The cfg's schedule: linear warmup, then constant, cosine or linear decay."""
    lr, warm = cfg["lr"], math.ceil(cfg.get("warmup", 0) * total)
    if step < warm:
        return lr * (step + 1) / warm
    frac = (step - warm) / max(total - warm, 1)
    sched = cfg.get("schedule", "") or "constant"
    if sched == "cosine":
        return lr * 0.5 * (1 + math.cos(math.pi * frac))
    if sched == "linear":
        return lr * (1 - frac)
    return lr


@torch.no_grad()
def forecast(model, x, batch=512):
    model.eval()
    out = torch.cat([model(x[i : i + batch]) for i in range(0, len(x), batch)])
    model.train()
    return out


def write_forecasts(path, f):
    f = f.double().numpy()
    with open(path, "w") as w:
        w.write("window," + ",".join(f"f{k}" for k in range(1, f.shape[1] + 1)) + "\n")
        for n, row in enumerate(f):
            w.write(f"{n}," + ",".join(repr(float(v)) for v in row) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--idea", choices=["gate"], help="train the idea: the fading-memory gate at the cfg's rho and beta")
    ap.add_argument("trial", help="the trial file ideabench writes")
    args = ap.parse_args()
    with open(args.trial) as f:
        tr = json.load(f)
    cfg, arch, out = tr["cfg"], tr["arch"], tr["out"]

    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(tr["seed"])
    rng = np.random.default_rng(tr["seed"])

    if cfg.get("idea", "") not in ("", "gate"):
        sys.exit(f"cfg idea {cfg['idea']!r}: this trainer knows the gate only (--idea gate)")
    gate = None
    if args.idea == "gate":
        if not cfg.get("beta", 0) > 0:
            sys.exit(f"--idea gate needs beta > 0 in the cfg, got {cfg.get('beta')}")
        gate = Gate(cfg["rho"], cfg["beta"])
    if tr.get("vocab"):
        train_tokens(tr, cfg, arch, out, gate, rng)
        return

    chans, t, h = tr["channels"], tr["t"], tr["h"]
    target = chans.index(tr["target"])
    xtr, ytr = load_windows(tr["train"], chans, tr["target"], t, h)
    xva, yva = load_windows(tr["val"], chans, tr["target"], t, h)
    xte, _ = load_windows(tr["test"], chans, tr["target"], t, h)

    model = PatchTransformer(t, len(chans), h, target, arch, gate)
    if model.skip is not None:
        model.fit_skip(xtr, ytr)
    every = arch.get("loss", "") in ("", "all")
    if every:
        ytr = every_target(xtr, ytr, target, model.patch, model.tokens)
    write_forecasts(os.path.join(out, "start_val.csv"), forecast(model, xva))
    write_forecasts(os.path.join(out, "start_test.csv"), forecast(model, xte))

    def loss_of(idx):
        return torch.mean((model(xtr[idx], every) - ytr[idx]) ** 2)

    val_curve, epoch_loss, best_epoch = fit(
        model, cfg, arch, len(xtr), rng, loss_of, lambda: torch.mean((forecast(model, xva) - yva) ** 2).item()
    )
    if best_epoch is None:
        with open(os.path.join(out, "result.json"), "w") as w:
            json.dump({"diverged": True}, w)
        return
    write_forecasts(os.path.join(out, "val.csv"), forecast(model, xva))
    write_forecasts(os.path.join(out, "test.csv"), forecast(model, xte))
    with open(os.path.join(out, "result.json"), "w") as w:
        json.dump({"val_curve": val_curve, "epoch_loss": epoch_loss, "best_epoch": best_epoch}, w)


if __name__ == "__main__":
    main()
