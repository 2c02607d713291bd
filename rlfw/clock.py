"""The run's one clock: env steps, every env copy's and every rank's. The collector advances it; the parts
that follow it read it (prioritized replay's beta, a league's keeping of past versions), as do the
evaluation schedule, the metrics' x axis and the checkpoints (``rlfw.state.progress.RunProgress`` is the
run's clock, with its other counters)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Clock:
    env_steps: int = 0
