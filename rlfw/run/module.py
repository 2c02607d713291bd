"""``RLModule``: the one LightningModule every algorithm runs in.

It builds the parts, hands Lightning the run's stream as its train dataloader
(``rlfw/run/stream.py``: steps the envs with the live policy until the replay strategy is ready,
then yields its batches) and, in one Lightning step, trains on each batch with one call of
``rlfw.run.update.update``, which does the whole update itself (manual optimization: Lightning runs the
precision context, ``manual_backward`` and ddp's gradient sync).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from typing import Any

import lightning.pytorch as pl
import torch
from torch.utils.data import DataLoader, IterableDataset

from rlfw.batch import Batch, to_device
from rlfw.config.build import Parts, build_parts
from rlfw.run.compiled import compile_parts
from rlfw.run.metrics import IntervalMean, train_row
from rlfw.run.nonfinite import NonFiniteGuard
from rlfw.run.ranks import any_rank, rank_and_world
from rlfw.run.stopping import StopSignals
from rlfw.run.stream import Stream
from rlfw.run.update import Learner, update
from rlfw.state.hooks import run_callbacks
from rlfw.state.progress import RunProgress
from rlfw.state.resume import Resume

log = logging.getLogger("rlfw")


def scaler(precision: pl.plugins.Precision) -> torch.amp.GradScaler | None:
    """16-mixed's loss scaling (a ``GradScaler``), if the precision has one."""
    return precision.scaler if isinstance(precision, pl.plugins.MixedPrecision) else None


class _Stream(IterableDataset):
    """The run's batches as one item: Lightning's loop around a step costs about as much as a small
    network's update, so one step trains on every batch the stream yields."""

    def __init__(self, stream: Stream):
        self.stream = stream

    def __iter__(self) -> Iterator[Iterator[Batch]]:
        yield iter(self.stream)


class RLModule(pl.LightningModule):
    def __init__(
        self,
        cfg: dict[str, Any],
        parts: Parts | None = None,
        resume: Resume | None = None,
        init: dict[str, Any] | None = None,
    ):
        super().__init__()
        self.automatic_optimization = False  # rlfw.run.update steps the optimizer
        self.cfg = cfg
        parts = parts or build_parts(cfg)
        self.env, self.explore, self.replay, self.target_rule, self.optim = (
            parts.env,
            parts.explore,
            parts.replay,
            parts.target,
            parts.optim,
        )
        self.net, self.target_net, self.loss_fn = parts.net, parts.target_net, parts.loss
        self.schedule = parts.schedule  # values set by env step, between update phases (the stream sets them)
        fixed = self.replay.fixed  # a dataset: the run counts updates
        self.total = cfg["total_updates"] if fixed else cfg["total_env_steps"]  # in the progress's unit
        unit = "updates" if fixed else "env_steps"
        self.progress = RunProgress(next_eval=cfg["eval"]["every"], unit=unit)  # the run's clock and counters
        self.replay.clock = self.progress
        self.stream = Stream(self)  # the envs, the collector, the timings and the evaluation state
        self.learner: Learner | None = None  # made once the optimizer exists (on_train_start)
        self.interval = IntervalMean()  # train terms since the last metrics row
        self.resume = resume  # the checkpoint this run goes on from
        self.init = init  # the checkpoint a new run starts from (init_from=...): its networks and optimizer state
        self.stop = StopSignals()
        self.started = time.monotonic()  # reset when the stream starts: steps/s counts training only

    # -- Lightning hooks -------------------------------------------------------------------------
    def train_dataloader(self) -> DataLoader:
        return DataLoader(_Stream(self.stream), batch_size=None, num_workers=0)

    def configure_optimizers(self):
        mixed = str(self.trainer.precision).endswith("-mixed")
        optimizer = self.optim.build(self.net, self.loss_fn, mixed_precision=mixed)
        if not self.optim.anneal_lr:
            return optimizer
        # Linear decay to 0 over the run's env steps (SB3's lin_<lr>, CleanRL's anneal_lr), or its updates.
        decay = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda _: max(0.0, 1.0 - self.progress.now() / self.total))
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": decay, "interval": "step"}}

    def on_train_start(self) -> None:
        self.stop.install()
        if self.cfg["compile"]:
            compile_parts(self.net, self.loss_fn, self.device)
        trainer, schedulers = self.trainer, self.trainer.lr_scheduler_configs
        flags = self.cfg["trainer"]
        self.learner = Learner(
            net=self.net,
            target_net=self.target_net,
            loss=self.loss_fn,
            target_rule=self.target_rule,
            optimizer=trainer.optimizers[0],
            scheduler=schedulers[0].scheduler if schedulers else None,
            backward=self.manual_backward,
            feedback=self.replay.feedback,
            scaler=scaler(trainer.precision_plugin),
            clip=flags["gradient_clip_val"],
            clip_by_value=flags["gradient_clip_algorithm"] == "value",
            accumulate=flags["accumulate_grad_batches"],
        )

    def training_step(self, dataloader_iter) -> None:
        # The stream's batches, pulled one at a time here, not prefetched: on-policy data stays exact, as
        # the next rollout is collected only after the last update on this one was applied.
        batches, _, _ = next(dataloader_iter)
        for batch in batches:
            self._train_on(batch)

    def _train_on(self, batch: Batch) -> None:
        assert self.learner is not None, "on_train_start makes the learner"
        result = update(self.learner, to_device(batch, self.device), self.progress.updates + 1)
        if result.nonfinite is not None:
            self._guard().update_not_finite(self.trainer, self, result.nonfinite)
        elif result.stepped:
            self.progress.updates += 1
        if self.loggers:
            scalars = {k: v for k, v in result.terms.items() if v.ndim == 0}
            self.interval.add({"loss": result.loss, **scalars})
            if self.interval.count >= self.cfg["log_every"]:
                self._log_train_row()

    def on_train_end(self) -> None:
        if self.loggers and self.interval.count and not self.stop_requested():
            self._log_train_row()  # the updates since the last full interval

    def _guard(self) -> NonFiniteGuard:
        return next(c for c in self.trainer.callbacks if isinstance(c, NonFiniteGuard))  # type: ignore[attr-defined]

    # -- the stream's safe points ------------------------------------------------------------------
    def safe_point(self) -> bool:
        """Between update phases: checkpoint callbacks save when due; True when a stop signal asked
        the run to end here (they have saved then)."""
        if rank_and_world(self)[1] > 1:  # a signal to any rank stops them all, here, together
            self.stop.agree(any_rank(self, self.stop.received))
        stopping = self.stop_requested()
        if self._trainer is not None:
            for callback in run_callbacks(self.trainer):
                callback.on_safe_point(self.trainer, self, stopping)
        return stopping

    def stop_requested(self) -> bool:
        return self.stop.received is not None

    # -- logging ---------------------------------------------------------------------------------
    def steps_per_second(self) -> float:
        """The run's rate in its unit (env steps, or updates)."""
        return self.progress.now() / max(1e-9, time.monotonic() - self.started)

    def resume_clock(self, wall_seconds: float) -> None:
        """Training time so far is ``wall_seconds`` (0 when a run starts; a checkpoint's on resume)."""
        self.started = time.monotonic() - wall_seconds

    def wall_seconds(self) -> float:
        return time.monotonic() - self.started

    def _log_train_row(self) -> None:
        self.write(train_row(self))

    def write(self, metrics: dict[str, float]) -> None:
        """One metric row, against env steps (updates, learning from data); checkpoints count the rows."""
        for logger in self.loggers:
            logger.log_metrics(metrics, step=self.progress.now())
        self.progress.metric_rows += 1
