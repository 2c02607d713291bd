"""A rollout's minibatches: shuffled rows (``rows``), or whole env columns for a recurrent policy
(``columns``; CleanRL's ppo_atari_lstm; SB3-contrib's RecurrentPPO pads episodes instead): a minibatch
of columns holds every step of them in time order, with the state each column started from, so the
learner unrolls the cell exactly as the collector stepped it."""

from __future__ import annotations

import torch

from rlfw.batch import Batch


def columns(data: Batch, initial_state: torch.Tensor, picked: torch.Tensor) -> Batch:
    """The env columns ``picked`` of a rollout whose fields are ``[T, num_envs, ...]``: the fields
    flattened time-major (row ``t * B + b``) for the loss, ``episode_start`` kept ``[T, B]`` and
    ``state`` ``[B, S, hidden]`` for the unroll."""
    batch = Batch({k: v.index_select(1, picked).flatten(0, 1) for k, v in data.items() if k != "episode_start"})
    batch["episode_start"] = data.episode_start.index_select(1, picked)
    batch["state"] = initial_state.index_select(0, picked)
    return batch


def rows(data: Batch, picked: torch.Tensor) -> Batch:
    """The steps ``picked`` of a flattened rollout. index_select, not v[rows]: the same copy without
    advanced indexing's slower general path."""
    return Batch({k: v.index_select(0, picked) for k, v in data.items()})
