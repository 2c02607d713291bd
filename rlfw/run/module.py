"""``RLModule``: the one LightningModule every algorithm runs in.

The train dataloader is the experience stream (``rlfw/run/experience.py``): it steps the envs with the
live policy until the replay strategy is ready, then yields its batches. ``training_step`` pulls one batch,
runs the loss head and returns the sum of its ``loss_*`` terms; Lightning does backward, gradient
clipping, accumulation and the optimizer step; the target rule follows each optimizer step.
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
from rlfw.run.collector import Collector
from rlfw.run.experience import experience
from rlfw.run.metrics import IntervalMean, train_row
from rlfw.run.ranks import any_rank, rank_and_world
from rlfw.run.stopping import StopSignals
from rlfw.state.resume import Resume

log = logging.getLogger("rlfw")


class _Stream(IterableDataset):
    def __init__(self, module: RLModule):
        self.module = module

    def __iter__(self) -> Iterator[Batch]:
        return self.module.experience()


class RLModule(pl.LightningModule):
    def __init__(self, cfg: dict[str, Any], parts: Parts | None = None, resume: Resume | None = None):
        super().__init__()
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
        self.total_env_steps = cfg["total_env_steps"]
        self.env_steps = 0
        self.updates = 0
        self.next_eval = cfg["eval"]["every"]  # env steps
        self.evals: list[
            dict[str, float]
        ] = []  # {"env_steps", "wall_seconds", "return_mean", "return_std"} per evaluation
        self.solved = False
        self.collector: Collector | None = None
        self.interval = IntervalMean()  # train terms since the last metrics row
        self.metric_rows = 0  # rows logged
        self.nonfinite_skips = 0  # updates skipped for a non-finite loss or gradient (on_nonfinite=skip)
        self.skip_update = False  # set by rlfw.run.nonfinite for the update under way
        self.grad_norm: torch.Tensor | None = None  # the update's gradient norm, taken by rlfw.run.nonfinite
        self.resume = resume  # the checkpoint this run goes on from
        self.stop = StopSignals()
        self.started = time.monotonic()  # reset when the stream starts: steps/s counts training only

    # -- Lightning hooks -------------------------------------------------------------------------
    def train_dataloader(self) -> DataLoader:
        return DataLoader(_Stream(self), batch_size=None, num_workers=0)

    def configure_optimizers(self):
        mixed = str(self.trainer.precision).endswith("-mixed")
        optimizer = self.optim.build(self.net, self.loss_fn, mixed_precision=mixed)
        if not self.optim.anneal_lr:
            return optimizer
        # Linear decay to 0 over the run's env steps (SB3's lin_<lr>, CleanRL's anneal_lr).
        decay = torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda _: max(0.0, 1.0 - self.env_steps / self.total_env_steps)
        )
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": decay, "interval": "step"}}

    def training_step(self, dataloader_iter) -> torch.Tensor:
        # Pulling the batch here, not letting Lightning prefetch it, keeps on-policy data exact:
        # the next rollout is collected only after the previous update was applied.
        batch, _, _ = next(dataloader_iter)
        batch = to_device(batch, self.device)  # replay storage stays on the CPU
        out = self.loss_fn(batch, self.net, self.target_net)
        loss = sum(v for k, v in out.items() if k.startswith("loss_"))
        self.out, self.loss = out, loss  # rlfw.run.nonfinite checks them before the optimizer step
        self.replay.feedback(batch, out)
        if self.loggers:
            self.interval.add({"loss": loss, **{k: v for k, v in out.items() if v.ndim == 0 and k != "stop_epochs"}})
        return loss

    def on_train_start(self) -> None:
        self.stop.install()

    def on_train_batch_end(self, outputs, batch, batch_idx: int) -> None:
        if self.interval.count >= self.cfg["log_every"]:  # after the optimizer step: the row counts it
            self._log_train_row()

    def optimizer_zero_grad(self, epoch: int, batch_idx: int, optimizer) -> None:
        """No-op: gradients are zeroed right after each optimizer step instead (``optimizer_step``).

        With batches pulled inside ``training_step``, the ``batch_idx`` Lightning passes here lags by
        one, so its zeroing would fall on the second batch of an accumulation window and drop the
        first batch's gradient.
        """

    def configure_gradient_clipping(self, optimizer, gradient_clip_val=None, gradient_clip_algorithm=None) -> None:
        """Lightning's clipping, but by norm with the norm rlfw.run.nonfinite took of the same gradients
        just before: one pass over them, not two (docs/design.md, "Speed choices, and why")."""
        if gradient_clip_val and gradient_clip_algorithm in (None, "norm") and self.grad_norm is not None:
            params = [p for group in optimizer.param_groups for p in group["params"]]
            torch.nn.utils.clip_grads_with_norm_(params, gradient_clip_val, self.grad_norm)
        else:
            self.clip_gradients(optimizer, gradient_clip_val, gradient_clip_algorithm)

    def optimizer_step(self, epoch: int, batch_idx: int, optimizer, optimizer_closure=None) -> None:
        super().optimizer_step(epoch, batch_idx, optimizer, optimizer_closure)
        optimizer.zero_grad()
        if self.skip_update:  # rlfw.run.nonfinite dropped this update's gradients: the optimizer did nothing
            self.skip_update = False
            self.nonfinite_skips += 1
            return
        self.updates += 1
        if self.target_net is not None:
            self.target_rule.step(self.net, self.target_net, self.updates)

    def on_train_end(self) -> None:
        if self.loggers and self.interval.count and not self.stop_requested():
            self._log_train_row()  # the updates since the last full interval

    # -- the experience stream (rlfw/run/experience.py) and its safe points --------------------------
    def experience(self) -> Iterator[Batch]:
        return experience(self)

    def safe_point(self) -> bool:
        """Between update phases: checkpoint callbacks save when due; True when a stop signal asked
        the run to end here (they have saved then)."""
        if rank_and_world(self)[1] > 1:  # a signal to any rank stops them all, here, together
            self.stop.agree(any_rank(self, self.stop.received))
        stopping = self.stop_requested()
        if self._trainer is not None:
            for callback in self.trainer.callbacks:  # type: ignore[attr-defined]  # set in Trainer.__init__
                if hasattr(callback, "on_safe_point"):
                    callback.on_safe_point(self.trainer, self, stopping)
        return stopping

    def stop_requested(self) -> bool:
        return self.stop.received is not None

    # -- logging ---------------------------------------------------------------------------------
    def steps_per_second(self) -> float:
        return self.env_steps / max(1e-9, time.monotonic() - self.started)

    def resume_clock(self, wall_seconds: float) -> None:
        """Training time so far is ``wall_seconds`` (0 when a run starts; a checkpoint's on resume)."""
        self.started = time.monotonic() - wall_seconds

    def wall_seconds(self) -> float:
        return time.monotonic() - self.started

    def _log_train_row(self) -> None:
        self.write(train_row(self))

    def write(self, metrics: dict[str, float]) -> None:
        """One metric row, against env steps; checkpoints count the rows (``metric_rows``)."""
        for logger in self.loggers:
            logger.log_metrics(metrics, step=self.env_steps)
        self.metric_rows += 1
