"""The run's counters as one value: what the experience stream advances, the metrics report and a
checkpoint keeps (``rlfw.state.run_state``). It is the run's clock (``rlfw.clock``): every part reads
its ``env_steps``."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import Any

from rlfw.clock import Clock


@dataclass
class RunProgress(Clock):
    next_eval: int = 0  # the env step of the next greedy evaluation
    updates: int = 0  # optimizer steps applied
    evals: list[dict[str, float]] = field(default_factory=list)  # env_steps, wall_seconds, return_mean, return_std
    solved: bool = False  # an evaluation reached env.solved_return (stop_when_solved)
    metric_rows: int = 0  # rows written to the loggers
    nonfinite_skips: int = 0  # updates dropped for a non-finite loss or gradient (on_nonfinite=skip)
    # What the run's budget and schedule (evaluations, checkpoints, metric rows) count: env steps, or updates
    # in a run that learns from data (``Replay.fixed``). Set once by the run (the config decides it): not saved.
    unit: str = "env_steps"

    def now(self) -> int:
        """The run's position in its unit."""
        return self.updates if self.unit == "updates" else self.env_steps

    @property
    def unit_words(self) -> str:
        """The unit as a log line says it: "env steps" or "updates"."""
        return self.unit.replace("_", " ")

    def state_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if k != "unit"}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        for f in fields(self):
            if f.name != "unit":
                setattr(self, f.name, list(state[f.name]) if f.name == "evals" else state[f.name])
