"""rlfw's own vector envs (agents as rows, a league), each of which says its state itself for an exact
resume, and what a row of agents holds: how an agent's observation is read (``Reading``) and the row's
layout (``row_layout``: the agent's observation, its id, the global state, the open actions)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import gymnasium as gym
import numpy as np

from rlfw.env.masks import OBSERVATION
from rlfw.env.packed import KEY, STATE, Part, layout


class RowsEnv(gym.vector.VectorEnv):
    """A vector env of rlfw's own: it gives its state as ``state_dict()`` and takes it back with
    ``load_state_dict`` (made with ``rlfw.env.snapshot``'s walk)."""

    def state_dict(self) -> dict[str, Any]:  # pragma: no cover
        raise NotImplementedError

    def load_state_dict(self, state: dict[str, Any]) -> None:  # pragma: no cover
        raise NotImplementedError


def joined(*spaces: gym.spaces.Box) -> gym.spaces.Box:
    """Flat Boxes one after another, as float32."""
    low = np.concatenate([s.low.reshape(-1).astype(np.float32) for s in spaces])
    high = np.concatenate([s.high.reshape(-1).astype(np.float32) for s in spaces])
    return gym.spaces.Box(low, high, dtype=np.float32)


def row_layout(
    space: gym.spaces.Box, agents: int, agent_id: bool, global_state: gym.spaces.Box | None, masks: int | None
) -> tuple[gym.spaces.Box, tuple[Part, ...]]:
    """One row's observation space and, when it packs more than the agent's own observation, its parts:
    the agent's (then ``agents`` one-hot columns if ``agent_id``) as ``observation``, the global ``state``, and
    ``masks`` open actions."""
    own = joined(space, gym.spaces.Box(0, 1, (agents,))) if agent_id else space
    if global_state is None and masks is None:
        return own, ()
    keys: dict[str, gym.Space] = {OBSERVATION: joined(own)}
    if global_state is not None:
        keys[STATE] = global_state
    if masks is not None:
        keys[KEY] = gym.spaces.MultiBinary(masks)
    parts = layout(gym.spaces.Dict(keys))[0]
    return gym.spaces.Box(-np.inf, np.inf, (parts[-1].start + parts[-1].size,), np.float32), parts


@dataclass(frozen=True)
class Reading:
    """How one agent's observation is read (``rlfw.env.pettingzoo`` finds it): as a Box (``space``),
    PettingZoo's classic form (``{"observation", "action_mask"}``: the observation alone), flattened
    one-hot first from ``flatten`` (a Discrete, a Tuple), and its open actions from ``mask`` (obs, info,
    or none: ``rlfw.env.masks``)."""

    space: gym.spaces.Box
    classic: bool = False
    flatten: gym.Space | None = None
    mask: str = "none"
