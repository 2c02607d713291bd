"""sb3-contrib's InvalidActionEnvDiscrete registered with gymnasium, for benchmarks/masked.py: rlfw's runs
import this module (``env.imports=[benchmarks.masked_env]``, from the repository's root) and MaskablePPO's
make it by id.

Its ``action_masks()`` tests each action for membership in a Python list of the closed ones (339 x 300
list lookups a call), and each step builds a Python list of the 338 candidates to close: that would time
the env rather than the frameworks. ``NumpyMasks`` draws the same closed actions from the same numpy
stream with arrays and gives the same masks from one numpy assignment; both sides use it."""

import gymnasium as gym
import numpy as np
from sb3_contrib.common.envs import InvalidActionEnvDiscrete

ENVS = {"80": (80, 60), "339": (339, 300)}  # actions, closed at each step
ID = "RlfwBench/InvalidActionEnvDiscrete{}-v0"


class NumpyMasks(InvalidActionEnvDiscrete):
    def _choose_next_state(self) -> None:
        self.state = self.action_space.sample()
        others = np.delete(self.possible_actions, self.state)
        self.invalid_actions = np.random.choice(others, self.n_invalid_actions, replace=False)

    def action_masks(self) -> np.ndarray:
        mask = np.ones(len(self.possible_actions), dtype=bool)
        mask[self.invalid_actions] = False
        return mask


for name, (actions, closed) in ENVS.items():
    gym.register(ID.format(name), entry_point=NumpyMasks, kwargs={"dim": actions, "n_invalid_actions": closed})
