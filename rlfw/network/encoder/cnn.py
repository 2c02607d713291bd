"""A convolutional encoder over image observations, Mnih et al. (2015)'s "Nature CNN" by default.

Observations arrive as uint8 (env, replay and the transfer to the device stay 8-bit) and are scaled
to [0, 1] here. Leading axes before height and width (a frame stack, colour channels) are the conv's
input channels: ``[B, stack, H, W]`` and ``[B, stack, C, H, W]`` both work.

Its convolutions and its fully connected layer compute in bf16 where ``network.precision`` says they
pay (``rlfw.network.precision``: on a CPU with bf16 instructions, frames from 32x32 for the
convolutions); its features are fp32.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch
from torch import nn

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.network.encoder import Encoder
from rlfw.network.precision import Precision
from rlfw.registry import register


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
        precision: Precision | None = None,
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
        layers, c = [], math.prod(lead)
        for out, k, s in zip(channels, kernels, strides, strict=True):
            layers += [nn.Conv2d(c, out, k, s), nn.ReLU()]
            c = out
        self.convs = nn.Sequential(*layers)
        self.fc = nn.Sequential(nn.Flatten(), nn.Linear(c * out_h * out_w, hidden), nn.ReLU())
        self.in_channels, self.out_dim = math.prod(lead), hidden
        self.channels_last = channels_last
        self.precision = precision or Precision("fp32")
        self.frame = (height, width)
        self.macs = c * out_h * out_w * hidden  # the fully connected layer's multiply-adds a row

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        x = obs.reshape(obs.shape[0], self.in_channels, *obs.shape[-2:])
        if self.channels_last:  # reordered while still 8-bit: a quarter of the bytes to move
            x = x.contiguous(memory_format=torch.channels_last)
        # uint8 in, float32 out in one pass (half the time of .float() then /255, the same values);
        # a new tensor: never scale the caller's obs
        x = x.div(255.0)
        with torch.autocast("cpu", torch.bfloat16, enabled=self.precision.conv(*self.frame) and x.device.type == "cpu"):
            features = self.convs(x)
        with self.precision.linear(features, self.macs):  # the features in bf16 or fp32, as the layer computes
            return self.fc(features.float()).float()
