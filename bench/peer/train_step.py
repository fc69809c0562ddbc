#!/usr/bin/python3
"""PyTorch CPU peer of one transformer_tiny training step.

A side-by-side speed reference for BenchmarkTrainStep in ./transformer
(forward, MSE loss, backward, Adam). It is a peer, never a dependency: the
Go code does not import, call or read anything from here.

The model mirrors transformer/doc.go exactly:

  h = x @ We^T + be + pos                       (B,T,CIn) -> (B,T,d)
  L pre-LN blocks:
    h = h + gate(proj(attn(ln1(h))))            causal MHA, fused qkv [q|k|v]
    h = h + fc2(gelu_tanh(fc1(ln2(h))))         d -> 4d -> d
  pred = head(ln_f(h))                          (B,T,H) at every position
  loss = mean_{b,t,h} (pred[b,t,h] - y[b,t+1+h])^2,   y (B,T+H)

gate (package gate, fading memory per token):
  u_t = mean_j a_{t,j}^2,  s_t = rho*s_{t-1} + (1-rho)*u_t (s_{-1} = 0),
  out_t = a_t / (1 + beta*s_t);  identity when beta = 0.

Init: weights and pos N(0, 0.02^2), biases 0, LayerNorm gains 1 (values do
not affect speed; the draw differs from Go's PCG stream). Data: as in
bench_test.go, y[i] = sin(0.1*i) over the flat (B,T+H) buffer, x the first
T values of each window. LayerNorm eps 1e-5, Adam(lr 1e-3, betas
(0.9, 0.999), eps 1e-8), float32.

With --vocab V the model is the token model (Config.Vocab): h = E[tokens] +
pos, the same blocks and ln_f, then the head (d -> V) applied to the
labelled rows alone (t/labels of them a sequence) and the mean cross-entropy
there, as TrainStepTokens does.

Output: one benchfmt line per timing round (benchstat reads them) and a
"# median ..." summary line that benchfmt ignores.
"""

import argparse
import ctypes
import math
import statistics
import sys
import time


def aten_cpu(torch):
    """The vector width ATen's CPU kernels dispatch to ("CPU capability
    usage" in torch.__config__.show(): AVX2, AVX512, ...), as run, not as
    requested: ATEN_CPU_CAPABILITY with a value torch does not take is
    ignored."""
    for line in torch.__config__.show().splitlines():
        if "CPU capability usage:" in line:
            return line.split(":", 1)[1].strip()
    return "unknown"


def blas_core():
    """The OpenBLAS kernel family torch's BLAS runs (OPENBLAS_CORETYPE or
    what OpenBLAS detected), or "unknown" when libblas.so.3 is not
    OpenBLAS."""
    try:
        f = ctypes.CDLL("libblas.so.3").openblas_get_corename
        f.restype = ctypes.c_char_p
        return f().decode()
    except (OSError, AttributeError):
        return "unknown"


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gate", choices=["off", "on"], default="off",
                   help="off: beta 0 (identity); on: rho 0.9, beta 0.5")
    p.add_argument("--gate-impl", choices=["matrix", "loop"], default="matrix",
                   help="gate recurrence as one (T,T) decay-matrix product "
                        "(default) or a Python loop over T")
    p.add_argument("--threads", type=int, default=1,
                   help="torch.set_num_threads (default 1, as the Go code is single-threaded)")
    p.add_argument("--steps", type=int, default=200, help="training steps per timing round")
    p.add_argument("--warmup", type=int, default=20, help="untimed steps before the first round")
    p.add_argument("--count", type=int, default=5, help="timing rounds (benchfmt lines)")
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--d", type=int, default=32)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--t", type=int, default=32)
    p.add_argument("--h", type=int, default=8)
    p.add_argument("--cin", type=int, default=1)
    p.add_argument("--patch", type=int, default=1,
                   help="input positions per token (non-overlapping; must divide t), as Config.Patch")
    p.add_argument("--norm", choices=["none", "last"], default="none",
                   help="last: inputs minus the window's last value, added back to the forecast (Config.Norm)")
    p.add_argument("--skip", action="store_true",
                   help="a linear map of the target channel's T inputs added to the forecast (Config.Skip)")
    p.add_argument("--loss", choices=["all", "last"], default="all",
                   help="last: only the last token's forecast is trained (Config.Loss)")
    p.add_argument("--vocab", type=int, default=0,
                   help="a token model (Config.Vocab): token embedding, learned positions, "
                        "a head over the vocabulary at the labelled rows only, cross-entropy")
    p.add_argument("--labels", type=int, default=8,
                   help="labelled positions per sequence of the token model (every t/labels-th, "
                        "labelled with the token before it, as bench_test.go's previousTokenBatch)")
    p.add_argument("--name", choices=["peer", "go"], default="peer",
                   help="peer: BenchmarkTrainStep/gate=X/peer=torch; go: exactly the "
                        "Go benchmark's name (BenchmarkTrainStep/gate=X, plus -N when "
                        "threads != 1, as go test -cpu N prints it)")
    p.add_argument("--bench-name", default="",
                   help="print this benchmark name instead (e.g. "
                        "BenchmarkTrainStepShapes/shape=ett/threads=1, as go test -cpu 1 prints it)")
    return p.parse_args()


def main():
    args = parse_args()
    try:
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
    except ImportError as e:  # skip cleanly
        print("# skip: torch is not importable (%s); install it with "
              "apt-get install python3-torch and run /usr/bin/python3" % e)
        return 0

    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    B, T, D, NH, L, H, CIn = args.batch, args.t, args.d, args.heads, args.layers, args.h, args.cin
    P = args.patch
    if D % NH:
        sys.exit("heads = %d does not divide d = %d" % (NH, D))
    if T % P:
        sys.exit("patch = %d does not divide t = %d" % (P, T))
    N = T // P  # tokens
    rho, beta = (0.9, 0.5) if args.gate == "on" else (0.0, 0.0)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(D, eps=1e-5)
            self.qkv = nn.Linear(D, 3 * D)
            self.proj = nn.Linear(D, D)
            self.ln2 = nn.LayerNorm(D, eps=1e-5)
            self.fc1 = nn.Linear(D, 4 * D)
            self.fc2 = nn.Linear(4 * D, D)

        def attn(self, x):
            b, t, _ = x.shape
            hs = D // NH
            q, k, v = self.qkv(x).split(D, dim=2)  # [q | k | v]
            # head h at columns h*hs .. (h+1)*hs of each -> (B,NH,T,hs)
            q = q.view(b, t, NH, hs).transpose(1, 2)
            k = k.view(b, t, NH, hs).transpose(1, 2)
            v = v.view(b, t, NH, hs).transpose(1, 2)
            s = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(hs))
            s = s.masked_fill(causal_mask[:t, :t], float("-inf"))
            y = F.softmax(s, dim=-1) @ v
            return y.transpose(1, 2).reshape(b, t, D)

        def forward(self, h):
            h = h + gate(self.proj(self.attn(self.ln1(h))))
            h = h + self.fc2(F.gelu(self.fc1(self.ln2(h)), approximate="tanh"))
            return h

    class TransformerTiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Linear(P * CIn, D)
            self.pos_embed = nn.Parameter(torch.zeros(N, D))
            self.skip = nn.Linear(T, H) if args.skip else None
            self.blocks = nn.ModuleList([Block() for _ in range(L)])
            self.ln_f = nn.LayerNorm(D, eps=1e-5)
            self.head = nn.Linear(D, H)
            for name, prm in self.named_parameters():
                if name.endswith(".bias"):
                    nn.init.zeros_(prm)
                elif ".ln" in name or name.startswith("ln_f"):
                    nn.init.ones_(prm)
                else:
                    nn.init.normal_(prm, 0.0, 0.02)

        def forward(self, x):
            # x (B,T,CIn) -> tokens (B,N,P*CIn), position-major within a patch
            last = x[:, -1:, :]
            if args.norm == "last":
                x = x - last
            h = self.embed(x.reshape(x.shape[0], N, P * CIn)) + self.pos_embed
            for blk in self.blocks:
                h = blk(h)
            pred = self.head(self.ln_f(h))  # (B,N,H)
            if args.loss == "last":
                pred = pred[:, -1, :]
                if self.skip is not None:
                    pred = pred + self.skip(x[:, :, 0])
                if args.norm == "last":
                    pred = pred + last[:, :, 0]
            elif self.skip is not None:
                pred = pred + self.skip(x[:, :, 0]).unsqueeze(1)
            return pred

    causal_mask = torch.ones(N, N, dtype=torch.bool).triu(1)
    # decay[t, j] = (1-rho)*rho^(t-j) for j <= t, else 0, over the N tokens: s = decay @ u.
    idx = torch.arange(N, dtype=torch.float64)
    expo = (idx[:, None] - idx[None, :])
    decay = torch.where(expo >= 0, (1 - rho) * torch.pow(torch.tensor(rho, dtype=torch.float64),
                                                         expo.clamp(min=0)),
                        torch.zeros((), dtype=torch.float64)).float()

    def gate(a):
        if beta == 0:
            return a  # identity, as gate.Params.Identity()
        u = (a * a).mean(dim=-1)  # (B,T)
        if args.gate_impl == "matrix":
            s = u @ decay.T  # s[b,t] = sum_j decay[t,j] u[b,j]
        else:
            prev = torch.zeros_like(u[:, 0])
            states = []
            for t in range(a.shape[1]):
                prev = rho * prev + (1 - rho) * u[:, t]
                states.append(prev)
            s = torch.stack(states, dim=1)
        return a / (1 + beta * s).unsqueeze(-1)

    class TokenTiny(nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = nn.Embedding(args.vocab, D)
            self.pos_embed = nn.Parameter(torch.zeros(T, D))
            self.blocks = nn.ModuleList([Block() for _ in range(L)])
            self.ln_f = nn.LayerNorm(D, eps=1e-5)
            self.head = nn.Linear(D, args.vocab)
            for name, prm in self.named_parameters():
                if name.endswith(".bias"):
                    nn.init.zeros_(prm)
                elif ".ln" in name or name.startswith("ln_f"):
                    nn.init.ones_(prm)
                else:
                    nn.init.normal_(prm, 0.0, 0.02)

        def forward(self, tokens, rows):
            h = self.embed(tokens) + self.pos_embed
            for blk in self.blocks:
                h = blk(h)
            z = self.ln_f(h).reshape(-1, D)[rows]  # the labelled rows only
            return self.head(z)  # (M,V)

    if args.vocab:
        if args.patch != 1 or args.cin != 1:
            sys.exit("--vocab takes no --patch or --cin")
        model = TokenTiny()
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)
        g = torch.Generator().manual_seed(1)
        tokens = torch.randint(args.vocab, (B, T), generator=g)
        stride = T // args.labels
        rows = torch.tensor([b * T + p for b in range(B) for p in range(T) if p % stride == stride - 1])
        labels = tokens.reshape(-1)[rows - 1]

        def step():
            opt.zero_grad(set_to_none=False)
            loss = F.cross_entropy(model(tokens, rows), labels)
            loss.backward()
            opt.step()
            return loss
    else:
        model = TransformerTiny()
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8)

        flat = torch.sin(torch.arange(B * (T + H), dtype=torch.float64) * 0.1).float()
        y = flat.view(B, T + H)
        x = y[:, :T].unsqueeze(-1).expand(B, T, CIn).contiguous()
        # target[b,n,h] = y[b, (n+1)*P+h]: the H values after token n's last input
        target = y.unfold(1, H, 1)[:, P:T + 1:P, :].contiguous()  # (B,N,H)
        if args.loss == "last":
            target = y[:, T:T + H].contiguous()  # (B,H)

        def step():
            opt.zero_grad(set_to_none=False)  # Go clears its gradient buffer too
            loss = F.mse_loss(model(x), target)
            loss.backward()
            opt.step()
            return loss

    for _ in range(args.warmup):
        step()

    if args.name == "go":
        name = "BenchmarkTrainStep/gate=%s" % args.gate
        if args.threads != 1:
            name += "-%d" % args.threads
    else:
        name = "BenchmarkTrainStep/gate=%s/peer=torch" % args.gate
        if args.threads != 1:
            name += "-%d" % args.threads

    if args.bench_name:
        name = args.bench_name

    # Same pkg as the Go benchmark so benchstat lines the two up.
    print("pkg: github.com/ideabench/ideabench/transformer")
    print("peer: torch %s threads=%d gate-impl=%s blas-core=%s aten-cpu=%s"
          % (torch.__version__, args.threads, args.gate_impl, blas_core(),
             aten_cpu(torch)))
    ms = []
    loss = None
    for _ in range(args.count):
        t0 = time.perf_counter_ns()
        for _ in range(args.steps):
            loss = step()
        ns = (time.perf_counter_ns() - t0) / args.steps
        ms.append(ns / 1e6)
        print("%s \t %d \t %.0f ns/op \t %.4f ms/step" % (name, args.steps, ns, ns / 1e6), flush=True)
    med = statistics.median(ms)
    print("# median %s = %.4f ms/step over %d rounds of %d steps (min %.4f, max %.4f), last loss %.6g"
          % (name, med, len(ms), args.steps, min(ms), max(ms), float(loss)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
