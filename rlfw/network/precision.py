"""Which of a network's matrix products run in bf16 on the CPU: the one rule, set by ``network.precision``.

    auto   bf16 where the CPU has bf16 instructions (AMX, AVX-512 BF16: ``rlfw.machine.native_bf16``)
           and the product is large enough to gain, fp32 elsewhere (the default)
    fp32   never
    bf16   always (a CPU without bf16 instructions emulates it, several times slower than fp32)

Large enough: a linear layer (an ``mlp`` encoder, the critics, a CNN's fully connected layer) when its
rows x inputs x outputs reach ``BF16_FROM_MACS`` multiply-adds, so the same network acts on one
observation in fp32 and learns from a batch of 256 in bf16; a convolution over frames from
``BF16_FROM_SIDE`` pixels a side (both measured: docs/results.md, "bf16 on the CPU").

Weights, gradients and optimizer state stay fp32 (autocast casts each weight for the product), and
each part returns fp32 features: an output layer (Q values, a policy's mean and log std, V(s)) and
everything computed from it, log-probabilities, TD targets and the temperature included, is fp32
arithmetic. GPUs compute fp32 here; ``trainer.precision=bf16-mixed`` is theirs.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

import torch
from torch import nn

from rlfw.errors import require
from rlfw.machine import native_bf16

PRECISIONS = ("auto", "fp32", "bf16")
# auto's smallest linear layer for bf16, in multiply-adds of one call (rows x inputs x outputs): on an
# Intel Xeon with AMX a 256x256 layer's forward and backward gained 1.5x at 256 rows and lost 0.77x at 64
BF16_FROM_MACS = 8_000_000
# auto's smallest frame side for bf16 convolutions: Atari's 84x84 frames trained faster, 10x10 ones
# (MinAtar, Catch) no faster, with a doubt about MinAtar's returns
BF16_FROM_SIDE = 32


class Precision:
    """``network.precision`` on this machine. One object for a whole network: its parts ask it, per
    call, whether a product runs in bf16 (``linear``, ``conv``)."""

    def __init__(self, setting: str = "auto"):
        require(
            setting in PRECISIONS,
            "network.precision",
            setting,
            "one of auto (bf16 matrix products where the CPU has bf16 instructions and they pay), fp32, bf16",
        )
        # fp32 never asks the CPU: every part made without a setting holds one
        self.setting, self.instructions = setting, None if setting == "fp32" else native_bf16()
        self.enabled = setting == "bf16" or (setting == "auto" and self.instructions is not None)

    @property
    def emulated(self) -> bool:
        """bf16 asked for on a CPU that emulates it: valid, and several times slower (the run warns)."""
        return self.setting == "bf16" and self.instructions is None

    def bf16_linear(self, x: torch.Tensor, macs_per_row: int) -> bool:
        """Whether a linear layer of ``macs_per_row`` multiply-adds a row computes ``x``'s rows in bf16."""
        if not self.enabled or x.device.type != "cpu":
            return False
        return self.setting == "bf16" or x.shape[0] * macs_per_row >= BF16_FROM_MACS

    def linear(self, x: torch.Tensor, macs_per_row: int) -> AbstractContextManager:
        """The context a part runs its linear layers in: bf16 autocast where ``bf16_linear`` says so.
        The part casts what leaves it back to fp32."""
        return torch.autocast("cpu", torch.bfloat16) if self.bf16_linear(x, macs_per_row) else nullcontext()

    def conv(self, height: int, width: int) -> bool:
        """Whether convolutions over ``height`` x ``width`` frames compute in bf16 (on the CPU)."""
        return self.enabled and (self.setting == "bf16" or min(height, width) >= BF16_FROM_SIDE)

    def describe(self) -> str:
        """What the run logs: the setting and what it chose on this machine."""
        line = f"network.precision={self.setting}"
        if self.emulated:
            return line + ": this CPU has no bf16 instructions, so torch emulates them, several times slower than fp32"
        if self.setting == "auto" and not self.enabled:
            return line + ": fp32 (no bf16 instructions found)"
        if self.setting == "auto":
            return (
                line
                + f": bf16 on the CPU ({self.instructions}) for linear layers from {BF16_FROM_MACS:,} multiply-adds"
                f" a call and convolutions over frames from {BF16_FROM_SIDE}x{BF16_FROM_SIDE}, fp32 elsewhere"
            )
        return line


def precision_of(net: nn.Module) -> Precision | None:
    """The ``Precision`` the parts of ``net`` read (None for a network of plugin parts that read none)."""
    return next((p for m in net.modules() if isinstance(p := getattr(m, "precision", None), Precision)), None)


@contextmanager
def fp32(net: nn.Module) -> Iterator[None]:
    """Every part of ``net`` computes in fp32 inside the block (an exported file: ONNX runtimes' CPU
    kernels take no bf16)."""
    shared = {id(p): p for m in net.modules() if isinstance(p := getattr(m, "precision", None), Precision)}
    was = {key: p.enabled for key, p in shared.items()}
    for p in shared.values():
        p.enabled = False
    try:
        yield
    finally:
        for key, p in shared.items():
            p.enabled = was[key]
