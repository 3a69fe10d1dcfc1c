#!/usr/bin/python3
"""PyTorch's time for one training step of paper 2's language model (the workload of
//experiments:bench BM_LanguageModelStep): T = 64, batch 64, d = 128, one head, Post-LN,
vocabulary 33,278, AdamW, float32.

    /usr/bin/python3 tools/compare_pytorch/lm_step.py --threads 1
"""
import argparse
import os
import sys
import time

try:
    import torch
    import torch.nn as nn
except ImportError:
    sys.exit("needs Debian's python3-torch for /usr/bin/python3: apt-get install python3-torch")


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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    model = LanguageModel()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    ids = torch.randint(0, 33278, (64, 64))
    nxt = torch.randint(0, 33278, (64, 64))
    loss_fn = nn.CrossEntropyLoss()

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(ids).reshape(-1, 33278), nxt.reshape(-1))
        loss.backward()
        optimizer.step()

    step()  # warm-up
    start = time.perf_counter()
    for _ in range(args.steps):
        step()
    seconds = (time.perf_counter() - start) / args.steps
    print(f"pytorch {torch.__version__} threads={args.threads} "
          f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', 'unset')}: "
          f"{seconds * 1000:.0f} ms/step")


if __name__ == "__main__":
    main()
