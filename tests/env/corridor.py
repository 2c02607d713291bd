"""A tiny env that registers itself when imported, as third-party env packages do."""

import gymnasium as gym
import numpy as np


class Corridor(gym.Env):
    """Walk right (action 1) to the end of a 5-cell corridor: +1 there, 0 per step otherwise."""

    observation_space = gym.spaces.Box(0.0, 1.0, (5,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.pos = 0
        return self._obs(), {}

    def step(self, action):
        self.pos = max(0, self.pos + (1 if action == 1 else -1))
        done = self.pos == 4
        return self._obs(), float(done), done, False, {}

    def _obs(self):
        obs = np.zeros(5, np.float32)
        obs[self.pos] = 1.0
        return obs


gym.register("RlfwTest/Corridor-v0", entry_point=Corridor, max_episode_steps=20)


class TwinCorridor(gym.Env):
    """Two corridors walked at once with one MultiDiscrete action (a step in each): -0.05 a step, +1
    once both reach their end; the best return, walking right in both, is 0.85."""

    observation_space = gym.spaces.Box(0.0, 1.0, (10,), np.float32)
    action_space = gym.spaces.MultiDiscrete([2, 2])

    def reset(self, seed=None, options=None):
        super().reset(seed=seed)
        self.pos = [0, 0]
        return self._obs(), {}

    def step(self, action):
        self.pos = [min(4, max(0, p + (1 if a == 1 else -1))) for p, a in zip(self.pos, action, strict=True)]
        done = self.pos == [4, 4]
        return self._obs(), 1.0 if done else -0.05, done, False, {}

    def _obs(self):
        obs = np.zeros(10, np.float32)
        obs[self.pos[0]] = obs[5 + self.pos[1]] = 1.0
        return obs


gym.register("RlfwTest/TwinCorridor-v0", entry_point=TwinCorridor, max_episode_steps=40)
