"""Per-part learning rates: one optimizer param group per configured network part.

A part is a top-level submodule of the network (``encoder``, ``q``, ``actor``, ``critic``, ...), or
``loss`` for a loss head's own parameters (SAC's temperature).
``optim.groups.critic.lr=1e-3`` gives the critic's parameters their own group; every other
parameter stays in the default group with ``optim.lr``.
"""

from __future__ import annotations

from typing import Any

from torch import nn

from rlfw.errors import ConfigError
from rlfw.values import suggest


def param_groups(
    net: nn.Module, groups: dict[str, dict[str, Any]], loss: nn.Module | None = None
) -> list[dict[str, Any]]:
    """``loss``: a loss head with parameters of its own (SAC's temperature), a part named ``loss``."""
    parts = dict(net.named_children())
    if loss is not None and any(p.requires_grad for p in loss.parameters()):
        parts["loss"] = loss
    result: list[dict[str, Any]] = []
    claimed: set[int] = set()
    for part, options in groups.items():
        if part not in parts:
            raise ConfigError(
                f"optim.groups.{part}: not a part of this network{suggest(part, list(parts))}; parts: {', '.join(parts)}"
            )
        params = [p for p in parts[part].parameters() if p.requires_grad and id(p) not in claimed]
        claimed.update(id(p) for p in params)
        result.append({"params": params, "name": part, **options})
    rest = [p for module in parts.values() for p in module.parameters() if p.requires_grad and id(p) not in claimed]
    rest = list({id(p): p for p in rest}.values())  # a part may share parameters with another
    if rest:
        result.insert(0, {"params": rest, "name": "default"})
    return result
