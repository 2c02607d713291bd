"""Minibatches of whole env columns, for a recurrent policy (CleanRL's ppo_atari_lstm, SB3-contrib's
RecurrentPPO without padding): each minibatch holds ``num_envs / minibatches`` columns of the rollout,
every step of them in time order, with the state each column started from, so the learner unrolls the
cell exactly as the collector stepped it. Fields are flattened time-major (row ``t * B + b``) for the
loss; ``episode_start`` stays ``[T, B]`` and ``state`` is ``[B, S, hidden]``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import torch

from rlfw.batch import Batch


def column_batches(rollout: Any, data: Batch, initial_state: torch.Tensor) -> Iterator[Batch]:
    """``rollout.epochs`` passes over ``data`` (fields ``[T, num_envs, ...]``), each in
    ``rollout.minibatches`` minibatches of shuffled columns; stops when ``rollout.stop_epochs`` is set."""
    num_envs = data.action.shape[1]
    assert num_envs % rollout.minibatches == 0, "rlfw.config.check refuses minibatches that split a column set"
    size = num_envs // rollout.minibatches
    for _ in range(rollout.epochs):
        order = torch.randperm(num_envs).to(initial_state.device)
        for i in range(rollout.minibatches):
            cols = order[i * size : (i + 1) * size]
            batch = Batch({k: v.index_select(1, cols).flatten(0, 1) for k, v in data.items() if k != "episode_start"})
            batch["episode_start"] = data.episode_start.index_select(1, cols)
            batch["state"] = initial_state.index_select(0, cols)
            yield rollout.minibatch(batch)
            if rollout.stop_epochs:
                return
