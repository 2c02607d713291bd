"""One run on several processes (``trainer.strategy=ddp``): every rank steps envs of its own and
learns from them, Lightning averages the gradients, and rank 0 evaluates, logs and checkpoints.

The ranks move in lockstep: each collect phase steps every rank's ``num_envs`` envs once, so env
steps count all ranks' steps, and every rank reaches each evaluation point at the same update.
"""

from __future__ import annotations

import signal
from typing import Any

import lightning.pytorch as pl
import torch


def rank_and_world(module: pl.LightningModule) -> tuple[int, int]:
    trainer = module._trainer
    return (trainer.global_rank, trainer.world_size) if trainer is not None else (0, 1)


def env_seed(seed: int, rank: int, num_envs: int) -> int:
    """The first training env's seed on ``rank``: the ranks' envs never share a seed."""
    return seed + rank * num_envs


def from_rank_zero(module: pl.LightningModule, value: Any) -> Any:
    """``value`` as rank 0 has it, on every rank (a collective: every rank must call it)."""
    _, world = rank_and_world(module)
    return value if world == 1 else module.trainer.strategy.broadcast(value, src=0)


def any_rank(module: pl.LightningModule, received: signal.Signals | None) -> signal.Signals | None:
    """The stop signal some rank received (the highest-numbered, if several), on every rank (a collective)."""
    got = module.trainer.strategy.reduce(torch.tensor(float(received or 0)), reduce_op="max")
    return signal.Signals(int(got)) if int(got) else None
