"""A fixed dataset's transitions, sampled uniformly: the replay of a run that learns from data
(``data=minari data.id=...``). Nothing is added and no env is stepped to train; the run's budget and
schedule count updates (``total_updates``), and evaluation still plays the env."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import torch

from rlfw.batch import Batch
from rlfw.dataset.read import Transitions
from rlfw.errors import require
from rlfw.registry import register
from rlfw.replay.contract import Replay


@register("replay", "dataset")
class DatasetReplay(Replay):
    """Yields ``updates`` batches of ``batch_size`` transitions drawn uniformly from the dataset, then
    hands back to the run (an evaluation or a checkpoint when due)."""

    provides = frozenset({"obs", "action", "reward", "next_obs", "terminated", "discount"})
    fixed = True

    def __init__(self, data: Transitions | None, gamma: float, batch_size: int = 256, updates: int = 1000):
        assert data is not None, "rlfw.config.fit checks that a dataset comes with replay=dataset"
        require(batch_size >= 1, "replay.batch_size", batch_size, "must be >= 1")
        require(updates >= 1, "replay.updates", updates, "batches between the run's safe points, >= 1")
        self.batch_size, self.updates, self.gamma = batch_size, updates, gamma
        self.data = {
            "obs": torch.from_numpy(data.obs),
            "action": torch.from_numpy(data.action),
            "reward": torch.from_numpy(data.reward),
            "next_obs": torch.from_numpy(data.next_obs),
            "terminated": torch.from_numpy(data.terminated),
        }
        self.size = len(data)
        if data.ref_min_score is not None and data.ref_max_score is not None:
            self.references = (data.ref_min_score, data.ref_max_score)

    def observations(self) -> np.ndarray:
        """Every observation of the dataset (what ``network.normalize_obs`` takes its statistics from)."""
        return self.data["obs"].numpy()

    def add(self, step: dict[str, np.ndarray]) -> None:
        raise RuntimeError("replay=dataset is fixed: no step is added to it")

    def ready(self) -> bool:
        return True

    def batches(self, net) -> Iterator[Batch]:
        for _ in range(self.updates):
            i = torch.randint(self.size, (self.batch_size,))
            d = self.data
            reward = d["reward"][i]
            yield Batch(
                obs=d["obs"][i],
                action=d["action"][i],
                reward=reward,
                next_obs=d["next_obs"][i],
                terminated=d["terminated"][i],
                discount=torch.full_like(reward, self.gamma),
            )

    def feedback(self, batch: Batch) -> None:
        """Nothing to hear: every transition is as likely as any other."""
