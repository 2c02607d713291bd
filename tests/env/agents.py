"""A small PettingZoo Parallel env for the agents-as-rows tests: each agent sees its own counter and a mask
that closes the action equal to it; an agent is rewarded for naming the counter plus one (mod ``n``).
Episodes last ``length`` steps; with ``leave`` the last agent's episode ends a step early."""

import functools

import gymnasium as gym
import numpy as np
from pettingzoo import ParallelEnv


class Counters(ParallelEnv):
    metadata = {"name": "counters_v0"}  # noqa: RUF012  (PettingZoo's class attribute)

    def __init__(
        self,
        agents: int = 2,
        n: int = 4,
        length: int = 3,
        leave: bool = False,
        masks: str = "obs",
        global_state: bool = False,
    ):
        self.possible_agents = [f"agent_{i}" for i in range(agents)]
        self.n, self.length, self.leave, self.masks, self.global_state = n, length, leave, masks, global_state

    @functools.cache  # noqa: B019  (PettingZoo's own idiom: one space object per agent)
    def observation_space(self, agent):
        counter = gym.spaces.Box(0, self.n, (1,), np.float32)
        if self.masks != "obs":
            return counter
        return gym.spaces.Dict({"observation": counter, "action_mask": gym.spaces.MultiBinary(self.n)})

    @functools.cache  # noqa: B019
    def action_space(self, agent):
        return gym.spaces.Discrete(self.n)

    def reset(self, seed=None, options=None):
        if seed is not None or not hasattr(self, "rng"):  # no seed: the generator goes on (PettingZoo's way)
            self.rng = np.random.default_rng(seed)
        self.agents, self.t = list(self.possible_agents), 0
        self.counters = {a: int(self.rng.integers(self.n)) for a in self.agents}
        return self._obs(), self._infos()

    def step(self, actions):
        rewards = {a: float(actions[a] == (self.counters[a] + 1) % self.n) for a in self.agents}
        self.t += 1
        self.counters = {a: int(self.rng.integers(self.n)) for a in self.agents}
        over = self.t >= self.length
        truncations = {a: over for a in self.agents}
        if self.leave and self.t == self.length - 1:
            truncations[self.agents[-1]] = True
        obs, infos = self._obs(), self._infos()
        terminations = {a: False for a in self.agents}
        self.agents = [a for a in self.agents if not truncations[a]]
        return obs, rewards, terminations, truncations, infos

    def state(self):
        """With ``global_state``, every agent's counter (0 for one that left); else none, as PettingZoo's
        envs without a global state."""
        if not self.global_state:
            raise NotImplementedError("no global state")
        return np.array([self.counters.get(a, 0) for a in self.possible_agents], np.float32)

    def _mask(self, agent):
        mask = np.ones(self.n, dtype=np.int8)
        mask[self.counters[agent]] = 0
        return mask

    def _obs(self):
        counters = {a: np.array([self.counters[a]], np.float32) for a in self.agents}
        if self.masks != "obs":
            return counters
        return {a: {"observation": counters[a], "action_mask": self._mask(a)} for a in self.agents}

    def _infos(self):
        return {a: ({"action_mask": self._mask(a)} if self.masks == "info" else {}) for a in self.agents}
