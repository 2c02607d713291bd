"""Preallocated, time-major storage of vector-env steps: every field is a ``[T, num_envs, ...]`` tensor.

Keeping steps in time order per env lets n-step returns be gathered at sample time (no per-step
Python bookkeeping): a sample ``(t, e)`` reads rows ``t .. t+n-1`` of column ``e``.
"""

from __future__ import annotations

import numpy as np
import torch

from rlfw.batch import Batch


def lazy_zeros(shape: tuple[int, ...], dtype: np.dtype) -> torch.Tensor:
    """Zeros that the kernel fills page by page on first write (numpy allocates them with calloc).
    ``torch.zeros`` writes every byte up front: seconds before the first step for a large replay."""
    return torch.from_numpy(np.zeros(shape, dtype))


def filled(tensor: torch.Tensor, rows: int) -> torch.Tensor:
    """The first ``rows`` rows, copied when that is not all of them: ``torch.save`` writes a view's
    whole storage."""
    return tensor if rows == len(tensor) else tensor[:rows].clone()


class StepStore:
    def __init__(self, rows: int, num_envs: int):
        self.rows, self.num_envs = rows, num_envs
        self.data: dict[str, torch.Tensor] = {}
        self.arrays: dict[str, np.ndarray] = {}  # numpy views of ``data``, for ``add``
        self.pos = 0  # next row to write
        self.size = 0  # rows written, at most ``rows``

    def add(self, step: dict[str, np.ndarray]) -> int:
        """Write one vector step (each value a numpy array ``[num_envs, ...]``) and return its row."""
        if not self.data:  # allocate on first use, from the first step's shapes and dtypes
            self._hold({k: lazy_zeros((self.rows, *v.shape), v.dtype) for k, v in step.items()})
        row = self.pos
        # numpy views: a row copy pays none of torch's per-call dispatch
        for k, v in step.items():
            self.arrays[k][row] = v
        self.pos = (self.pos + 1) % self.rows
        self.size = min(self.size + 1, self.rows)
        return row

    def _hold(self, data: dict[str, torch.Tensor]) -> None:
        self.data, self.arrays = data, {k: v.numpy() for k, v in data.items()}

    def observations(self, t: torch.Tensor, e: torch.Tensor, last: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``obs`` of steps ``(t, e)`` and ``next_obs`` of steps ``(last, e)``."""
        return self.data["obs"][t, e], self.data["next_obs"][last, e]

    def valid(self, t: torch.Tensor, e: torch.Tensor) -> torch.Tensor:
        """Which steps can be sampled: all of them here (``FrameStore`` may have overwritten frames)."""
        return torch.ones(len(t), dtype=torch.bool)

    def state_dict(self) -> dict:
        """The rows written so far (rows ``[0, size)``: the ring fills from row 0), in their own dtypes."""
        return {"pos": self.pos, "size": self.size, "data": {k: filled(v, self.size) for k, v in self.data.items()}}

    def load_state_dict(self, state: dict) -> None:
        self.pos, self.size = state["pos"], state["size"]
        self._hold({k: lazy_zeros((self.rows, *v.shape[1:]), v.numpy().dtype) for k, v in state["data"].items()})
        for k, v in state["data"].items():
            self.data[k][: len(v)] = v

    def end_episodes(self) -> None:
        """The envs restart (a resume that could not restore them): the last step of every env column
        ends its episode, truncated, so no n-step window runs into the next episode."""
        if self.size:
            self.data["truncated"][(self.pos - 1) % self.rows] = True

    def oldest_row(self) -> int:
        return (self.pos - self.size) % self.rows

    def n_step(self, t: torch.Tensor, e: torch.Tensor, n: int, gamma: float) -> Batch:
        """Transitions starting at rows ``t``, envs ``e`` (both ``[B]``), with n-step returns.

        reward   = sum_{k < m} gamma^k r_{t+k}, where m <= n stops after the first episode end
        next_obs = s_{t+m} (the true final observation when the episode ended)
        discount = gamma^m; terminated says whether s_{t+m} is terminal (then nothing bootstraps)
        """
        d = self.data
        if n == 1:  # the common case, without the look-ahead's extra indexing
            reward = d["reward"][t, e]
            obs, next_obs = self.observations(t, e, t)
            batch = Batch(
                obs=obs,
                action=d["action"][t, e],
                reward=reward,
                next_obs=next_obs,
                terminated=d["terminated"][t, e],
                discount=torch.full_like(reward, gamma),
            )
            return batch
        k = torch.arange(n)
        rows = (t[:, None] + k) % self.rows  # [B, n]
        cols = e[:, None]
        ended = (d["terminated"][rows, cols] | d["truncated"][rows, cols]).float()
        alive = (ended.cumsum(1) - ended) == 0  # no episode end before step k
        m = alive.sum(1)  # steps used, 1..n
        reward = (alive * gamma**k * d["reward"][rows, cols]).sum(1)
        last = rows.gather(1, (m - 1)[:, None]).squeeze(1)
        obs, next_obs = self.observations(t, e, last)
        batch = Batch(
            obs=obs,
            action=d["action"][t, e],
            reward=reward,
            next_obs=next_obs,
            terminated=d["terminated"][last, e],
            discount=gamma ** m.to(reward.dtype),
        )
        return batch
