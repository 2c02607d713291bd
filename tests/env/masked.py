"""A masked env that registers itself when imported: sb3-contrib's ``InvalidActionEnvDiscrete`` (its
identity task: reward 1 for naming the observed state) with its mask given by any of the three
conventions (``convention``: method, info or obs), so one env tests them all."""

import gymnasium as gym
import numpy as np


class MaskedIdentity(gym.Env):
    """Observe a state in [0, dim); +1 for the action equal to it; ``n_invalid`` other actions closed at
    each step, drawn anew; episodes of ``ep_length`` steps (truncated)."""

    def __init__(self, dim: int = 80, n_invalid: int = 60, ep_length: int = 100, convention: str = "method"):
        self.dim, self.n_invalid, self.ep_length, self.convention = dim, n_invalid, ep_length, convention
        self.action_space = gym.spaces.Discrete(dim)
        state = gym.spaces.Discrete(dim)
        self.mask_space = gym.spaces.MultiBinary(dim)
        self.observation_space = (
            gym.spaces.Dict({"observation": state, "action_mask": self.mask_space}) if convention == "obs" else state
        )

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        self._draw()
        return self._out()

    def step(self, action):
        reward = float(action == self.state)
        self.t += 1
        self._draw()
        obs, info = self._out()
        return obs, reward, False, self.t >= self.ep_length, info

    def action_masks(self) -> np.ndarray:
        return self.mask.copy()

    def _draw(self) -> None:
        self.state = int(self.np_random.integers(self.dim))
        others = np.array([a for a in range(self.dim) if a != self.state])
        self.mask = np.ones(self.dim, dtype=np.int8)
        self.mask[self.np_random.choice(others, self.n_invalid, replace=False)] = 0

    def _out(self):
        if self.convention == "obs":
            return {"observation": self.state, "action_mask": self.mask.copy()}, {}
        return self.state, ({"action_mask": self.mask.copy()} if self.convention == "info" else {})


gym.register("RlfwTest/MaskedIdentity-v0", entry_point=MaskedIdentity)
