"""A convolutional encoder over image observations, Mnih et al. (2015)'s "Nature CNN" by default.

Observations arrive as uint8 (env, replay and the transfer to the device stay 8-bit) and are scaled
to [0, 1] here. Leading axes before height and width (a frame stack, colour channels) are the conv's
input channels: ``[B, stack, H, W]`` and ``[B, stack, C, H, W]`` both work.

``precision``: the convolutions' arithmetic on the CPU. ``auto`` is bf16 where the CPU has bf16
instructions (AMX, AVX-512 BF16; ``rlfw.machine.native_bf16``) and the frames are at least
``BF16_FROM`` pixels a side, and fp32 otherwise; the fully connected layer and everything after it
stay fp32 (docs/results.md, "bf16 convolutions on the CPU", has the speeds and the learning comparison).
GPUs run fp32 here;
``trainer.precision=bf16-mixed`` is theirs.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import torch
from torch import nn

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.machine import native_bf16
from rlfw.network.encoder import Encoder
from rlfw.registry import register

PRECISIONS = ("auto", "fp32", "bf16")
# auto's smallest frame side for bf16: it made Atari's 84x84 frames train faster, and 10x10 ones
# (MinAtar, Catch) no faster, with a doubt about MinAtar's returns (docs/results.md, "bf16 convolutions on the CPU")
BF16_FROM = 32


def conv_out(size: int, kernels: Sequence[int], strides: Sequence[int]) -> int:
    for k, s in zip(kernels, strides, strict=True):
        size = (size - k) // s + 1
    return size


@register("encoder", "nature_cnn")
class NatureCNN(Encoder):
    def __init__(
        self,
        spec: EnvSpec,
        channels: Sequence[int] = (32, 64, 64),
        kernels: Sequence[int] = (8, 4, 3),
        strides: Sequence[int] = (4, 2, 1),
        hidden: int = 512,
        channels_last: bool = True,
        precision: str = "auto",
    ):
        super().__init__()
        require(
            len(spec.obs_shape) >= 3,
            "network.encoder",
            "nature_cnn",
            f"needs image observations ([channels, height, width]), {spec.id} gives shape {list(spec.obs_shape)};"
            " use network/encoder=mlp for vector observations",
        )
        require(
            len(channels) == len(kernels) == len(strides) >= 1,
            "network.encoder.channels",
            list(channels),
            f"channels, kernels and strides need one entry per conv layer (got {len(channels)}, {len(kernels)}, {len(strides)})",
        )
        *lead, height, width = spec.obs_shape
        out_h, out_w = conv_out(height, kernels, strides), conv_out(width, kernels, strides)
        require(
            out_h >= 1 and out_w >= 1,
            "network.encoder",
            "nature_cnn",
            f"{height}x{width} images are too small for kernels {list(kernels)} with strides {list(strides)};"
            " set smaller network.encoder.kernels/strides",
        )
        require(hidden >= 1, "network.encoder.hidden", hidden, "units of the fully connected layer, >= 1")
        require(
            precision in PRECISIONS,
            "network.encoder.precision",
            precision,
            f"one of auto (bf16 where the CPU has bf16 instructions, for frames from {BF16_FROM}x{BF16_FROM}), fp32, bf16",
        )
        layers, c = [], math.prod(lead)
        for out, k, s in zip(channels, kernels, strides, strict=True):
            layers += [nn.Conv2d(c, out, k, s), nn.ReLU()]
            c = out
        self.convs = nn.Sequential(*layers)
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(c * out_h * out_w, hidden), nn.ReLU())
        self.in_channels, self.out_dim = math.prod(lead), hidden
        self.channels_last = channels_last
        self.bf16 = precision == "bf16"
        self.precision = f"network.encoder.precision={precision}"  # what and why, for the run's log
        instructions = native_bf16()
        self.emulated = precision == "bf16" and instructions is None  # the run warns: emulated bf16 is slow
        if precision == "auto":
            small = min(height, width) < BF16_FROM
            self.bf16 = instructions is not None and not small
            if instructions is None:
                self.precision += ": fp32 (no bf16 instructions found)"
            elif small:
                self.precision += f": fp32 ({height}x{width} frames: bf16 pays from {BF16_FROM}x{BF16_FROM})"
            else:
                self.precision += f": bf16 convolutions on the CPU ({instructions})"
        elif self.emulated:  # emulated bf16 is several times slower than fp32 (docs/results.md)
            self.precision += (
                ": this CPU has no bf16 instructions, so torch emulates them, several times slower than fp32"
            )

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        x = obs.reshape(obs.shape[0], self.in_channels, *obs.shape[-2:])
        if self.channels_last:  # reordered while still 8-bit: a quarter of the bytes to move
            x = x.contiguous(memory_format=torch.channels_last)
        # uint8 in, float32 out in one pass (half the time of .float() then /255, the same values);
        # a new tensor: never scale the caller's obs
        x = x.div(255.0)
        with torch.autocast("cpu", torch.bfloat16, enabled=self.bf16 and x.device.type == "cpu"):
            features = self.convs(x)
        return self.fc(features.float())


def precisions(net: nn.Module) -> list[str]:
    """What the conv encoders in ``net`` compute in, and why (``auto``'s choice): the run logs it."""
    return sorted({m.precision for m in net.modules() if isinstance(m, NatureCNN)})


def emulated(net: nn.Module) -> bool:
    """Whether a conv encoder in ``net`` was set to bf16 on a CPU that emulates it (the run warns then)."""
    return any(m.emulated for m in net.modules() if isinstance(m, NatureCNN))


@contextmanager
def fp32(net: nn.Module) -> Iterator[None]:
    """Every conv encoder in ``net`` computes in fp32 inside the block (an exported file: ONNX
    runtimes' CPU convolutions take no bf16)."""
    bf16 = [m for m in net.modules() if isinstance(m, NatureCNN) and m.bf16]
    for m in bf16:
        m.bf16 = False
    try:
        yield
    finally:
        for m in bf16:
            m.bf16 = True
