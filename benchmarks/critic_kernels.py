"""Why SAC's update is not faster: twin 256x256 critics run one after another, stacked as one batched
matmul, and under bf16 autocast, on this CPU (one thread, batch 256, HalfCheetah's 17 + 6 inputs).

    python benchmarks/critic_kernels.py

Each step is what a SAC critic update costs: a no-grad pass (the target), a pass with gradient, the
backward and an Adam step. Prints milliseconds a step, the median of 3 blocks of 300 steps.
"""

from __future__ import annotations

import itertools
import math
import statistics
import subprocess
import time
from contextlib import nullcontext

import torch
from torch import nn

BATCH, INPUTS, HIDDEN, CRITICS = 256, 17 + 6, 256, 2


class OneByOne(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.nets = nn.ModuleList(
            nn.Sequential(
                nn.Linear(INPUTS, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, 1)
            )
            for _ in range(CRITICS)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.stack([net(x).squeeze(-1) for net in self.nets])


class Stacked(nn.Module):
    """The critics' weights as [n, in, out] tensors: one batched matmul a layer for all of them."""

    def __init__(self) -> None:
        super().__init__()
        sizes = [INPUTS, HIDDEN, HIDDEN, 1]
        self.weights = nn.ParameterList(
            nn.Parameter(torch.randn(CRITICS, a, b) / math.sqrt(a)) for a, b in itertools.pairwise(sizes)
        )
        self.biases = nn.ParameterList(nn.Parameter(torch.zeros(CRITICS, 1, b)) for b in sizes[1:])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x.expand(CRITICS, *x.shape)
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            h = torch.baddbmm(b, h, w)
            h = h.relu() if i < len(self.weights) - 1 else h
        return h.squeeze(-1)


def ms_per_step(critics: nn.Module, bf16: bool) -> float:
    optimizer = torch.optim.Adam(critics.parameters(), lr=1e-3)
    x, y = torch.randn(BATCH, INPUTS), torch.randn(BATCH)
    cast = torch.autocast("cpu", dtype=torch.bfloat16) if bf16 else nullcontext()

    def step() -> None:
        with cast:
            with torch.no_grad():
                critics(x)
            loss = (critics(x).float() - y).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    for _ in range(50):
        step()
    blocks = []
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(300):
            step()
        blocks.append((time.perf_counter() - start) / 300 * 1e3)
    return statistics.median(blocks)


def main() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = next(
        (
            line.split(":", 1)[1].strip()
            for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
            if line.startswith("Model name:")
        ),
        "unknown",
    )
    print(f"CPU: {model}; torch {torch.__version__}, 1 thread")
    base = ms_per_step(OneByOne(), bf16=False)
    for name, critics, bf16 in [
        ("one after another, fp32", OneByOne(), False),
        ("stacked (bmm), fp32", Stacked(), False),
        ("one after another, bf16 autocast", OneByOne(), True),
        ("stacked (bmm), bf16 autocast", Stacked(), True),
    ]:
        ms = ms_per_step(critics, bf16)
        print(f"{name:34s} {ms:5.2f} ms a step ({base / ms:.2f}x)")


if __name__ == "__main__":
    main()
