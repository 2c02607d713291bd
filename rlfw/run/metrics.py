"""Train metrics: averaged over the updates each logged row stands for, and the row itself."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch


class IntervalMean:
    """Sums each scalar term over the updates since the last row, on the terms' own device (no sync
    per update); ``pop`` returns the means and starts the next interval (one sync per row). A term
    that only some updates give (TD3's delayed actor loss) is averaged over those.

    The terms of one update are stacked and summed as one tensor (one op, not one per term), under the
    set of names they came with: TD3's updates with and without the actor's loss keep two sums."""

    def __init__(self) -> None:
        self.sums: dict[tuple[str, ...], torch.Tensor] = {}  # per set of term names
        self.counts: dict[tuple[str, ...], int] = {}  # updates that gave that set
        self.count = 0  # updates

    def add(self, terms: dict[str, torch.Tensor]) -> None:
        keys = tuple(terms)
        values = torch.stack([v.detach() for v in terms.values()]).float()
        if keys in self.sums:
            self.sums[keys].add_(values)
            self.counts[keys] += 1
        else:
            self.sums[keys], self.counts[keys] = values, 1
        self.count += 1

    def pop(self) -> dict[str, float]:
        totals: dict[str, float] = {}
        counts: dict[str, int] = {}
        for keys, sums in self.sums.items():
            for key, total in zip(keys, sums.tolist(), strict=True):
                totals[key] = totals.get(key, 0.0) + total
                counts[key] = counts.get(key, 0) + self.counts[keys]
        self.sums, self.counts, self.count = {}, {}, 0
        return {key: total / counts[key] for key, total in totals.items()}

    def state_dict(self) -> dict:
        return {"sums": dict(self.sums), "counts": dict(self.counts), "count": self.count}

    def load_state_dict(self, state: dict) -> None:
        """Also reads checkpoints from before the stacked sums, which kept one sum per term name (and,
        before per-term counts, counted every term with every update)."""
        counts = state.get("counts", dict.fromkeys(state["sums"], state["count"]))
        self.sums = {k if isinstance(k, tuple) else (k,): v.reshape(-1) for k, v in state["sums"].items()}
        self.counts = {k if isinstance(k, tuple) else (k,): n for k, n in counts.items()}
        self.count = state["count"]


def train_row(module: Any) -> dict[str, float]:
    """One row of ``train/*`` means over the updates since the last row (``module.interval``), and
    the run's state now: updates (and skipped ones), learning rate, epsilon, the last 20 training
    episodes, steps/s and the seconds spent so far in each phase of the loop (``rlfw.run.timings``)."""
    row = {f"train/{k}": v for k, v in module.interval.pop().items()}
    row["train/updates"] = module.progress.updates
    if module.cfg["on_nonfinite"] == "skip":
        row["train/nonfinite_skips"] = module.progress.nonfinite_skips
    row["train/lr"] = module.trainer.optimizers[0].param_groups[0]["lr"]
    row.update({f"train/{k}": v for k, v in module.explore.schedule(module.progress.env_steps).items()})
    row.update({f"schedule/{k}": v for k, v in module.schedule.now.items()})  # the config's schedule: values set
    returns, lengths = module.stream.recent()
    if returns:
        row["train/episode_return"] = float(np.mean(returns))
        row["train/episode_length"] = float(np.mean(lengths))
    row["time/steps_per_s"] = module.steps_per_second()
    row.update({f"time/{phase}_s": s for phase, s in module.stream.timings.seconds().items()})
    return row
