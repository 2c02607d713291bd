"""Never train on NaN: every update's loss terms and gradients, and the parameters after it, must be finite.

``on_nonfinite=stop`` (the default) writes ``checkpoints/nonfinite.ckpt`` (the state as it was, for
debugging) and stops with an error naming the update, the env step and the term. Loss and gradients
are checked at every update; parameters before each checkpoint of the run state and at the safe
point before an evaluation or the run's end, where something is about to use them: finite gradients
keep them finite in between, and a pass over every parameter at every safe point would cost DQN a
share of each update cycle (docs/design.md, "Speed choices, and why").
``on_nonfinite=skip`` drops a non-finite loss's or gradient's update instead (the optimizer leaves
parameters without a gradient alone) and counts the skips in ``train/nonfinite_skips``; non-finite
parameters always stop the run, since no later update can undo them.

The update's own check is in ``rlfw.run.update`` (one host sync for the loss and the gradients'
norm, which clipping reuses); this callback stops or counts what it found, and checks the parameters.
"""

from __future__ import annotations

import logging

import lightning.pytorch as pl

from rlfw.errors import NonFiniteError
from rlfw.run.update import first_nonfinite
from rlfw.state.checkpoint import Checkpoints
from rlfw.state.hooks import RunCallback

log = logging.getLogger("rlfw")


class NonFiniteGuard(RunCallback):
    def __init__(self, mode: str, checkpoints: Checkpoints):
        self.mode, self.checkpoints = mode, checkpoints

    def update_not_finite(self, trainer: pl.Trainer, module, problem: str) -> None:
        """An update whose ``problem`` (a loss term, a gradient) was not finite: ``rlfw.run.update`` has
        dropped its gradients; stop with the state as it was, or count the skip."""
        progress = module.progress
        where = f"update {progress.updates + 1:,} (env step {progress.env_steps:,})"
        if self.mode != "skip":
            self._stop(trainer, module, f"{problem} is not finite at {where}")
        if not progress.nonfinite_skips:
            log.warning(
                "on_nonfinite=skip: %s is not finite at %s: update skipped (train/nonfinite_skips counts them)",
                problem,
                where,
            )
        progress.nonfinite_skips += 1

    def on_safe_point(self, trainer: pl.Trainer, module, stopping: bool) -> None:
        """Parameters, when an evaluation or the run's end comes next (every rank alike: their env steps agree)."""
        if module.progress.now() >= min(module.progress.next_eval, module.total):
            self.on_before_checkpoint(trainer, module)

    def on_before_checkpoint(self, trainer: pl.Trainer, module) -> None:
        """Parameters, before ``Checkpoints`` writes the run state (every rank of a ddp run saves at once)."""
        problem = first_nonfinite({f"parameter {n}": p for n, p in module.net.named_parameters()})
        if problem is not None:
            self._stop(
                trainer,
                module,
                f"{problem} is not finite after update {module.progress.updates:,}"
                f" (env step {module.progress.env_steps:,})",
            )

    def _stop(self, trainer: pl.Trainer, module, what: str) -> None:
        path = self.checkpoints.save_without_replay(trainer, module, "nonfinite.ckpt")
        raise NonFiniteError(
            f"{what}; the state is in {path}"
            " (on_nonfinite=skip skips such updates; a lower optim.lr or trainer.gradient_clip_val may avoid them)"
        )
