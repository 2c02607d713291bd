"""An encoder for Dict observations (packed by ``rlfw.env.packed``): each key read by the reader that
fits it, the features concatenated, then an MLP over them (SB3's ``CombinedExtractor``, with a trunk).

    image     a CNN: the Nature CNN for frames from 36 pixels a side, else a small one (kernels 2x2,
              stride 1: MiniGrid's 7x7 views); channel-last images (``(7, 7, 3)``) are transposed first
    discrete  one-hot, one block per entry (a MultiDiscrete's)
    vector    its values (normalized with ``network.normalize_obs``)

``keys.<key>`` sets a key's reader: for an image, ``channels``, ``kernels``, ``strides``, ``hidden`` and
``scale`` (what its values are divided by, > 0: 255 for pixels; a grid of small codes, MiniGrid's, reads
better divided by its largest code); ``skip: true`` leaves the key out. The head reads the open actions
(``action_mask``). Readers are in the parts' order, so a key may have any name (``values``, ``a.b``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
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
from rlfw.network.precision import Precision
from rlfw.registry import register
from rlfw.values import check_values

LARGE = 36  # the Nature CNN's kernels (8, 4, 3) with strides (4, 2, 1) need 36 pixels a side
SMALL_CNN = {"channels": (16, 32, 64), "kernels": (2, 2, 2), "strides": (1, 1, 1), "hidden": 64}


@dataclass(frozen=True)
class KeySettings:
    """What ``keys.<key>`` sets for any key."""

    skip: bool = False


@dataclass(frozen=True)
class ImageSettings(KeySettings):
    """What ``keys.<key>`` sets for an image key: its CNN (the defaults by its size) and its scale."""

    channels: Sequence[int] | None = None
    kernels: Sequence[int] | None = None
    strides: Sequence[int] | None = None
    hidden: int | None = None
    scale: float = 255.0

    def __post_init__(self) -> None:
        require(self.scale > 0, "scale", self.scale, "what the image's values are divided by, > 0 (255 for pixels)")


def settings_of(part: Part, given: Any) -> KeySettings:
    """``keys.<key>``'s values checked (names, types, ranges), each error one line naming the key."""
    key = f"network.encoder.keys.{part.key}"
    if not isinstance(given, dict):
        raise ConfigError(f"{key}={given!r}: a mapping of that key's reader settings")
    kind = ImageSettings if part.kind == "image" else KeySettings
    try:
        return kind(**check_values(kind, given, key))
    except ConfigError as err:
        raise ConfigError(str(err) if str(err).startswith(key) else f"{key}.{err}") from None


def channel_first(shape: tuple[int, ...]) -> tuple[tuple[int, ...], bool]:
    """An image's shape as ``[channels, height, width]`` (a 2-d one gets one channel), and whether the env
    gives it channel-last: a last axis of at most 4 after a longer one (RGB, MiniGrid's 3 codes)."""
    if len(shape) == 2:
        return (1, *shape), False
    last = shape[-1] <= 4 < shape[0]
    return ((shape[2], shape[0], shape[1]) if last else shape), last


class Image(nn.Module):
    """A CNN over one image key, its values divided by ``scale``."""

    def __init__(self, part: Part, spec_id: str, settings: ImageSettings, precision: Precision):
        super().__init__()
        shape, self.channels_last = channel_first(part.shape)
        defaults = {} if min(shape[1:]) >= LARGE else SMALL_CNN
        conv = {**defaults, **{k: v for k, v in dataclasses.asdict(settings).items() if v is not None}}
        del conv["scale"], conv["skip"]
        sub = EnvSpec(f"{spec_id}[{part.key!r}]", shape, None, None)  # type: ignore[arg-type]  # no actions here
        try:
            self.cnn = NatureCNN(sub, **conv, precision=precision)
        except ConfigError as err:  # named by the key, not by the encoder the user did not choose
            raise ConfigError(f"network.encoder.keys.{part.key} (a {part.shape} image): {err}") from None
        self.scale = float(settings.scale)
        self.shape, self.out_dim = shape, self.cnn.out_dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        # -1 for the batch, not len(x): an exported file (torch.jit.trace) keeps a traced len as a constant
        if self.channels_last:
            x = x.reshape(-1, self.shape[1], self.shape[2], self.shape[0]).permute(0, 3, 1, 2)
        # NatureCNN divides by 255; times 255 / scale first, so the image is divided by scale in all
        return self.cnn(x.reshape(-1, *self.shape).float() * (255.0 / self.scale))


class OneHot(nn.Module):
    """One one-hot block per entry; a single entry of up to ``TABLE`` values (Taxi's state) is a row of an
    identity table: one gather, where ``F.one_hot`` and a float cast are several ops."""

    TABLE = 1024
    table: torch.Tensor

    def __init__(self, part: Part):
        super().__init__()
        self.classes, self.out_dim = part.classes, sum(part.classes)
        single = len(self.classes) == 1 and self.out_dim <= self.TABLE
        self.register_buffer("table", torch.eye(self.out_dim) if single else torch.empty(0), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        codes = x.long().clamp(min=0)
        if self.table.numel():
            return self.table.index_select(0, codes[:, 0].clamp(max=self.out_dim - 1))
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
        precision: Precision | None = None,
    ):
        super().__init__()
        precision = precision or Precision("fp32")
        require(
            bool(spec.observed),
            "network.encoder",
            "multi",
            f"reads Dict observations, {spec.id} gives a {list(spec.obs_shape)} array; use network/encoder=mlp",
        )
        keys = dict(keys or {})
        unknown = sorted(set(keys) - {p.key for p in spec.observed})
        if unknown:
            raise ConfigError(
                f"network.encoder.keys: {', '.join(unknown)} not among {spec.id}'s observation keys;"
                f" it has {', '.join(p.key for p in spec.observed)}"
            )
        readers, parts = [], []
        for part in spec.observed:
            settings = settings_of(part, keys.get(part.key) or {})
            if settings.skip:
                continue
            if isinstance(settings, ImageSettings):
                reader: nn.Module = Image(part, spec.id, settings, precision)
            elif part.kind == "discrete":
                reader = OneHot(part)
            else:
                start, stop = part.start, part.start + part.size
                reader = Vector(part, ObsNorm((part.size,), obs_clip, columns=(start, stop)) if normalize else None)
            readers.append(reader)
            parts.append(part)
        require(bool(readers), "network.encoder.keys", keys, "leaves no key to read")
        self.readers, self.parts = nn.ModuleList(readers), parts
        width = sum(r.out_dim for r in readers)  # type: ignore[misc]
        self.trunk = MLP(dataclasses.replace(spec, obs_shape=(width,), parts=()), hidden, activation, precision)
        self.out_dim = self.trunk.out_dim

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        features = [read(obs[:, p.start : p.start + p.size]) for read, p in zip(self.readers, self.parts, strict=True)]
        return self.trunk(torch.cat(features, 1))

    def _load_from_state_dict(self, state_dict: dict, prefix: str, *args, **kwargs) -> None:
        """Checkpoints written before the readers were kept in order named them by key
        (``readers.image.*``): read under their place in the parts' order."""
        for i, part in enumerate(self.parts):
            old = f"{prefix}readers.{part.key}."
            for key in [k for k in state_dict if k.startswith(old)]:
                state_dict[f"{prefix}readers.{i}.{key[len(old) :]}"] = state_dict.pop(key)
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)


def for_observations(encoder: dict[str, Any], spec: EnvSpec) -> dict[str, Any]:
    """The encoder config that reads ``spec``'s observations: a Dict observation given ``mlp`` (every
    vector algo's default) is read by ``multi``, with that MLP as its trunk; any other choice is kept."""
    if spec.observed and encoder.get("name") == "mlp":
        return {**encoder, "name": "multi"}
    return encoder
