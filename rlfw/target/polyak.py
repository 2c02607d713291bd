"""Polyak averaging after every update: theta_target <- tau * theta + (1 - tau) * theta_target."""

from __future__ import annotations

import torch
from torch import nn

from rlfw.errors import require
from rlfw.registry import register


@register("target", "polyak")
class PolyakUpdate:
    uses_target = True

    def __init__(self, tau: float = 0.005):
        require(0.0 < tau <= 1.0, "target.tau", tau, "must be in (0, 1]")
        self.tau = tau

    @torch.no_grad()
    def step(self, online: nn.Module, target: nn.Module, update: int) -> None:
        torch._foreach_lerp_(list(target.parameters()), list(online.parameters()), self.tau)
        for target_buffer, online_buffer in zip(target.buffers(), online.buffers()):
            target_buffer.copy_(online_buffer)  # running statistics are copied, not averaged
