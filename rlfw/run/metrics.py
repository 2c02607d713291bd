"""Train metrics: averaged over the updates each logged row stands for, and the row itself."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


class IntervalMean:
    """Sums each scalar term over the updates since the last row, on the terms' own device (no sync
    per update); ``pop`` returns the means and starts the next interval (one sync per row). A term
    that only some updates give (TD3's delayed actor loss) is averaged over those."""

    def __init__(self) -> None:
        self.sums: dict[str, torch.Tensor] = {}
        self.counts: dict[str, int] = {}  # updates that gave each term
        self.count = 0  # updates

    def add(self, terms: dict[str, torch.Tensor]) -> None:
        for key, value in terms.items():
            value = value.detach().float()
            if key in self.sums:
                self.sums[key].add_(value)
                self.counts[key] += 1
            else:
                self.sums[key], self.counts[key] = value.clone(), 1
        self.count += 1

    def pop(self) -> dict[str, float]:
        if not self.count:
            return {}
        keys = list(self.sums)
        means = (torch.stack([self.sums[k] / self.counts[k] for k in keys])).tolist()
        self.sums, self.counts, self.count = {}, {}, 0
        return dict(zip(keys, means, strict=True))


def train_row(module: Any) -> dict[str, float]:
    """One row of ``train/*`` means over the updates since the last row (``module.interval``), and
    the run's state now: updates (and skipped ones), learning rate, epsilon, the last 20 training
    episodes, steps/s and the seconds spent so far in each phase of the loop (``rlfw.run.timings``)."""
    row = {f"train/{k}": v for k, v in module.interval.pop().items()}
    row["train/updates"] = module.progress.updates
    if module.cfg["on_nonfinite"] == "skip":
        row["train/nonfinite_skips"] = module.progress.nonfinite_skips
    row["train/lr"] = module.trainer.optimizers[0].param_groups[0]["lr"]
    if hasattr(module.explore, "epsilon"):
        row["train/epsilon"] = module.explore.epsilon(module.progress.env_steps)
    collector = module.collector
    if collector is not None and collector.recent_returns:
        returns, lengths = collector.recent()
        row["train/episode_return"] = float(np.mean(returns))
        row["train/episode_length"] = float(np.mean(lengths))
    row["time/steps_per_s"] = module.steps_per_second()
    if collector is not None:
        row.update({f"time/{phase}_s": s for phase, s in collector.timings.seconds().items()})
    return row
