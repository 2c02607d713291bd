"""A batch is a dict of tensors with attribute access (``batch.obs``, ``batch.action``, ...), and the
signals a loss gives its replay about it (``batch.signals``: new priorities, stop this phase), apart
from the loss's terms."""

from __future__ import annotations

import torch


class Batch(dict[str, torch.Tensor]):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.signals: dict[str, torch.Tensor] = {}

    def __getattr__(self, key: str) -> torch.Tensor:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"batch has no {key!r}; it has {', '.join(self)}") from None

    def replace(self, **fields: torch.Tensor) -> Batch:
        """This batch with ``fields`` replaced (a loss that shapes the reward, say); it shares this batch's
        signals, so what a loss signals about it still reaches the replay."""
        out = Batch({**self, **fields})
        out.signals = self.signals
        return out

    def signal(self, name: str, value: torch.Tensor) -> None:
        """A loss tells the replay ``name`` about this batch (``td_error``: each sample's new priority;
        ``stop_epochs``: end this rollout's epochs), detached: it is not a term to sum or log."""
        self.signals[name] = value.detach()


def to_device(batch: Batch, device: torch.device) -> Batch:
    """``batch`` on ``device``; to a GPU through pinned memory, without blocking the host. Tensors
    already there (a rollout moved whole: ``rlfw.replay.rollout``) stay as they are."""
    if device.type != "cuda":
        return Batch({k: v.to(device) for k, v in batch.items()})
    return Batch(
        {k: v if v.device == device else v.pin_memory().to(device, non_blocking=True) for k, v in batch.items()}
    )


def acting(batch: Batch) -> torch.Tensor | None:
    """Which rows acted, as 1/0 weights: the batch's ``acting`` field, which the env gives where some rows
    do not act at some steps (a seat off its turn, an agent that left); None: every row acted."""
    rows = batch.get("acting")
    return None if rows is None else rows.float()


def mean(x: torch.Tensor, weight: torch.Tensor | None) -> torch.Tensor:
    """The mean of ``x`` over the rows ``weight`` counts (``acting``); over all rows where it is None."""
    return x.mean() if weight is None else (x * weight).sum() / weight.sum().clamp(min=1)


def standardized(x: torch.Tensor, weight: torch.Tensor | None) -> torch.Tensor:
    """(x - mean) / (std + 1e-8) over x's last dim (so each row of a ``[minibatches, size]`` tensor on its
    own, in one op each for them all), over the entries ``weight`` counts (``acting``), the std unbiased."""
    if weight is None:
        return (x - x.mean(-1, keepdim=True)) / (x.std(-1, keepdim=True) + 1e-8)
    n = weight.sum(-1, keepdim=True)
    centred = x - (x * weight).sum(-1, keepdim=True) / n.clamp(min=1)
    return centred / (((centred.pow(2) * weight).sum(-1, keepdim=True) / (n - 1).clamp(min=1)).sqrt() + 1e-8)
