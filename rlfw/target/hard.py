"""Hard target update: copy the online network every ``period`` optimizer updates (DQN)."""

from __future__ import annotations

from torch import nn

from rlfw.errors import require
from rlfw.registry import register


@register("target", "hard")
class HardUpdate:
    uses_target = True

    def __init__(self, period: int = 1000):
        require(period >= 1, "target.period", period, "must be >= 1 (optimizer updates)")
        self.period = period

    def step(self, online: nn.Module, target: nn.Module, update: int) -> None:
        if update % self.period == 0:
            target.load_state_dict(online.state_dict())
