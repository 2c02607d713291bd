"""A batch is a dict of tensors with attribute access: ``batch.obs``, ``batch.action``, ..."""

from __future__ import annotations

import torch


class Batch(dict[str, torch.Tensor]):
    def __getattr__(self, key: str) -> torch.Tensor:
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"batch has no {key!r}; it has {', '.join(self)}") from None
