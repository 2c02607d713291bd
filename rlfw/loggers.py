"""The run's Lightning loggers: ``metrics.csv`` always, plus the ``logger`` choices (TensorBoard, W&B)."""

from __future__ import annotations

from pathlib import Path

import lightning.pytorch as pl

from rlfw.preflight import Job


def make_loggers(job: Job, run_dir: Path) -> list[pl.loggers.Logger]:
    """``logger`` holds one key per added logger (``rlfw.schema.Logger``); the CSV logger comes first."""
    chosen = job.cfg["logger"]
    loggers: list[pl.loggers.Logger] = [pl.loggers.CSVLogger(run_dir, name="", version="")]
    if "tensorboard" in chosen:
        loggers.append(pl.loggers.TensorBoardLogger(run_dir, name="tensorboard", version="", default_hp_metric=False))
    if "wandb" in chosen:
        from rlfw.wandb_run import wandb_logger

        loggers.append(wandb_logger(job, run_dir))
    return loggers


def finish_loggers(loggers: list[pl.loggers.Logger], summary: dict, run_dir: Path) -> None:
    """After ``summary.json``: W&B takes it as its run summary, uploads what was asked and closes."""
    for logger in loggers:
        if hasattr(logger, "finish"):
            logger.finish(summary, run_dir)
