"""Networks are a head (what the network outputs) over one or two encoders (how obs are read)."""

from __future__ import annotations

from typing import Any

from torch import nn

from rlfw.env.spec import EnvSpec
from rlfw.network.encoder import cnn, mlp  # noqa: F401  (registers)
from rlfw.network.head import actor_critic, dueling_q, q  # noqa: F401  (registers)
from rlfw.registry import build


def build_network(cfg: dict[str, Any], spec: EnvSpec) -> nn.Module:
    """``cfg`` is the ``network`` node: ``{"encoder": {...}, "head": {...}}``."""
    return build(
        "head",
        cfg["head"],
        "network.head",
        spec=spec,
        make_encoder=lambda: build("encoder", cfg["encoder"], "network.encoder", spec=spec),
    )
