"""Polyak averaging after every update: theta_target <- tau * theta + (1 - tau) * theta_target."""

from __future__ import annotations

import torch
from torch import nn

from rlfw.errors import require
from rlfw.registry import register
from rlfw.target.contract import TargetRule


@torch.no_grad()
def blend(online: nn.Module, target: nn.Module, tau: float) -> None:
    """Move the target's parameters a ``tau`` fraction of the way to the online network's."""
    torch._foreach_lerp_(list(target.parameters()), list(online.parameters()), tau)
    for target_buffer, online_buffer in zip(target.buffers(), online.buffers(), strict=True):
        target_buffer.copy_(online_buffer)  # running statistics are copied, not averaged


@register("target", "polyak")
class PolyakUpdate(TargetRule):
    """``parts``: the network's parts the target follows (SAC: ``[critic]``, its actor is never used
    as a target); null: the whole network."""

    schedulable = frozenset({"tau"})

    uses_target = True

    def __init__(self, tau: float = 0.005, parts: list[str] | None = None):
        require(0.0 < tau <= 1.0, "target.tau", tau, "must be in (0, 1]")
        require(parts is None or len(parts) > 0, "target.parts", parts, "null (the whole network) or part names")
        self.tau, self.parts = tau, parts

    def step(self, online: nn.Module, target: nn.Module, update: int) -> None:
        if self.parts is None:
            blend(online, target, self.tau)
            return
        for part in self.parts:
            blend(getattr(online, part), getattr(target, part), self.tau)
