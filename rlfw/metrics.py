"""Train metrics averaged over the updates each logged row stands for."""

from __future__ import annotations

import torch


class IntervalMean:
    """Sums each scalar term over the updates since the last row, on the terms' own device (no sync
    per update); ``pop`` returns the means and starts the next interval (one sync per row)."""

    def __init__(self):
        self.sums: dict[str, torch.Tensor] = {}
        self.count = 0

    def add(self, terms: dict[str, torch.Tensor]) -> None:
        for key, value in terms.items():
            value = value.detach().float()
            if key in self.sums:
                self.sums[key].add_(value)
            else:
                self.sums[key] = value.clone()
        self.count += 1

    def pop(self) -> dict[str, float]:
        if not self.count:
            return {}
        keys = list(self.sums)
        means = (torch.stack([self.sums[k] for k in keys]) / self.count).tolist()
        self.sums, self.count = {}, 0
        return dict(zip(keys, means))
