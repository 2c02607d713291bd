"""Per-part learning rates: one optimizer param group per configured network part.

A part is a top-level submodule of the network (``encoder``, ``q``, ``actor``, ``critic``, ...).
``optim.groups.critic.lr=1e-3`` gives the critic's parameters their own group; every other
parameter stays in the default group with ``optim.lr``.
"""

from __future__ import annotations

from typing import Any

from torch import nn

from rlfw.errors import ConfigError
from rlfw.values import suggest


def param_groups(net: nn.Module, groups: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    parts = dict(net.named_children())
    result: list[dict[str, Any]] = []
    claimed: set[int] = set()
    for part, options in groups.items():
        if part not in parts:
            raise ConfigError(
                f"optim.groups.{part}: not a part of this network{suggest(part, list(parts))}; parts: {', '.join(parts)}"
            )
        params = [p for p in parts[part].parameters() if id(p) not in claimed]
        claimed.update(id(p) for p in params)
        result.append({"params": params, "name": part, **options})
    rest = [p for p in net.parameters() if id(p) not in claimed]
    if rest:
        result.insert(0, {"params": rest, "name": "default"})
    return result
