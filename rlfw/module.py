"""``RLModule``: the one LightningModule every algorithm runs in.

The train dataloader is the experience stream (``experience``): it steps the envs with the live
policy until the replay strategy is ready, then yields its batches. ``training_step`` pulls one batch,
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
from rlfw.build import Parts, build_parts
from rlfw.collector import Collector
from rlfw.evaluate import evaluation
from rlfw.metrics import IntervalMean, train_row
from rlfw.progress import Progress
from rlfw.ranks import env_seed, from_rank_zero, rank_and_world

log = logging.getLogger("rlfw")


class _Stream(IterableDataset):
    def __init__(self, module: RLModule):
        self.module = module

    def __iter__(self) -> Iterator[Batch]:
        return self.module.experience()


class RLModule(pl.LightningModule):
    def __init__(self, cfg: dict[str, Any], parts: Parts | None = None):
        super().__init__()
        self.cfg = cfg
        parts = parts or build_parts(cfg)
        self.env, self.explore, self.replay, self.target_rule, self.optim = (
            parts.env, parts.explore, parts.replay, parts.target, parts.optim,
        )
        self.net, self.target_net, self.loss_fn = parts.net, parts.target_net, parts.loss
        self.total_env_steps = cfg["total_env_steps"]
        self.env_steps = 0
        self.updates = 0
        self.evals: list[dict[str, float]] = []  # {"env_steps", "wall_seconds", "return_mean", "return_std"} per evaluation
        self.solved = False
        self.collector: Collector | None = None
        self.interval = IntervalMean()  # train terms since the last metrics row
        self.started = time.monotonic()  # reset when the stream starts: steps/s counts training only

    # -- Lightning hooks -------------------------------------------------------------------------
    def train_dataloader(self) -> DataLoader:
        return DataLoader(_Stream(self), batch_size=None, num_workers=0)

    def configure_optimizers(self):
        optimizer = self.optim.build(self.net)
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
        self.replay.feedback(batch, out)
        if self.loggers:
            self.interval.add({"loss": loss, **{k: v for k, v in out.items() if v.ndim == 0 and k != "stop_epochs"}})
        return loss

    def on_train_batch_end(self, outputs, batch, batch_idx: int) -> None:
        if self.interval.count >= self.cfg["log_every"]:  # after the optimizer step: the row counts it
            self._log_train_row()

    def optimizer_zero_grad(self, epoch: int, batch_idx: int, optimizer) -> None:
        """No-op: gradients are zeroed right after each optimizer step instead (``optimizer_step``).

        With batches pulled inside ``training_step``, the ``batch_idx`` Lightning passes here lags by
        one, so its zeroing would fall on the second batch of an accumulation window and drop the
        first batch's gradient.
        """

    def optimizer_step(self, epoch: int, batch_idx: int, optimizer, optimizer_closure=None) -> None:
        super().optimizer_step(epoch, batch_idx, optimizer, optimizer_closure)
        optimizer.zero_grad()
        self.updates += 1
        if self.target_net is not None:
            self.target_rule.step(self.net, self.target_net, self.updates)

    def on_train_end(self) -> None:
        if self.loggers and self.interval.count:
            self._log_train_row()  # the updates since the last full interval

    def on_save_checkpoint(self, checkpoint: dict[str, Any]) -> None:
        checkpoint["rlfw"] = {"env_steps": self.env_steps, "updates": self.updates, "config": self.cfg}

    # -- the experience stream -------------------------------------------------------------------
    def experience(self) -> Iterator[Batch]:
        cfg = self.cfg
        rank, world = rank_and_world(self)
        if world > 1:
            torch.manual_seed(cfg["seed"] + rank)  # same initial weights, but each rank samples its own actions
        envs = self.env.make(cfg["num_envs"])
        eval_envs = self.env.make(cfg["eval"]["episodes"], evaluation=True) if rank == 0 else None
        seed = env_seed(cfg["seed"], rank, cfg["num_envs"])
        self.collector = c = Collector(envs, self.net, self.explore, self.replay, seed, self.device, world)
        self.started = time.monotonic()
        next_eval = cfg["eval"]["every"]
        progress = Progress(self.total_env_steps, cfg["progress_every_s"])
        try:
            while c.env_steps < self.total_env_steps and not self.solved:
                for _ in range(self.replay.collect_steps):
                    if c.env_steps >= self.total_env_steps:
                        break  # a partial rollout is never ready: the run ends without it
                    c.step()
                self.env_steps = c.env_steps
                if self.replay.ready():
                    yield from self.replay.batches(self.net)
                if self.env_steps >= next_eval:
                    self._evaluate(eval_envs)
                    next_eval += cfg["eval"]["every"]
                if rank == 0:
                    progress.update(self)
            if not self.evals or self.evals[-1]["env_steps"] != self.env_steps:
                self._evaluate(eval_envs)  # the final evaluation, after the last update
        finally:
            progress.close()
            envs.close()
            if eval_envs is not None:
                eval_envs.close()

    def _evaluate(self, eval_envs) -> None:
        """Rank 0 plays the greedy episodes (``eval_envs``; None on other ranks); every rank records the result."""
        result = from_rank_zero(self, None if eval_envs is None else evaluation(self, eval_envs))
        self.evals.append(result)
        self._write({"eval/return_mean": result["return_mean"], "eval/return_std": result["return_std"]})
        if self._trainer is not None:  # callbacks with an on_eval hook (best.ckpt) see the weights just evaluated
            for callback in self.trainer.callbacks:
                if hasattr(callback, "on_eval"):
                    callback.on_eval(self.trainer, self, result)
        for logger in self.loggers:
            logger.save()  # metrics reach the disk at every evaluation, not only at the end
        solved_at = self.env.spec.solved_return
        if self.cfg["stop_when_solved"] and solved_at is not None and result["return_mean"] >= solved_at:
            self.solved = True
            if eval_envs is not None:
                log.info("solved: greedy eval return %.1f >= %.1f at %d env steps", result["return_mean"], solved_at, self.env_steps)

    # -- logging ---------------------------------------------------------------------------------
    def steps_per_second(self) -> float:
        return self.env_steps / max(1e-9, time.monotonic() - self.started)

    def _log_train_row(self) -> None:
        self._write(train_row(self))

    def _write(self, metrics: dict[str, float]) -> None:
        """Every metric is logged against env steps."""
        for logger in self.loggers:
            logger.log_metrics(metrics, step=self.env_steps)
