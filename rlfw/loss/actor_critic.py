"""The value loss A2C and PPO share."""

from __future__ import annotations

import torch

from rlfw.batch import mean


def value_loss(
    value: torch.Tensor,
    returns: torch.Tensor,
    old_value: torch.Tensor | None = None,
    clip: float | None = None,
    rows: torch.Tensor | None = None,
) -> torch.Tensor:
    """1/2 (V(s) - R)^2; with ``clip``, PPO's pessimistic clipped variant:
    1/2 max((V - R)^2, (V_old + clip(V - V_old, -clip, clip) - R)^2); averaged over the ``rows`` that
    chose (``rlfw.batch.acting``: a waiting seat's position has no return of its own), all if None."""
    loss = (value - returns).pow(2)
    if clip is not None and old_value is not None:
        clipped = old_value + (value - old_value).clamp(-clip, clip)
        loss = torch.max(loss, (clipped - returns).pow(2))
    return 0.5 * mean(loss, rows)
