"""A batch is a dict of tensors with attribute access: ``batch.obs``, ``batch.action``, ..."""

from __future__ import annotations

import torch


class Batch(dict[str, torch.Tensor]):
    def __getattr__(self, key: str) -> torch.Tensor:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"batch has no {key!r}; it has {', '.join(self)}") from None


def to_device(batch: Batch, device: torch.device) -> Batch:
    """``batch`` on ``device``; to a GPU through pinned memory, without blocking the host. Tensors
    already there (a rollout moved whole: ``rlfw.replay.rollout``) stay as they are."""
    if device.type != "cuda":
        return Batch({k: v.to(device) for k, v in batch.items()})
    return Batch(
        {k: v if v.device == device else v.pin_memory().to(device, non_blocking=True) for k, v in batch.items()}
    )


def acting(batch: Batch) -> torch.Tensor | None:
    """Which rows chose their action, as 1/0 weights: those with an open action in their mask. A row whose
    mask closes every action (a turn-based game's seat waiting its turn) made no choice, so the
    actor-critic losses leave it out; None: every row chose."""
    mask = batch.get("mask")
    return None if mask is None else mask.bool().any(-1).float()


def mean(x: torch.Tensor, weight: torch.Tensor | None) -> torch.Tensor:
    """The mean of ``x`` over the rows ``weight`` counts (``acting``); over all rows where it is None."""
    return x.mean() if weight is None else (x * weight).sum() / weight.sum().clamp(min=1)


def standardized(x: torch.Tensor, weight: torch.Tensor | None) -> torch.Tensor:
    """(x - mean) / (std + 1e-8) over the rows ``weight`` counts (``acting``), the std unbiased."""
    if weight is None:
        return (x - x.mean()) / (x.std() + 1e-8)
    centred = x - mean(x, weight)
    n = weight.sum()
    return centred / (((centred.pow(2) * weight).sum() / (n - 1).clamp(min=1)).sqrt() + 1e-8)
