"""A run's checkpoints, in ``<run>/checkpoints``:

- ``env_steps=<N>.ckpt``: the whole run state (``rlfw.state.run_state``), with the replay's contents beside
  it in ``env_steps=<N>.replay``; the newest ``checkpoint.keep`` are kept, older ones deleted (a run that
  learns from data counts updates: ``updates=<N>.ckpt``);
- ``last.ckpt``: the newest of those (a hard link), what ``resume=auto`` and W&B's model artifact use;
- ``best.ckpt``: the state at the best greedy evaluation so far, without the replay;
- in a ddp run, ``env_steps=<N>.rank<r>.state`` beside each numbered checkpoint: what rank r > 0 has
  of its own (``rlfw.state.run_state.rank_state``); rank 0 writes its checkpoint once every rank's
  file is whole, and names them in it.

They are written at the experience stream's safe points (after an update phase, before an
evaluation; ``RLModule.safe_point``) once ``checkpoint.every`` env steps or ``checkpoint.every_s``
seconds have passed, when a stop signal arrives, and at the end. Every file goes to a temporary name
first and is renamed when whole: a run killed mid-write leaves the previous checkpoints intact.
"""

from __future__ import annotations

import errno
import os
import shutil
import time
from pathlib import Path
from typing import Any

import lightning.pytorch as pl
import torch

from rlfw.errors import RunError
from rlfw.state.hooks import RunCallback, run_callbacks
from rlfw.state.names import BEST, LAST
from rlfw.state.run_state import rank_state, run_state


def write_atomic(obj: Any, path: Path) -> None:
    """``path`` whole or not at all: a write that fails (a full disk) leaves no part of it behind."""
    partial = path.with_name(path.name + ".partial")
    try:
        with open(partial, "wb") as file:
            torch.save(obj, file)
            file.flush()
            os.fsync(file.fileno())
    except BaseException as err:
        partial.unlink(missing_ok=True)
        if isinstance(err.__context__, OSError):  # torch.save reports a failed write as a RuntimeError
            raise err.__context__ from err
        raise
    os.replace(partial, path)


class Checkpoints(RunCallback):
    def __init__(self, dirpath: Path, every: int | None, every_s: float | None, keep: int):
        self.dir = Path(dirpath)
        self.every, self.every_s, self.keep = every, every_s, keep
        self.best = float("-inf")
        self.saved_at: tuple[int, int] | None = None  # (env steps or updates, evaluations) of the newest checkpoint
        self.saved_steps, self.saved_time = 0, time.monotonic()
        self.unit = "env_steps"  # what ``every`` and the files' numbers count: the run's (updates, learning from data)

    def on_train_start(self, trainer: pl.Trainer, module) -> None:
        """The intervals count from the run's start, or from the checkpoint a resumed run goes on from
        (restored later, in the experience stream: ``module.progress`` is still at 0 here)."""
        self.unit = module.progress.unit
        run = module.resume.state["run"] if module.resume is not None else None
        self.saved_steps, self.saved_time = (run[self.unit] if run else 0), time.monotonic()
        self.saved_at = (run[self.unit], len(run["evals"])) if run else None

    def due(self, module) -> bool:
        by_steps = self.every is not None and module.progress.now() >= self.saved_steps + self.every
        by_time = self.every_s is not None and time.monotonic() - self.saved_time >= self.every_s
        return by_steps or by_time

    def on_safe_point(self, trainer: pl.Trainer, module, stopping: bool) -> None:
        """Called by ``RLModule`` between update phases: a checkpoint when one is due or the run stops.
        Every rank of a ddp run calls it at the same points; rank 0's clock decides for all."""
        due = self.due(module)
        if trainer.world_size > 1:
            due = trainer.strategy.broadcast(due, src=0)
        if stopping or due:
            self.save(trainer, module)

    def on_eval(self, trainer: pl.Trainer, module, result: dict[str, float]) -> None:
        """Called by ``RLModule`` right after each greedy evaluation, with the weights it evaluated."""
        if result["return_mean"] > self.best:
            self.best = result["return_mean"]
            self.save_without_replay(trainer, module, BEST)

    def on_train_end(self, trainer: pl.Trainer, module) -> None:
        self.save(trainer, module)  # after the final evaluation: a resume with more total_env_steps goes on from here

    def save_without_replay(self, trainer: pl.Trainer, module, name: str) -> Path:
        path = self.dir / name
        if trainer.is_global_zero:
            self.write(({**run_state(module), "replay_file": None}, path))
        return path

    def save(self, trainer: pl.Trainer, module) -> Path | None:
        """The run state now, its replay beside it; then ``last.ckpt`` and the rotation. Callbacks with an
        ``on_before_checkpoint`` hook (the non-finite guard) see the state first."""
        now = module.progress.now()
        self.saved_steps, self.saved_time = now, time.monotonic()
        if self.saved_at == (now, len(module.progress.evals)):
            return None  # saved already (a stop signal at the end)
        for callback in run_callbacks(trainer):
            callback.on_before_checkpoint(trainer, module)
        self.saved_at = (now, len(module.progress.evals))
        path = self.dir / f"{self.unit}={now:012d}.ckpt"
        ranks = [rank_file(path, r) for r in range(1, trainer.world_size)]
        if ranks:
            if not trainer.is_global_zero:
                self.dir.mkdir(parents=True, exist_ok=True)
                write_atomic(rank_state(module), self.dir / ranks[trainer.global_rank - 1])
                self._rotate_own(trainer.global_rank)
            trainer.strategy.barrier()  # every rank's file is whole before rank 0's checkpoint names it
        if not trainer.is_global_zero:
            return None
        for logger in trainer.loggers:
            logger.save()  # the metric rows the checkpoint counts are on disk before it
        replay = path.with_suffix(".replay")
        run = {**run_state(module), "replay_file": replay.name, "rank_files": ranks}
        self.write((module.replay.state_dict(), replay), (run, path))
        try:
            self._link_last(path)
            self._rotate()
        except OSError as err:
            raise self._failed(err, LAST) from err
        return path

    def write(self, *files: tuple[Any, Path]) -> None:
        """Rank 0's files of one checkpoint, each whole or not at all. One that cannot be written (a
        full disk) stops the run in one line, and those written before it go: ``last.ckpt`` still
        names the checkpoint before, whole."""
        written: list[Path] = []
        try:
            self.dir.mkdir(exist_ok=True)  # not the run folder: one deleted under the run is not made again
            for state, path in files:
                write_atomic(state, path)
                written.append(path)
        except OSError as err:
            for path in written:
                path.unlink(missing_ok=True)
            raise self._failed(err, files[-1][1].name) from err

    def _failed(self, err: OSError, name: str) -> RunError:
        """The one line for a checkpoint file that could not be written."""
        if not self.dir.parent.is_dir():  # deleted under the run: not made again, which would look like a run
            return RunError(f"the run folder {self.dir.parent} was deleted while the run trained")
        if err.errno == errno.ENOENT:  # gone after the mkdir above: deleted alone, or its run folder half deleted
            return RunError(f"the checkpoint folder {self.dir} was deleted while the run trained")
        return RunError(f"could not write the checkpoint {name}: {err.strerror or err}")

    def _link_last(self, path: Path) -> None:
        temporary = self.dir / (LAST + ".partial")
        temporary.unlink(missing_ok=True)
        try:
            os.link(path, temporary)
        except OSError:  # a file system without hard links
            shutil.copyfile(path, temporary)
        os.replace(temporary, self.dir / LAST)

    def _rotate(self) -> None:
        """Keeps the ``keep`` newest written (a resume from an older checkpoint writes newer ones), each
        checkpoint with the files beside it."""
        for old in self._newest_first(f"{self.unit}=*.ckpt")[self.keep :]:
            old.unlink()
            old.with_suffix(".replay").unlink(missing_ok=True)
            for rank in self.dir.glob(f"{old.stem}.rank*.state"):
                rank.unlink(missing_ok=True)

    def _rotate_own(self, rank: int) -> None:
        """Rank ``rank``'s own files, rotated by that rank: on machines that share no disk, rank 0 never sees them."""
        for old in self._newest_first(f"{self.unit}=*.rank{rank}.state")[self.keep :]:
            old.unlink(missing_ok=True)

    def _newest_first(self, pattern: str) -> list[Path]:
        return sorted(self.dir.glob(pattern), key=lambda p: p.stat().st_mtime_ns, reverse=True)


def rank_file(path: Path, rank: int) -> str:
    """The name of rank ``rank``'s own state beside the numbered checkpoint ``path``."""
    return f"{path.stem}.rank{rank}.state"
