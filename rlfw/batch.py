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
