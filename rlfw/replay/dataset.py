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


class DatasetRows:
    """A dataset's transitions as tensors (shared with numpy, never copied), drawn uniformly."""

    def __init__(self, data: Transitions | None, gamma: float):
        assert data is not None, "rlfw.config.fit checks that a dataset comes with a replay that needs one"
        self.gamma = gamma
        self.data = {
            "obs": torch.from_numpy(data.obs),
            "action": torch.from_numpy(data.action),
            "reward": torch.from_numpy(data.reward),
            "next_obs": torch.from_numpy(data.next_obs),
            "terminated": torch.from_numpy(data.terminated),
        }
        self.size = len(data)
        low, high = data.ref_min_score, data.ref_max_score
        self.references = None if low is None or high is None else (low, high)

    def draw(self, size: int) -> Batch:
        i = torch.randint(self.size, (size,))
        batch = Batch({k: v[i] for k, v in self.data.items()})
        batch["discount"] = torch.full_like(batch["reward"], self.gamma)
        return batch


@register("replay", "dataset")
class DatasetReplay(Replay):
    """Yields ``updates`` batches of ``batch_size`` transitions drawn uniformly from the dataset, then
    hands back to the run (an evaluation or a checkpoint when due)."""

    provides = frozenset({"obs", "action", "reward", "next_obs", "terminated", "discount"})
    fixed = True
    needs_data = True

    def __init__(self, data: Transitions | None, gamma: float, batch_size: int = 256, updates: int = 1000):
        require(batch_size >= 1, "replay.batch_size", batch_size, "must be >= 1")
        require(updates >= 1, "replay.updates", updates, "batches between the run's safe points, >= 1")
        self.batch_size, self.updates = batch_size, updates
        self.rows = DatasetRows(data, gamma)
        self.references = self.rows.references

    def observations(self) -> np.ndarray:
        """Every observation of the dataset (what ``network.normalize_obs`` takes its statistics from)."""
        return self.rows.data["obs"].numpy()

    def add(self, step: dict[str, np.ndarray]) -> None:
        raise RuntimeError("replay=dataset is fixed: no step is added to it")

    def ready(self) -> bool:
        return True

    def batches(self, net) -> Iterator[Batch]:
        for _ in range(self.updates):
            yield self.rows.draw(self.batch_size)

    def feedback(self, batch: Batch) -> None:
        """Nothing to hear: every transition is as likely as any other."""
