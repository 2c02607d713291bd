"""What a target rule is and declares: the one place the fit checks (``rlfw/config/check.py``) and
``rlfw.testing`` read it from."""

from __future__ import annotations

from torch import nn


class TargetRule:
    """``step(online, target, update)`` after each applied update (``update`` counts them from 1)."""

    uses_target: bool = True  # whether the run keeps a target network for it

    def step(self, online: nn.Module, target: nn.Module, update: int) -> None:  # pragma: no cover
        raise NotImplementedError
