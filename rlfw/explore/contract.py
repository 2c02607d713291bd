"""What an explore rule is and declares: the one place the fit checks (``rlfw/config/fit.py``),
the plugin listing and ``rlfw.testing`` read its capabilities from."""

from __future__ import annotations

from typing import Any

import numpy as np

from rlfw.explore.act import Outputs


class ExploreRule:
    """``act(outputs, env_step) -> (actions, extras)``, numpy out: the actions the envs take and what
    the replay records with them (``extras``). A rule subclasses this class and overrides what it needs."""

    action_spaces: frozenset[str] = frozenset({"Discrete", "MultiDiscrete", "Box"})  # the spaces it acts in
    needs: frozenset[str] = frozenset()  # the network outputs it reads
    needs_distribution: bool = False  # pi(.|s) from the head (``outputs.distribution()``)
    extras: frozenset[str] = frozenset()  # what it records per step ("logp", "value")
    # the values a run may change as it trains (``schedule.explore.<name>``): plain numbers it reads at each step
    schedulable: frozenset[str] = frozenset()

    def act(self, outputs: Outputs, env_step: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:  # pragma: no cover
        raise NotImplementedError

    def schedule(self, env_step: int) -> dict[str, float]:
        """The values it follows by env step, at ``env_step`` (epsilon-greedy's epsilon), for the train metrics."""
        return {}

    def state_dict(self) -> dict[str, Any]:
        """What a checkpoint keeps of it (a rule that learns or counts something); nothing by default."""
        return {}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        """Puts ``state_dict``'s result back."""
