"""An epoch of a rollout's minibatches: shuffled rows (``rows``), or whole env columns for a recurrent
policy (``columns``; CleanRL's ppo_atari_lstm; SB3-contrib's RecurrentPPO pads episodes instead): a
minibatch of columns holds every step of them in time order, with the state each column started from,
so the learner unrolls the cell exactly as the collector stepped it. With ``normalize_advantage`` each
minibatch's advantages are standardized over its own rows that acted (``rlfw.batch.standardized``)."""

from __future__ import annotations

import torch

from rlfw.batch import Batch, acting, standardized


def columns(
    data: Batch, initial_state: torch.Tensor, order: torch.Tensor, count: int, normalize_advantage: bool
) -> list[Batch]:
    """``count`` minibatches of the env columns in ``order`` of a rollout whose fields are
    ``[T, num_envs, ...]``: the fields flattened time-major (row ``t * B + b``) for the loss,
    ``episode_start`` kept ``[T, B]`` and ``state`` ``[B, S, hidden]`` for the unroll."""
    size = len(order) // count
    out = []
    for picked in order[: size * count].split(size):
        batch = Batch({k: v.index_select(1, picked).flatten(0, 1) for k, v in data.items() if k != "episode_start"})
        batch["episode_start"] = data.episode_start.index_select(1, picked)
        batch["state"] = initial_state.index_select(0, picked)
        if normalize_advantage:
            batch["advantage"] = standardized(batch.advantage, acting(batch))
        out.append(batch)
    return out


def rows(data: Batch, order: torch.Tensor, count: int, normalize_advantage: bool) -> list[Batch]:
    """``count`` minibatches of a flattened rollout's steps in ``order``: each field gathered once for
    the epoch (index_select: the same copy as v[order] without advanced indexing's slower path) and cut
    into views, the advantages standardized for every minibatch at once (per minibatch, that was a
    dozen small ops)."""
    shuffled = Batch({k: v.index_select(0, order) for k, v in data.items()})
    if normalize_advantage:
        weight = acting(shuffled)
        grid = None if weight is None else weight.view(count, -1)  # a row per minibatch
        shuffled["advantage"] = standardized(shuffled.advantage.view(count, -1), grid).view(-1)
    cut = {k: v.chunk(count) for k, v in shuffled.items()}
    return [Batch({k: v[i] for k, v in cut.items()}) for i in range(count)]
