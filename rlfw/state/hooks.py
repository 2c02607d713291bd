"""The run's own callback hooks, beside Lightning's: a callback of the run subclasses ``RunCallback`` and
overrides the hooks it needs (each a no-op here), so the run calls every one without asking which it has."""

from __future__ import annotations

import lightning.pytorch as pl


class RunCallback(pl.Callback):
    def on_eval(self, trainer: pl.Trainer, module, result: dict[str, float]) -> None:
        """Right after each greedy evaluation, with the weights it evaluated (``best.ckpt``)."""

    def on_safe_point(self, trainer: pl.Trainer, module, stopping: bool) -> None:
        """Between update phases, where nothing is half-done (checkpoints when due; ``stopping``: a signal
        asked the run to end here)."""

    def on_before_checkpoint(self, trainer: pl.Trainer, module) -> None:
        """Before the run state is written (the non-finite guard checks the parameters)."""


def run_callbacks(trainer: pl.Trainer) -> list[RunCallback]:
    """The trainer's callbacks of the run (Lightning's own, a progress bar, have none of these hooks)."""
    return [c for c in trainer.callbacks if isinstance(c, RunCallback)]  # type: ignore[attr-defined]
