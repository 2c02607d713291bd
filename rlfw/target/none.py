"""No target network (actor-critic losses bootstrap from the rollout's own values)."""

from __future__ import annotations

from torch import nn

from rlfw.registry import register
from rlfw.target.contract import TargetRule


@register("target", "none")
class NoTarget(TargetRule):
    uses_target = False

    def step(self, online: nn.Module, target: nn.Module | None, update: int) -> None:
        pass
