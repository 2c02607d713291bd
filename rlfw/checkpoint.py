"""``last.ckpt`` every ``checkpoint_every`` env steps and at the end of training."""

from __future__ import annotations

import os
from pathlib import Path

import lightning.pytorch as pl


class LastCheckpoint(pl.Callback):
    def __init__(self, dirpath: Path, every_env_steps: int | None):
        self.path = Path(dirpath) / "last.ckpt"
        self.every = every_env_steps
        self.next_save = every_env_steps

    def on_train_batch_end(self, trainer: pl.Trainer, module, outputs, batch, batch_idx) -> None:
        if self.every is not None and module.env_steps >= self.next_save:
            self.save(trainer)
            while self.next_save <= module.env_steps:
                self.next_save += self.every

    def on_train_end(self, trainer: pl.Trainer, module) -> None:
        self.save(trainer)

    def save(self, trainer: pl.Trainer) -> None:
        """Write to a temporary file, then rename: a crash mid-write never corrupts ``last.ckpt``."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".ckpt.partial")
        trainer.save_checkpoint(partial)
        os.replace(partial, self.path)
