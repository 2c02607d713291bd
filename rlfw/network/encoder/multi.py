"""An encoder for Dict observations (packed by ``rlfw.env.packed``): each key read by the reader that
fits it, the features concatenated, then an MLP over them (SB3's ``CombinedExtractor``, with a trunk).

    image     a CNN: the Nature CNN for frames from 36 pixels a side, else a small one (kernels 2x2,
              stride 1: MiniGrid's 7x7 views); channel-last images (``(7, 7, 3)``) are transposed first
    discrete  one-hot, one block per entry (a MultiDiscrete's)
    vector    its values (normalized with ``network.normalize_obs``)

``keys.<key>`` sets a key's reader: for an image, ``channels``, ``kernels``, ``strides``, ``hidden`` and
``scale`` (what its values are divided by: 255 for pixels; a grid of small codes, MiniGrid's, reads
better divided by its largest code); ``skip: true`` leaves the key out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from rlfw.env.packed import Part
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError, require
from rlfw.network.encoder import Encoder
from rlfw.network.encoder.cnn import NatureCNN
from rlfw.network.encoder.mlp import MLP
from rlfw.network.normalize import ObsNorm
from rlfw.registry import register

LARGE = 36  # the Nature CNN's kernels (8, 4, 3) with strides (4, 2, 1) need 36 pixels a side
SMALL_CNN = {"channels": (16, 32, 64), "kernels": (2, 2, 2), "strides": (1, 1, 1), "hidden": 64}
IMAGE_KEYS = frozenset({"channels", "kernels", "strides", "hidden", "scale", "skip"})


def channel_first(shape: tuple[int, ...]) -> tuple[tuple[int, ...], bool]:
    """An image's shape as ``[channels, height, width]`` (a 2-d one gets one channel), and whether the env
    gives it channel-last: a last axis of at most 4 after a longer one (RGB, MiniGrid's 3 codes)."""
    if len(shape) == 2:
        return (1, *shape), False
    last = shape[-1] <= 4 < shape[0]
    return ((shape[2], shape[0], shape[1]) if last else shape), last


class Image(nn.Module):
    """A CNN over one image key, its values divided by ``scale``."""

    def __init__(self, part: Part, spec_id: str, settings: dict[str, Any]):
        super().__init__()
        shape, self.channels_last = channel_first(part.shape)
        defaults = {} if min(shape[1:]) >= LARGE else SMALL_CNN
        conv = {**defaults, **{k: v for k, v in settings.items() if k not in ("scale", "skip")}}
        sub = EnvSpec(f"{spec_id}[{part.key!r}]", shape, None, None)  # type: ignore[arg-type]  # no actions here
        try:
            self.cnn = NatureCNN(sub, **conv)
        except ConfigError as err:  # named by the key, not by the encoder the user did not choose
            raise ConfigError(f"network.encoder.keys.{part.key} (a {part.shape} image): {err}") from None
        self.scale = float(settings.get("scale", 255.0))
        self.shape, self.out_dim = shape, self.cnn.out_dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.channels_last:
            x = x.reshape(len(x), self.shape[1], self.shape[2], self.shape[0]).permute(0, 3, 1, 2)
        # NatureCNN divides by 255; times 255 / scale first, so the image is divided by scale in all
        return self.cnn(x.reshape(len(x), *self.shape).float() * (255.0 / self.scale))


class OneHot(nn.Module):
    def __init__(self, part: Part):
        super().__init__()
        self.classes, self.out_dim = part.classes, sum(part.classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        codes = x.long().clamp(min=0)
        return torch.cat([F.one_hot(codes[:, i].clamp(max=n - 1), n) for i, n in enumerate(self.classes)], 1).float()


class Vector(nn.Module):
    def __init__(self, part: Part, norm: ObsNorm | None):
        super().__init__()
        self.norm, self.out_dim = norm, part.size

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.float() if self.norm is None else self.norm(x)


@register("encoder", "multi")
class Multi(Encoder):
    def __init__(
        self,
        spec: EnvSpec,
        keys: dict[str, dict[str, Any]] | None = None,
        hidden: Sequence[int] = (64, 64),
        activation: str = "tanh",
        normalize: bool = False,
        obs_clip: float = 10.0,
    ):
        super().__init__()
        require(
            bool(spec.parts),
            "network.encoder",
            "multi",
            f"reads Dict observations, {spec.id} gives a {list(spec.obs_shape)} array; use network/encoder=mlp",
        )
        keys = dict(keys or {})
        unknown = sorted(set(keys) - {p.key for p in spec.parts})
        if unknown:
            raise ConfigError(
                f"network.encoder.keys: {', '.join(unknown)} not among {spec.id}'s observation keys;"
                f" it has {', '.join(p.key for p in spec.parts)}"
            )
        readers, parts = {}, []
        for part in spec.parts:
            settings = dict(keys.get(part.key) or {})
            odd = sorted(set(settings) - (IMAGE_KEYS if part.kind == "image" else {"skip"}))
            require(
                not odd, f"network.encoder.keys.{part.key}", settings, f"a {part.kind} key takes no {', '.join(odd)}"
            )
            if settings.get("skip", False):
                continue
            if part.kind == "image":
                reader: nn.Module = Image(part, spec.id, settings)
            elif part.kind == "discrete":
                reader = OneHot(part)
            else:
                start, stop = part.start, part.start + part.size
                reader = Vector(part, ObsNorm((part.size,), obs_clip, columns=(start, stop)) if normalize else None)
            readers[part.key] = reader
            parts.append(part)
        require(bool(readers), "network.encoder.keys", keys, "leaves no key to read")
        self.readers, self.parts = nn.ModuleDict(readers), parts
        width = sum(r.out_dim for r in readers.values())  # type: ignore[misc]
        self.trunk = MLP(dataclasses.replace(spec, obs_shape=(width,), parts=()), hidden, activation)
        self.out_dim = self.trunk.out_dim

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        features = [self.readers[p.key](obs[:, p.start : p.start + p.size]) for p in self.parts]
        return self.trunk(torch.cat(features, 1))


def for_observations(encoder: dict[str, Any], spec: EnvSpec) -> dict[str, Any]:
    """The encoder config that reads ``spec``'s observations: a Dict observation given ``mlp`` (every
    vector algo's default) is read by ``multi``, with that MLP as its trunk; any other choice is kept."""
    if spec.parts and encoder.get("name") == "mlp":
        return {**encoder, "name": "multi"}
    return encoder
