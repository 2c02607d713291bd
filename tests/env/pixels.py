"""A tiny synthetic pixel env for replay tests: every frame is new random noise, episodes end at
random (terminated with probability 0.1, truncated with 0.05 per step), observations stack frames
with gymnasium's ``FrameStackObservation``."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

FRAME = (3, 5)  # tiny frames, so a test can compare every sample


class NoiseFrames(gym.Env):
    observation_space = gym.spaces.Box(0, 255, FRAME, np.uint8)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        return self._frame(), {}

    def step(self, action):
        end = self.np_random.random()
        return self._frame(), float(self.np_random.normal()), end < 0.1, 0.1 <= end < 0.15, {}

    def _frame(self) -> np.ndarray:
        return self.np_random.integers(1, 256, FRAME, dtype=np.uint8)  # never all-zero: padding shows


def noise_envs(num_envs: int, stack: int, padding: str) -> gym.vector.VectorEnv:
    """``padding``: "zeros" or "first", as ``EnvSpec.stack_padding`` names them."""
    pad = np.zeros(FRAME, np.uint8) if padding == "zeros" else "reset"
    return gym.vector.SyncVectorEnv(
        [lambda: gym.wrappers.FrameStackObservation(NoiseFrames(), stack, padding_type=pad)] * num_envs,
        autoreset_mode=gym.vector.AutoresetMode.SAME_STEP,
    )
