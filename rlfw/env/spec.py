"""What the rest of rlfw needs to know about an environment."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

import gymnasium as gym
import numpy as np


def env_action(space: gym.Space) -> Callable[[np.ndarray], np.ndarray]:
    """How an action enters the env: clipped to a Box's bounds, as CleanRL's and SB3's PPO do (the
    replay keeps what was sampled, so its log-prob stays the one the losses use); as it is otherwise."""
    if isinstance(space, gym.spaces.Box):
        low, high = space.low, space.high
        return lambda action: np.clip(action, low, high)
    return lambda action: action


@dataclass(frozen=True)
class EnvSpec:
    id: str
    obs_shape: tuple[int, ...]
    action_space: gym.Space  # the single-env action space
    solved_return: float | None  # a mean eval return that counts as solved (gymnasium's reward_threshold by default)
    obs_dtype: np.dtype = np.dtype(np.float32)  # noqa: RUF009  (a dtype is immutable)
    # Observations that stack the last ``frame_stack`` frames on axis 0, newest last (0: not stacked).
    # An episode's first stack pads the frames before its first with ``stack_padding``: "zeros", or
    # "first" (copies of the first frame).
    frame_stack: int = 0
    stack_padding: str = "zeros"
    # Whether the env gives invalid-action masks (``rlfw.env.masks``): its info's "action_mask" at every step.
    masked: bool = False
    # A Dict observation's keys, packed into the one flat observation (``rlfw.env.packed``); () otherwise.
    parts: tuple = ()
    # Rows of the vector env per copy of the env: its agents (``rlfw.env.agents``); 1 for a one-agent env.
    agents: int = 1
    # Whether the agents are the seats of a turn-based game (``rlfw.env.agents``): one row acts a step,
    # the others wait with every action closed in their masks.
    turns: bool = False
    # Whether agents may leave an episode before the others (``rlfw.env.agents``' ``leave``): their rows
    # wait, every action closed, until the episode ends.
    leave: bool = False

    @property
    def obs_bytes(self) -> int:
        return int(np.prod(self.obs_shape)) * self.obs_dtype.itemsize

    @property
    def discrete(self) -> bool:
        return isinstance(self.action_space, gym.spaces.Discrete)

    @property
    def num_actions(self) -> int:
        return int(cast(gym.spaces.Discrete, self.action_space).n)
