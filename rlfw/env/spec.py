"""What the rest of rlfw needs to know about an environment: the one source of its observations' layout,
its open actions, its agents, and whether its rows act at every step."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import cast

import gymnasium as gym
import numpy as np

from rlfw.env.packed import MASK, Part

# The info key of which rows act on the observation a vector env returns (bools, one per row), where some
# rows do not act at some steps (``EnvSpec.idle``): a seat off its turn, an agent that left its episode.
ACTING = "acting"


def env_action(space: gym.Space) -> Callable[[np.ndarray], np.ndarray]:
    """How an action enters the env: clipped to a Box's bounds, as CleanRL's and SB3's PPO do (the
    replay keeps what was sampled, so its log-prob stays the one the losses use); as it is otherwise
    (numpy's own functions: no call of this module's at every step)."""
    if isinstance(space, gym.spaces.Box):
        return partial(np.clip, a_min=space.low, a_max=space.high)
    return np.asarray


@dataclass(frozen=True)
class EnvSpec:
    id: str
    obs_shape: tuple[int, ...]  # one row's observation as stored and read by the network (a packed one: flat)
    action_space: gym.Space  # the single-env action space
    solved_return: float | None  # a mean eval return that counts as solved (gymnasium's reward_threshold by default)
    obs_dtype: np.dtype = np.dtype(np.float32)  # noqa: RUF009  (a dtype is immutable)
    # Observations that stack the last ``frame_stack`` frames on axis 0, newest last (0: not stacked).
    # An episode's first stack pads the frames before its first with ``stack_padding``: "zeros", or
    # "first" (copies of the first frame).
    frame_stack: int = 0
    stack_padding: str = "zeros"
    # The parts packed into the one flat observation (``rlfw.env.packed``): a Dict observation's keys, and
    # the open actions (the part ``action_mask``) where the env gives masks; () for a plain array.
    parts: tuple[Part, ...] = ()
    # The agents of one copy of the env, each a row of the vector env, side by side (``rlfw.env.agents``);
    # () for a one-agent env (one row a copy).
    agents: tuple[str, ...] = ()
    # Why some rows may not act at some steps ("" when every row acts at every step): the vector env's
    # ``info["acting"]`` then says which rows act on the observation it returns.
    idle: str = ""
    # How a greedy evaluation measures the policy: "returns" (episode returns), or "games" (a turn-based
    # game's results against opponents from each seat, ``rlfw.run.games``).
    evaluation: str = "returns"

    @property
    def obs_bytes(self) -> int:
        return int(np.prod(self.obs_shape)) * self.obs_dtype.itemsize

    @property
    def discrete(self) -> bool:
        return isinstance(self.action_space, gym.spaces.Discrete)

    @property
    def num_actions(self) -> int:
        return int(cast(gym.spaces.Discrete, self.action_space).n)

    @property
    def mask(self) -> Part | None:
        """Where a row's open actions lie in its observation; None where the env gives no masks."""
        return next((p for p in self.parts if p.kind == MASK), None)

    @property
    def observed(self) -> tuple[Part, ...]:
        """The parts an encoder reads: every part but the open actions."""
        return tuple(p for p in self.parts if p.kind != MASK)

    @property
    def rows_per_copy(self) -> int:
        """Rows of the vector env per copy of the env: its agents; env steps count the copies' steps."""
        return max(1, len(self.agents))

    def breakdown(self, returns: np.ndarray) -> dict[str, float]:
        """With many agents (rows copy-major), the team's return (the sum of a copy's agents') and each
        agent's, as means over the copies; nothing for one agent."""
        if len(self.agents) < 2:
            return {}
        by_copy = returns.reshape(-1, len(self.agents))
        return {
            "team_return_mean": float(by_copy.sum(1).mean()),
            **{f"return_mean_{agent}": float(by_copy[:, i].mean()) for i, agent in enumerate(self.agents)},
        }
