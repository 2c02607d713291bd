"""Polyak averaging after every update: theta_target <- tau * theta + (1 - tau) * theta_target."""

from __future__ import annotations

import torch
from torch import nn

from rlfw.errors import require
from rlfw.registry import register


@torch.no_grad()
def blend(online: nn.Module, target: nn.Module, tau: float) -> None:
    """Move the target's parameters a ``tau`` fraction of the way to the online network's."""
    torch._foreach_lerp_(list(target.parameters()), list(online.parameters()), tau)
    for target_buffer, online_buffer in zip(target.buffers(), online.buffers(), strict=True):
        target_buffer.copy_(online_buffer)  # running statistics are copied, not averaged


@register("target", "polyak")
class PolyakUpdate:
    uses_target = True

    def __init__(self, tau: float = 0.005):
        require(0.0 < tau <= 1.0, "target.tau", tau, "must be in (0, 1]")
        self.tau = tau

    def step(self, online: nn.Module, target: nn.Module, update: int) -> None:
        blend(online, target, self.tau)
