"""Catch: a tiny pixel game that trains in a minute on a CPU, to check the pixel path end to end.

A ball starts in a random column of the top row and falls one row per step, drifting one column
left or right (it bounces off the walls); the agent moves a paddle along the bottom row (left, stay,
right). When the ball reaches the bottom row the episode ends with reward +1 if the paddle is under
it, else -1. One frame shows where the ball is, not where it drifts: observations stack the last
``stack`` frames (gymnasium's ``FrameStackObservation``), as Atari's do, so the replay stores them
with ``FrameStore``. After the bsuite Catch (Osband et al. 2020), with the drift added.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from rlfw.env.contract import EnvOption
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.registry import register


class CatchEnv(gym.Env):
    action_space = gym.spaces.Discrete(3)

    def __init__(self, rows: int, columns: int):
        self.rows, self.columns = rows, columns
        self.observation_space = gym.spaces.Box(0, 255, (rows, columns), np.uint8)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.ball = [0, int(self.np_random.integers(self.columns))]
        self.drift = int(self.np_random.choice([-1, 1]))
        self.paddle = self.columns // 2
        return self._frame(), {}

    def step(self, action):
        self.paddle = int(np.clip(self.paddle + int(action) - 1, 0, self.columns - 1))
        column = self.ball[1] + self.drift
        if not 0 <= column < self.columns:  # bounce off the wall
            self.drift = -self.drift
            column = self.ball[1] + self.drift
        self.ball = [self.ball[0] + 1, column]
        done = self.ball[0] == self.rows - 1
        reward = (1.0 if self.ball[1] == self.paddle else -1.0) if done else 0.0
        return self._frame(), reward, done, False, {}

    def render(self) -> np.ndarray:
        """The frame as RGB, each cell 16x16 pixels."""
        return np.repeat(np.repeat(self._frame(), 16, 0), 16, 1)[..., None].repeat(3, 2)

    def _frame(self) -> np.ndarray:
        frame = np.zeros((self.rows, self.columns), np.uint8)
        frame[self.ball[0], self.ball[1]] = 255
        frame[self.rows - 1, self.paddle] = 128
        return frame


@register("env", "catch")
class Catch(EnvOption):
    renders = True

    def __init__(self, rows: int = 10, columns: int = 5, stack: int = 2, solved_return: float | None = 0.9):
        require(rows >= 3, "env.rows", rows, "must be >= 3")
        require(columns >= 2, "env.columns", columns, "must be >= 2")
        require(stack >= 1, "env.stack", stack, "must be >= 1")
        self.rows, self.columns, self.stack = rows, columns, stack
        self.spec = EnvSpec(
            "Catch",
            (stack, rows, columns),
            CatchEnv.action_space,
            solved_return,
            np.dtype(np.uint8),
            frame_stack=stack,
            stack_padding="first",
        )

    def render_env(self, render_mode: str = "rgb_array") -> tuple[gym.Env, float]:
        require(render_mode == "rgb_array", "render", render_mode, "Catch renders rgb_array frames only (a video)")
        return self._env(), 4

    def make(self, num_envs: int, evaluation: bool = False) -> gym.vector.VectorEnv:
        require(num_envs >= 1, "num_envs", num_envs, "must be >= 1")
        return gym.vector.SyncVectorEnv(
            [self._env] * num_envs,
            autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
        )

    def _env(self) -> gym.Env:
        return gym.wrappers.FrameStackObservation(CatchEnv(self.rows, self.columns), self.stack)
