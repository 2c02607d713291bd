"""Periodic target update: every ``period`` optimizer updates, copy the online network (DQN), or with
``tau`` < 1 move the target that fraction of the way to it (SB3's DQN rule: target_update_interval and
tau; ``period=1`` with ``tau`` < 1 is Polyak averaging)."""

from __future__ import annotations

from torch import nn

from rlfw.errors import require
from rlfw.registry import register
from rlfw.target.contract import TargetRule
from rlfw.target.polyak import blend


@register("target", "hard")
class HardUpdate(TargetRule):
    schedulable = frozenset({"period", "tau"})
    uses_target = True

    def __init__(self, period: int = 1000, tau: float = 1.0):
        require(period >= 1, "target.period", period, "must be >= 1 (optimizer updates)")
        require(0.0 < tau <= 1.0, "target.tau", tau, "must be in (0, 1] (1: a copy)")
        self.period, self.tau = period, tau

    def step(self, online: nn.Module, target: nn.Module, update: int) -> None:
        if update % self.period:
            return
        if self.tau == 1.0:
            target.load_state_dict(online.state_dict())
        else:
            blend(online, target, self.tau)
