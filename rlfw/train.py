"""One training run: build (all config checks first), fit, evaluate, write ``summary.json``."""

from __future__ import annotations

import json
import logging
import platform
import subprocess
import time
import warnings
from pathlib import Path
from typing import Any

import gymnasium
import lightning
import lightning.pytorch as pl
import torch
from lightning.fabric.utilities.exceptions import MisconfigurationException

import rlfw
from rlfw.build import Parts
from rlfw.checkpoint import LastCheckpoint
from rlfw.errors import ConfigError
from rlfw.module import RLModule

log = logging.getLogger("rlfw")

QUIET_WARNINGS = (
    r".*LeafSpec.*",  # torch 2.13 + Lightning: one FutureWarning per batch
    r".*`dataloader_iter`.*",  # we pull batches ourselves, on purpose (see RLModule.training_step)
    r".*exists and is not empty.*",  # the CSV logger writes metrics.csv into Hydra's run folder
    r".*does not have many workers.*",  # the env stream must run in the main process
)


def make_logger(cfg: dict[str, Any], run_dir: Path):
    """The ``logger`` choice (checked in ``rlfw.build.check_run``)."""
    if cfg["logger"]["name"] == "tensorboard":
        return pl.loggers.TensorBoardLogger(run_dir, name="tensorboard", version="", default_hp_metric=False)
    return pl.loggers.CSVLogger(run_dir, name="", version="")


def make_trainer(cfg: dict[str, Any], run_dir: Path) -> pl.Trainer:
    """Lightning's Trainer with ``cfg["trainer"]``; a bad flag is a ``ConfigError`` (nothing is written yet)."""
    try:
        return pl.Trainer(
            max_epochs=1,
            logger=make_logger(cfg, run_dir),
            callbacks=[LastCheckpoint(run_dir / "checkpoints", cfg["checkpoint_every"])],
            enable_checkpointing=False,
            enable_progress_bar=False,
            enable_model_summary=False,
            num_sanity_val_steps=0,
            default_root_dir=run_dir,
            **cfg["trainer"],
        )
    except (TypeError, ValueError, ImportError, MisconfigurationException) as err:
        raise ConfigError(f"trainer: {err}") from err


def git_commit() -> str | None:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(rlfw.__file__).parent, capture_output=True, text=True, timeout=5
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() or None


def train(cfg: dict[str, Any], parts: Parts, run_dir: Path, names: dict[str, str]) -> dict[str, Any]:
    """Train one run described by the resolved ``cfg`` with its checked ``parts`` (``build_parts``);
    returns (and writes) the summary."""
    torch.set_num_threads(cfg["threads"])
    for pattern in QUIET_WARNINGS:
        warnings.filterwarnings("ignore", message=pattern)
    logging.getLogger("lightning.pytorch").setLevel(logging.WARNING)
    module = RLModule(cfg, parts)
    trainer = make_trainer(cfg, run_dir)
    log.info(
        "training %s on %s for %s env steps; outputs in %s", names["algo"], cfg["env"]["id"], f"{cfg['total_env_steps']:,}", run_dir
    )
    started = time.monotonic()
    trainer.fit(module)
    wall = time.monotonic() - started
    final = module.evals[-1]
    summary = {
        "algo": names["algo"],
        "env": cfg["env"]["id"],
        "seed": cfg["seed"],
        "eval_return_mean": final["return_mean"],
        "eval_return_std": final["return_std"],
        "best_eval_return_mean": max(e["return_mean"] for e in module.evals),
        "solved": module.solved,
        "env_steps": module.env_steps,
        "updates": module.updates,
        "wall_seconds": wall,
        "steps_per_second": module.env_steps / wall,
        "evals": module.evals,
        "versions": {
            "rlfw": rlfw.__version__,
            "python": platform.python_version(),
            "torch": torch.__version__,
            "lightning": lightning.__version__,
            "gymnasium": gymnasium.__version__,
        },
        "git_commit": git_commit(),
    }
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    log.info(
        "done: eval return %.1f +- %.1f after %s env steps in %.1f s (%.0f steps/s)",
        final["return_mean"], final["return_std"], f"{module.env_steps:,}", wall, summary["steps_per_second"],
    )
    return summary
