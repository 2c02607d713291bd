"""Epsilon-greedy over Q values, epsilon decaying linearly with env steps; the random action is drawn
among the actions an observation leaves open, the greedy one is the argmax of the head's Q (which closes
the others)."""

from __future__ import annotations

import numpy as np
import torch

from rlfw.errors import require
from rlfw.explore.act import Outputs
from rlfw.explore.contract import ExploreRule
from rlfw.registry import register


@register("explore", "epsilon_greedy")
class EpsilonGreedy(ExploreRule):
    action_spaces = frozenset({"Discrete"})  # its random actions are a Discrete space's
    needs = frozenset({"q"})
    extras: frozenset[str] = frozenset()
    schedulable = frozenset({"start", "end", "decay_steps"})

    def __init__(self, start: float = 1.0, end: float = 0.05, decay_steps: int = 10_000):
        for key, value in (("start", start), ("end", end)):
            require(0.0 <= value <= 1.0, f"explore.{key}", value, "a probability in [0, 1]")
        require(decay_steps >= 0, "explore.decay_steps", decay_steps, "must be >= 0")
        self.start, self.end, self.decay_steps = start, end, decay_steps

    def epsilon(self, env_step: int) -> float:
        """Linear from ``start`` at step 0 to ``end`` at ``decay_steps``, then constant."""
        progress = min(1.0, env_step / self.decay_steps) if self.decay_steps else 1.0
        return self.start + progress * (self.end - self.start)

    def schedule(self, env_step: int) -> dict[str, float]:
        return {"epsilon": self.epsilon(env_step)}

    def act(self, outputs: Outputs, env_step: int) -> tuple[np.ndarray, dict]:
        random = outputs.random()
        explore = torch.rand(outputs.rows) < self.epsilon(env_step)
        if explore.all():  # no sub-env acts greedily: Q is never computed
            return random.numpy(), {}
        # The random draws stay on the CPU's generator (one stream on any device).
        greedy = outputs["q"].argmax(dim=1).cpu()
        return torch.where(explore, random, greedy).numpy(), {}
