#!/usr/bin/python3
"""The benchmark workloads of //experiments:bench in PyTorch, written as a researcher would
(autograd, torch.optim, batched tensor ops). Each prints one JSON line: the median seconds of a
training step (batch, forward, loss, backward, optimizer update) over at least --seconds and
--min-steps after one warm-up step, the thread count, and PyTorch's BLAS.

    /usr/bin/python3 tools/compare_pytorch/workloads.py WORKLOAD --threads N [--seconds S]
                                                        [--min-steps N] [--keep-denormals]
    /usr/bin/python3 tools/compare_pytorch/workloads.py peak --threads N   # GEMM and copy peaks

Workloads (the attnlab side: experiments/workloads/*.textproto, and BM_LanguageModelStep):
p1_tiny, p1_large, p3_spe, p3_fixed, p3_fc1024, lm, vit_softmax, vit_rpc, the ViTs with
gradient accumulation over micro-batches of 8, 16, 32 and 64 (vit_softmax_micro8 ...), and
paper 3's with the other subset draw (p3_fixed_multinomial ...). Each step
counts its nominal FLOPs and the bytes it must move at least (our estimate, beside each).
tools/compare_pytorch/compare runs both sides alternately and prints the table.
"""
import argparse
import ctypes
import json
import math
import statistics
import sys
import time

try:
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
except ImportError:
    sys.exit(f"needs PyTorch for {sys.executable}: apt-get install python3-torch, or pass compare "
             "--python a Python that has it")


def blas_core():
    """The BLAS this PyTorch runs: the OpenBLAS kernel family (e.g. "OpenBLAS SkylakeX") where it
    was built with a generic BLAS (Debian's), else its build's BLAS_INFO (pip's wheels: mkl)."""
    built_with = "unknown"
    for field in torch.__config__.show().replace(",", " ").split():
        if field.startswith("BLAS_INFO="):
            built_with = field[len("BLAS_INFO="):]
    if built_with not in ("generic", "open", "unknown"):
        return built_with
    for name in ("libopenblas.so.0", "libopenblasp.so.0", "libblas.so.3"):
        try:
            lib = ctypes.CDLL(name)
            lib.openblas_get_corename.restype = ctypes.c_char_p
            return "OpenBLAS " + lib.openblas_get_corename().decode()
        except (OSError, AttributeError):
            continue
    return built_with


# Paper 1: f(X) = v^T X^T softmax(X W p), W = I and v fixed, p trained by normalized GD on the
# logistic loss, double precision, the whole (planted) training set every step. Written as
# softmax(X (W p)) . (X v) with torch.mv on the n T x d token matrix: three passes over X per step
# (scores, X v, and the gradient X^T g), where the batched form (X^T softmax) v costs about twice.
def p1(n, seq_len, dim):
    torch.manual_seed(1)
    x = torch.randn(n, seq_len, dim, dtype=torch.float64) * 0.2
    x[:, 0, 0] += 1
    tokens = x.reshape(n * seq_len, dim)
    y = torch.ones(n, dtype=torch.float64)
    w = torch.eye(dim, dtype=torch.float64)
    v = torch.zeros(dim, dtype=torch.float64)
    v[-1] = 1
    p = torch.zeros(dim, dtype=torch.float64)
    p[0] = 0.1
    p.requires_grad_(True)

    def step():
        scores = torch.mv(tokens, torch.mv(w, p)).view(n, seq_len)
        out = (torch.softmax(scores, 1) * torch.mv(tokens, v).view(n, seq_len)).sum(1)
        loss = F.softplus(-y * out).mean()
        (grad,) = torch.autograd.grad(loss, p)
        with torch.no_grad():
            p.sub_(0.1 * grad / grad.norm())
    # X (W p), X v and X^T g: 2 n T d each; bytes: one pass over X (doubles), which the three
    # products can share
    return step, 3 * 2.0 * n * seq_len * dim, 8.0 * n * seq_len * dim


# Each sample's q-subset of the T positions, drawn uniformly without replacement: the candidate
# formulations, each a workload of its own (p3_fixed_multinomial, ...), raced by compare, which
# keeps the fastest and says when it is not the default (topk of random keys: no full sort; a
# full argsort of the keys measured twice as slow, BENCHMARKS).
SUBSET_DRAWS = {
    "topk": lambda batch, seq_len, q: torch.rand(batch, seq_len).topk(q, dim=1).indices,
    "multinomial": lambda batch, seq_len, q: torch.multinomial(torch.ones(batch, seq_len), q),
}


# Paper 3: STS_q, T = 200, q = 3, d = 5; f(X, y) = sum_i softmax_i(p_i^T W q) x_i,
# q = sum_{j in y} p_j.
def sts_batch(batch=256, seq_len=200, q=3, dim=5, draw="topk"):
    x = torch.randn(batch, seq_len, dim)
    subset = SUBSET_DRAWS[draw](batch, seq_len, q)
    target = torch.gather(x, 1, subset.unsqueeze(2).expand(-1, -1, dim)).mean(1)
    return x, subset, target


def p3_attention(stochastic, de=170, batch=256, seq_len=200, draw="topk"):
    torch.manual_seed(1)
    w = torch.zeros(de, de, requires_grad=True)
    fixed = torch.randn(seq_len, de) / math.sqrt(de)
    optimizer = torch.optim.SGD([w], lr=1.0)

    def step():
        x, subset, target = sts_batch(batch, seq_len, draw=draw)
        if stochastic:
            pos = torch.randn(batch, seq_len, de) / math.sqrt(de)
            query = torch.gather(pos, 1, subset.unsqueeze(2).expand(-1, -1, de)).sum(1)  # [B, de]
            scores = (pos @ (query @ w.T).unsqueeze(2)).squeeze(2)                         # [B, T]
        else:  # shared encodings: the scores of the whole batch are one product
            query = fixed[subset].sum(1)
            scores = (query @ w.T) @ fixed.T
        out = (torch.softmax(scores, 1).unsqueeze(1) @ x).squeeze(1)
        loss = 0.5 * ((out - target) ** 2).sum(1).mean()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    # W q and the scores, each forward and one gradient: 2 (2 B de^2 + 2 B T de). Only W
    # learns, so the step needs the gradients of W and of W q, not those of the subset's
    # encodings (query) or of the encodings themselves, and autograd computes neither. Bytes:
    # the tokens drawn and read twice, the scores four times, the shared encodings three times,
    # W and its gradient four times (stochastic encodings need not be stored: an exact sampler
    # draws each sample's scores directly, as attnlab's PROJECTED does).
    moved = 4.0 * (3 * batch * seq_len * 5 + 4 * batch * seq_len + 3 * seq_len * de
                   + 4 * de * de)
    return step, 2 * (2.0 * batch * de * de + 2.0 * batch * seq_len * de), moved


def p3_fc(width=1024, batch=256, seq_len=200, dim=5, draw="topk"):
    torch.manual_seed(1)
    net = nn.Sequential(nn.Flatten(), nn.Linear(seq_len * (dim + 1), width), nn.ReLU(),
                        nn.Linear(width, dim))
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)

    def step():
        x, subset, target = sts_batch(batch, seq_len, dim=dim, draw=draw)
        marks = torch.zeros(batch, seq_len, 1).scatter_(1, subset.unsqueeze(2), 1.0)
        loss = 0.5 * ((net(torch.cat([x, marks], 2)) - target) ** 2).sum(1).mean()
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    # forward and the weight gradients; the input needs no gradient (the net's first layer).
    # Bytes: the first layer's weights read twice, its gradient written, and Adam's read of the
    # weights, gradient and two moments and write of three; the inputs read twice.
    weights = seq_len * (dim + 1) * width + width * dim
    moved = 4.0 * (10 * weights + 2 * batch * seq_len * (dim + 1))
    return step, 2 * 2.0 * batch * (seq_len * (dim + 1) * width + width * dim), moved


# Paper 2: 1-layer Post-LN LM, T = 64, batch 64, d = 128, one head, vocabulary 33,278, AdamW.
class LanguageModel(nn.Module):
    def __init__(self, vocab=33278, dim=128, seq_len=64):
        super().__init__()
        self.tokens = nn.Embedding(vocab, dim)
        self.positions = nn.Parameter(torch.randn(seq_len, dim) / dim ** 0.5)
        self.block = nn.TransformerEncoderLayer(dim, nhead=1, dim_feedforward=dim, dropout=0.0,
                                                batch_first=True, norm_first=False)
        self.head = nn.Linear(dim, vocab)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(seq_len))

    def forward(self, ids):
        h = self.tokens(ids) + self.positions
        return self.head(self.block(h, src_mask=self.mask))


def lm(vocab=33278, batch=64, seq_len=64, dim=128):
    torch.manual_seed(1)
    model = LanguageModel(vocab, dim, seq_len)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    ids = torch.randint(0, vocab, (batch, seq_len))
    nxt = torch.randint(0, vocab, (batch, seq_len))

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(ids).reshape(-1, vocab), nxt.reshape(-1))
        loss.backward()
        optimizer.step()
    tokens = batch * seq_len
    block = (2.0 * tokens * (4 * dim * dim + 2 * dim * dim)
             + 2 * 2.0 * batch * seq_len * seq_len * dim)
    # Bytes: the logits written, read by the loss, their gradient written and read twice (the
    # head's weight and input gradients); the head and the embedding through AdamW (ten passes).
    moved = 4.0 * (5 * tokens * vocab + 10 * 2 * vocab * dim)
    return step, 3 * (2.0 * tokens * dim * vocab + block), moved


# Paper 4: a ViT with symmetric (keys-only) attention, optionally RPC-Attention (PAP) in the
# first layer, on 28 x 28 x 1 images, patch 4, width 64, 4 heads of 16, MLP 128, Pre-LN.
class SymmetricAttention(nn.Module):
    def __init__(self, dim=64, heads=4, pap_iterations=0, lam=4.0):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.o = nn.Linear(dim, dim)
        self.pap_iterations, self.lam = pap_iterations, lam

    def attend(self, k, v):
        return torch.softmax(k @ k.transpose(-1, -2) / math.sqrt(self.head_dim), -1) @ v

    def forward(self, x):
        b, n, c = x.shape
        k = self.k(x).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        v = self.v(x).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        if self.pap_iterations == 0:
            out = self.attend(k, v)
        else:  # Principal Attention Pursuit, as in the authors' code
            mu = n * c / (4 * k.abs().sum((-1, -2), keepdim=True))
            low = torch.zeros_like(k)
            dual = torch.zeros_like(k)
            for _ in range(self.pap_iterations):
                r = k - low + dual / mu
                sparse = torch.sign(r) * F.relu(r.abs() - self.lam * mu)
                low = self.attend(k - sparse - dual / mu, v)
                dual = dual + mu * (k - low - sparse)
            out = low
        return self.o(out.transpose(1, 2).reshape(b, n, c))


class Block(nn.Module):
    def __init__(self, dim=64, pap_iterations=0):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = SymmetricAttention(dim, 4, pap_iterations)
        self.mlp = nn.Sequential(nn.Linear(dim, 128), nn.GELU(), nn.Linear(128, dim))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class Vit(nn.Module):
    def __init__(self, pap_iterations, dim=64, patch=4, classes=10):
        super().__init__()
        self.patch = patch
        self.embed = nn.Linear(patch * patch, dim)
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.positions = nn.Parameter(torch.randn(1, (28 // patch) ** 2 + 1, dim) * 0.02)
        self.blocks = nn.Sequential(Block(dim, pap_iterations), Block(dim, 0))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, images):  # [B, 1, 28, 28]
        p = self.patch
        patches = images.unfold(2, p, p).unfold(3, p, p).reshape(images.shape[0], -1, p * p)
        x = torch.cat([self.cls.expand(images.shape[0], -1, -1), self.embed(patches)], 1)
        x = self.norm(self.blocks(x + self.positions))
        return self.head(x[:, 0])


def vit(pap_iterations, batch=128, micro_batch=0):
    torch.manual_seed(1)
    model = Vit(pap_iterations)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    images = torch.randn(1000, 1, 28, 28)
    labels = torch.randint(0, 10, (1000,))

    def step():
        pick = torch.randperm(1000)[:batch]
        optimizer.zero_grad(set_to_none=True)
        if micro_batch == 0:
            F.cross_entropy(model(images[pick]), labels[pick]).backward()
        else:  # gradient accumulation: each part's mean loss weighted by its share
            for part in pick.split(micro_batch):
                loss = F.cross_entropy(model(images[part]), labels[part])
                (loss * (len(part) / batch)).backward()
        optimizer.step()
    n, dim = 50, 64
    projections = batch * n * (2.0 * 3 * dim * dim + 2.0 * 2 * dim * 128)  # k, v, o and the MLP
    attention = batch * 4.0 * n * n * dim  # scores and the weighted sum, all heads
    forward = (2 * projections + attention * (max(1, pap_iterations) + 1)
               + 2.0 * batch * 49 * 16 * dim)
    # Bytes: each block's activations (about a dozen tensors of B n dim, and the MLP's two of
    # B n 128) written once and read twice, the attention maps (B 4 n n) three times per pass.
    activations = 2 * batch * n * (12 * dim + 2 * 128)
    maps = 2 * batch * 4 * n * n * (max(1, pap_iterations) + 1)
    moved = 4.0 * 3 * (activations + maps)
    return step, 3 * forward, moved


WORKLOADS = {
    "p1_tiny": lambda: p1(3, 7, 3),
    "p1_large": lambda: p1(1024, 64, 64),
    "p3_spe": lambda: p3_attention(stochastic=True),
    "p3_fixed": lambda: p3_attention(stochastic=False),
    "p3_fc1024": lambda: p3_fc(1024),
    "lm": lm,
    "vit_softmax": lambda: vit(0),
    "vit_rpc": lambda: vit(4),
}
# Paper 3's steps with each other subset draw.
for _draw in SUBSET_DRAWS:
    if _draw == "topk":
        continue
    WORKLOADS[f"p3_spe_{_draw}"] = lambda d=_draw: p3_attention(stochastic=True, draw=d)
    WORKLOADS[f"p3_fixed_{_draw}"] = lambda d=_draw: p3_attention(stochastic=False, draw=d)
    WORKLOADS[f"p3_fc1024_{_draw}"] = lambda d=_draw: p3_fc(1024, draw=d)
# The same steps in micro-batches (gradient accumulation), the sizes attnlab's bench runs.
for _micro_batch in (8, 16, 32, 64):
    WORKLOADS[f"vit_softmax_micro{_micro_batch}"] = lambda m=_micro_batch: vit(0, micro_batch=m)
    WORKLOADS[f"vit_rpc_micro{_micro_batch}"] = lambda m=_micro_batch: vit(4, micro_batch=m)


def gemm_peak(dtype, size=2048, reps=5):
    a, b = torch.randn(size, size, dtype=dtype), torch.randn(size, size, dtype=dtype)
    a @ b
    start = time.perf_counter()
    for _ in range(reps):
        a @ b
    return 2.0 * size ** 3 * reps / (time.perf_counter() - start) / 1e9


def stream_bandwidth(megabytes=512, reps=5):
    """GB/s of streaming through buffers far larger than the caches, the best of `reps`: a copy
    (bytes read plus written) and a read alone (a sum), each on its own."""
    source = torch.ones(megabytes * 2 ** 20 // 4)
    target = torch.empty_like(source)

    def best(run):
        run()
        fastest = math.inf
        for _ in range(reps):
            start = time.perf_counter()
            run()
            fastest = min(fastest, time.perf_counter() - start)
        return fastest
    size = source.numel() * 4
    return (2.0 * size / best(lambda: target.copy_(source)) / 1e9,
            size / best(lambda: source.sum()) / 1e9)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("workload", choices=sorted(WORKLOADS) + ["peak"])
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=3.0, help="time to measure for")
    parser.add_argument("--min-steps", type=int, default=10, help="steps to measure at least")
    parser.add_argument("--keep-denormals", action="store_true",
                        help="IEEE 754 gradual underflow (PyTorch's default) instead of flushing "
                             "subnormals to zero as attnlab's trials do")
    args = parser.parse_args()
    if args.min_steps < 1:
        parser.error(f"--min-steps={args.min_steps}: at least 1, for a median")
    torch.set_num_threads(args.threads)
    # The same float mode as attnlab's default (ModelSpec.subnormals: FLUSH_TO_ZERO).
    torch.set_flush_denormal(not args.keep_denormals)
    result = {"workload": args.workload, "threads": args.threads, "torch": torch.__version__,
              "blas_core": blas_core()}
    if args.workload == "peak":
        result["sgemm_gflops"] = gemm_peak(torch.float32)
        result["dgemm_gflops"] = gemm_peak(torch.float64)
        result["copy_gbs"], result["read_gbs"] = stream_bandwidth()
    else:
        step, flops, moved = WORKLOADS[args.workload]()
        step()  # warm-up
        # The median step: PyTorch's heap keeps growing for several steps of a large workload
        # (the LM's logits), each growth a step of page faults a long training run does not see.
        times, start = [], time.perf_counter()
        while time.perf_counter() - start < args.seconds or len(times) < args.min_steps:
            began = time.perf_counter()
            step()
            times.append(time.perf_counter() - began)
        result["seconds_per_step"] = statistics.median(times)
        result["steps"] = len(times)
        result["flops_per_step"] = flops
        result["bytes_per_step"] = moved
    print(json.dumps(result))


if __name__ == "__main__":
    main()
