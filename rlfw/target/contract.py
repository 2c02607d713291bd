"""What a target rule is and declares: the one place the fit checks (``rlfw/config/fit.py``) and
``rlfw.testing`` read it from."""

from __future__ import annotations

from typing import Any

from torch import nn


class TargetRule:
    """``step(online, target, update)`` after each applied update (``update`` counts them from 1)."""

    uses_target: bool = True  # whether the run keeps a target network for it
    parts: list[str] | None = None  # the network's parts it follows (its top-level children); None: all of it
    # the values a run may change as it trains (``schedule.target.<name>``): plain numbers it reads at each step
    schedulable: frozenset[str] = frozenset()

    def step(self, online: nn.Module, target: nn.Module, update: int) -> None:  # pragma: no cover
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """What a checkpoint keeps of it; nothing by default."""
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Puts ``state_dict``'s result back."""
