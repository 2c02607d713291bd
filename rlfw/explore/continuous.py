"""Exploration for off-policy actor-critics in Box action spaces: uniform random actions for the first
``random_steps`` env steps (the algo yaml ties them to ``replay.learning_starts``), then

- ``stochastic``: a sample of the policy (SAC);
- ``noise``: the deterministic action plus Gaussian noise of ``sigma`` times the action scale,
  clipped to the bounds (TD3, DDPG).
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import torch

from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.explore.act import Outputs
from rlfw.explore.contract import ExploreRule
from rlfw.registry import register


class RandomFirst(ExploreRule):
    action_spaces = frozenset({"Box"})
    extras: frozenset[str] = frozenset()

    def __init__(self, spec: EnvSpec, random_steps: int):
        require(random_steps >= 0, "explore.random_steps", random_steps, "env steps of uniform random actions, >= 0")
        space = spec.action_space
        require(
            isinstance(space, gym.spaces.Box),
            "env.id",
            spec.id,
            f"this explore rule acts in Box spaces; the env has {space}",
        )
        assert isinstance(space, gym.spaces.Box)
        self.low, self.high = torch.as_tensor(space.low), torch.as_tensor(space.high)
        self.random_steps = random_steps

    def uniform(self, rows: int) -> np.ndarray:
        """Uniform actions, from torch's generator (rlfw's one seeded stream)."""
        return (self.low + torch.rand(rows, *self.low.shape) * (self.high - self.low)).numpy()


@register("explore", "stochastic")
class Stochastic(RandomFirst):
    needs: frozenset[str] = frozenset()
    needs_distribution = True

    def __init__(self, spec: EnvSpec, random_steps: int = 5000):
        super().__init__(spec, random_steps)

    def act(self, outputs: Outputs, env_step: int) -> tuple[np.ndarray, dict]:
        if env_step < self.random_steps:
            return self.uniform(outputs.rows), {}
        return outputs.distribution().sample().numpy(force=True), {}


@register("explore", "noise")
class GaussianNoise(RandomFirst):
    schedulable = frozenset({"sigma"})
    needs: frozenset[str] = frozenset()

    def __init__(self, spec: EnvSpec, sigma: float = 0.1, random_steps: int = 25_000):
        super().__init__(spec, random_steps)
        require(sigma >= 0, "explore.sigma", sigma, "the noise's std as a fraction of the action scale, >= 0")
        self.sigma = sigma

    def act(self, outputs: Outputs, env_step: int) -> tuple[np.ndarray, dict]:
        if env_step < self.random_steps:
            return self.uniform(outputs.rows), {}
        action = outputs.mode().cpu()
        noise = torch.randn(action.shape) * self.sigma * (self.high - self.low) / 2
        return torch.max(torch.min(action + noise, self.high), self.low).numpy(), {}
