"""``last.ckpt`` every ``checkpoint_every`` env steps and at the end; ``best.ckpt`` at the best greedy eval."""

from __future__ import annotations

import os
from pathlib import Path

import lightning.pytorch as pl


class Checkpoints(pl.Callback):
    def __init__(self, dirpath: Path, every_env_steps: int | None):
        self.dir = Path(dirpath)
        self.every = every_env_steps
        self.next_save = every_env_steps
        self.best = float("-inf")

    def on_train_batch_end(self, trainer: pl.Trainer, module, outputs, batch, batch_idx) -> None:
        if self.every is not None and module.env_steps >= self.next_save:
            self.save(trainer, "last.ckpt")
            while self.next_save <= module.env_steps:
                self.next_save += self.every

    def on_eval(self, trainer: pl.Trainer, module, result: dict[str, float]) -> None:
        """Called by ``RLModule`` right after each greedy evaluation, with the weights it evaluated."""
        if result["return_mean"] > self.best:
            self.best = result["return_mean"]
            self.save(trainer, "best.ckpt")

    def on_train_end(self, trainer: pl.Trainer, module) -> None:
        self.save(trainer, "last.ckpt")

    def save(self, trainer: pl.Trainer, name: str) -> None:
        """Write to a temporary file, then rename: a crash mid-write never corrupts a checkpoint."""
        self.dir.mkdir(parents=True, exist_ok=True)
        path = self.dir / name
        partial = path.with_suffix(".ckpt.partial")
        trainer.save_checkpoint(partial)  # every rank calls it (a barrier); rank 0 writes
        if trainer.is_global_zero:
            os.replace(partial, path)
