"""Where a run's wall time goes, timed by the loop itself: acting, env steps, updates, evaluation.

The collector times acting and the envs' step; the experience stream times each update phase (the
replay making its batches and every update trained on them) and each evaluation. On a GPU the update
phase ends with a synchronize, so kernels still queued count as updating rather than as the next act.
The figures are this process's: a resumed run reports the time since it resumed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from time import perf_counter

import torch


@dataclass
class Timings:
    act: float = 0.0  # observation statistics, the forward, the explore rule, actions back to the CPU
    env: float = 0.0  # the vector env's step
    update: float = 0.0  # replay batches made and trained on
    evaluate: float = 0.0  # greedy evaluation episodes
    started: float = field(default_factory=perf_counter, repr=False)

    def seconds(self) -> dict[str, float]:
        """Each phase's seconds since the stream started, and ``other``: the rest (the replay storing
        steps, logging, checkpoints, the loop itself)."""
        phases = {k: v for k, v in asdict(self).items() if k != "started"}
        wall = perf_counter() - self.started
        return {**phases, "other": max(0.0, wall - sum(phases.values()))}

    def line(self) -> str:
        """``act 31%, env 42%, update 24%, evaluate 2%, other 1%``: each phase's share of the wall time."""
        seconds = self.seconds()
        wall = max(sum(seconds.values()), 1e-9)
        return ", ".join(f"{k} {100 * v / wall:.0f}%" for k, v in seconds.items())


def finisher(device: torch.device) -> Callable[[], None]:
    """Waits for the device's queued work (CUDA runs asynchronously), so a phase's time is its own."""
    return torch.cuda.synchronize if device.type == "cuda" else lambda: None
