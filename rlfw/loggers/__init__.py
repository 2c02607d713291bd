"""The run's Lightning loggers: ``metrics.csv`` always, plus the ``logger`` choices (TensorBoard, W&B)."""

from __future__ import annotations

import csv
from pathlib import Path

import lightning.pytorch as pl
from lightning.pytorch.loggers.csv_logs import ExperimentWriter

from rlfw.config.job import Job
from rlfw.loggers.finishing import Finishing


class ContinuedWriter(ExperimentWriter):
    """Lightning's metrics.csv writer, except that it appends to a metrics.csv already in the run
    folder instead of deleting it: a resumed run's (``rlfw.state.resume.keep_metric_rows`` cut it to the
    checkpoint's rows). A new run never starts in a folder holding one (``rlfw.config.preflight``).
    It writes nothing once the run folder is gone (deleted under the run, which stops at its next
    checkpoint or evaluation, in one line): a metrics.csv alone would make the folder again, looking
    like a run."""

    def _check_log_dir_exists(self) -> None:
        if self._fs.isfile(self.metrics_file_path):
            with open(self.metrics_file_path, newline="") as file:
                self.metrics_keys = next(csv.reader(file), [])

    def save(self) -> None:
        try:
            super().save()  # opens metrics.csv in the folder as it is: a missing folder is not made again
        except FileNotFoundError:
            if self._fs.isdir(self.log_dir):
                raise
            # deleted between rows (an rmtree part way when the run's stop flushes them): the run's
            # own line says so, which this error would otherwise replace with a traceback


def make_loggers(job: Job, run_dir: Path) -> list[pl.loggers.Logger]:
    """``logger`` holds one key per added logger (``rlfw.config.schema.Logger``); the CSV logger comes first."""
    chosen = job.cfg["logger"]
    metrics = pl.loggers.CSVLogger(run_dir, name="", version="")
    metrics._experiment = ContinuedWriter(metrics.log_dir)  # what its `experiment` property would make, appending
    loggers: list[pl.loggers.Logger] = [metrics]
    if "tensorboard" in chosen:
        loggers.append(pl.loggers.TensorBoardLogger(run_dir, name="tensorboard", version="", default_hp_metric=False))
    if "wandb" in chosen:
        from rlfw.loggers.wandb_run import wandb_logger

        loggers.append(wandb_logger(job, run_dir))
    return loggers


def finish_loggers(loggers: list[pl.loggers.Logger], summary: dict, run_dir: Path) -> None:
    """After ``summary.json``: W&B takes it as its run summary, uploads what was asked and closes."""
    for logger in loggers:
        if isinstance(logger, Finishing):
            logger.finish(summary, run_dir)
