"""Prioritized experience replay (Schaul et al. 2016), proportional variant, over a sum tree.

P(i) = p_i^alpha / sum_k p_k^alpha, with p_i = |td_error_i| + eps once the loss has seen sample i
(new transitions get the largest priority so far). Importance weights
w_i = (N * P(i))^-beta / max_j w_j correct the bias; beta anneals linearly to 1 over the run (its env
steps, every rank's: the run's ``clock``).
"""

from __future__ import annotations

import numpy as np
import torch

from rlfw.batch import Batch
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.registry import register
from rlfw.replay.sum_tree import SumTree
from rlfw.replay.uniform import UniformReplay


@register("replay", "prioritized")
class PrioritizedReplay(UniformReplay):
    provides = UniformReplay.provides | {"weight", "index"}
    needs_signals = frozenset({"td_error"})
    joint = False  # draws rows by their own priorities, one by one

    def __init__(
        self,
        spec: EnvSpec,
        num_envs: int,
        gamma: float,
        total_env_steps: int,
        capacity: int = 100_000,
        batch_size: int = 64,
        learning_starts: int = 1000,
        collect_steps: int = 1,
        updates: int = 1,
        n_step: int = 1,
        alpha: float = 0.6,
        beta: float = 0.4,
        eps: float = 1e-6,
    ):
        super().__init__(
            spec,
            num_envs,
            gamma,
            total_env_steps,
            capacity,
            batch_size,
            learning_starts,
            collect_steps,
            updates,
            n_step,
        )
        require(alpha >= 0, "replay.alpha", alpha, "must be >= 0")
        require(0 <= beta <= 1, "replay.beta", beta, "must be in [0, 1]")
        require(eps > 0, "replay.eps", eps, "must be > 0")
        self.alpha, self.beta0, self.eps, self.total_env_steps = alpha, beta, eps, total_env_steps
        self.tree = SumTree(self.store.rows * num_envs)
        self.max_priority = 1.0

    def beta(self) -> float:
        return self.beta0 + (1.0 - self.beta0) * min(1.0, self.clock.env_steps / self.total_env_steps)

    def _row(self, row: int) -> torch.Tensor:
        return row * self.num_envs + torch.arange(self.num_envs)

    def add(self, step: dict[str, np.ndarray]) -> None:
        row = self.store.pos
        rows, priorities = [], []  # one tree update for both rows
        if self.n_step > 1:  # being overwritten: not sampleable until its new n-step window is complete
            rows.append(self._row(row))
            priorities.append(torch.zeros(self.num_envs, dtype=torch.float64))
        self.store.add(step)
        if self.store.size >= self.n_step:  # the row n-1 steps back now has its whole n-step window
            rows.append(self._row((row - self.n_step + 1) % self.store.rows))
            priorities.append(torch.full((self.num_envs,), self.max_priority, dtype=torch.float64))
        if rows:
            self.tree.set(torch.cat(rows), torch.cat(priorities))

    def sample(self) -> Batch:
        # Stratified: one draw from each of batch_size equal slices of the total priority mass.
        total = self.tree.total
        prefix = (torch.arange(self.batch_size) + torch.rand(self.batch_size)) * (total / self.batch_size)
        index = self.tree.find(prefix.clamp(max=total * (1 - 1e-12)))
        invalid = ~self.store.valid(index // self.num_envs, index % self.num_envs)
        if invalid.any():  # steps whose frames were overwritten (see FrameStore): never sampled again
            self.tree.set(index[invalid], torch.zeros(int(invalid.sum()), dtype=torch.float64))
            return self.sample()
        probability = self.tree.get(index) / total
        weight = (len(self) * probability) ** -self.beta()
        batch = self.store.n_step(index // self.num_envs, index % self.num_envs, self.n_step, self.gamma)
        batch["weight"] = (weight / weight.max()).float()  # float64 from the tree -> the loss's float32
        batch["index"] = index
        return batch

    def state_dict(self) -> dict:
        tree = {"tree": torch.from_numpy(self.tree.tree.copy()), "max_priority": self.max_priority}
        return {**super().state_dict(), **tree}

    def load_state_dict(self, state: dict) -> None:
        super().load_state_dict(state)
        self.tree.tree[:] = state["tree"].numpy()
        self.max_priority = state["max_priority"]  # its env_steps, in older checkpoints: the collector's clock now

    def feedback(self, batch: Batch) -> None:
        """New priorities from the loss's signal ``td_error``."""
        priority = (batch.signals["td_error"].cpu().abs().double() + self.eps) ** self.alpha
        self.tree.set(batch.index, priority)
        self.max_priority = max(self.max_priority, float(priority.max()))
