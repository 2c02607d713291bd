"""A dataset and the run's own steps in every batch: the replay of a run that goes on online after
learning offline (``online=finetune``), or that starts online with a dataset beside it.

With ``data_share`` null the two are one pool: a dataset transition is as likely as one of the run's
(CORL's IQL fine-tuning and d3rlpy's ``fit_online`` keep the dataset in the online buffer). With a number,
that share of each batch comes from the dataset and the rest from the run's steps (Cal-QL's
``mixing_ratio``; RLPD's symmetric sampling is 0.5).
"""

from __future__ import annotations

import torch

from rlfw.batch import Batch
from rlfw.dataset.read import Transitions
from rlfw.env.spec import EnvSpec
from rlfw.errors import require
from rlfw.registry import register
from rlfw.replay.dataset import DatasetRows
from rlfw.replay.uniform import UniformReplay


@register("replay", "mixed")
class MixedReplay(UniformReplay):
    """Uniform replay of the run's steps (``rlfw.replay.uniform``, every key of it) plus the dataset's
    transitions, which are never evicted."""

    joint = False
    needs_data = True

    def __init__(
        self,
        spec: EnvSpec,
        num_envs: int,
        gamma: float,
        total_env_steps: int,
        data: Transitions | None,
        data_share: float | None = None,
        capacity: int = 100_000,
        batch_size: int = 256,
        learning_starts: int = 0,  # the dataset is there from the first step
        collect_steps: int = 1,
        updates: int = 1,
        n_step: int = 1,
    ):
        require(
            data_share is None or 0.0 <= data_share <= 1.0,
            "replay.data_share",
            data_share,
            "the share of each batch drawn from the dataset: 0..1, or null for one pool",
        )
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
        self.dataset, self.data_share = DatasetRows(data, gamma), data_share
        self.references = self.dataset.references

    @staticmethod
    def first_sample(learning_starts: int, batch_size: int) -> int:
        """The dataset fills a batch from the start: one transition of the run's own is enough."""
        return max(learning_starts, 1)

    def sample(self) -> Batch:
        size = self.batch_size
        if self.data_share is None:  # one pool: each row is the dataset's with the dataset's share of all rows
            from_data = int((torch.randint(self.dataset.size + len(self), (size,)) < self.dataset.size).sum())
        else:
            from_data = round(self.data_share * size)
        own = self.draw(size - from_data)
        data = self.dataset.draw(from_data)  # in the dtypes the run's steps have (a dataset may hold float64)
        return Batch({k: torch.cat([data[k].to(own[k].dtype), own[k]]) for k in self.provides})
