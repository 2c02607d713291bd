"""rlfw's own vector envs (agents as rows, a league): each says its state itself, for exact resume."""

from __future__ import annotations

from typing import Any

import gymnasium as gym


class RowsEnv(gym.vector.VectorEnv):
    """A vector env of rlfw's own: it gives its state as ``state_dict()`` and takes it back with
    ``load_state_dict`` (made with ``rlfw.env.snapshot``'s walk)."""

    def state_dict(self) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def load_state_dict(self, state: dict[str, Any]) -> None:  # pragma: no cover
        raise NotImplementedError
