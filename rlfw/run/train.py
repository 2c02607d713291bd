"""One training run of a checked job: fit, evaluate, write ``resolved.yaml`` and ``summary.json``."""

from __future__ import annotations

import json
import logging
import platform
import re
import subprocess
from importlib.metadata import version
from pathlib import Path
from typing import Any

import gymnasium
import lightning
import lightning.pytorch as pl
import numpy as np
import torch
from omegaconf import OmegaConf

from rlfw.config import restart
from rlfw.config.job import Job
from rlfw.config.trainer import RUN_CONTROL, emulated_bf16, lightning_flags, quiet_lightning
from rlfw.errors import RunError, Stopped
from rlfw.loggers import finish_loggers, make_loggers
from rlfw.network.precision import precision_of
from rlfw.run.evaluate import eval_seed, greedy
from rlfw.run.module import RLModule
from rlfw.run.nonfinite import NonFiniteGuard
from rlfw.run.video import record
from rlfw.state.checkpoint import LAST, Checkpoints
from rlfw.state.lock import first_process
from rlfw.state.resume import keep_metric_rows

log = logging.getLogger("rlfw")


def make_trainer(cfg: dict[str, Any], run_dir: Path, loggers: list[pl.loggers.Logger]) -> pl.Trainer:
    checkpoints = Checkpoints(run_dir / "checkpoints", **cfg["checkpoint"])
    callbacks: list[pl.Callback] = [NonFiniteGuard(cfg["on_nonfinite"], checkpoints), checkpoints]  # guard first
    flags = lightning_flags(cfg["trainer"])
    return pl.Trainer(**RUN_CONTROL, logger=loggers, callbacks=callbacks, default_root_dir=run_dir, **flags)


def resume_command(job: Job, run_dir: Path) -> str:
    return restart.goes_on or restart.command(job.overrides, "hydra.run.dir", run_dir)  # a sweep's, in a sweep


def stopped(job: Job, module: RLModule, run_dir: Path) -> Stopped:
    """The line a stopped run ends with: where its checkpoint is and the command that resumes it."""
    signal = module.stop.received
    assert signal is not None, "only a run stopped by a signal ends here"
    return Stopped(
        f"stopped by {signal.name} at {module.progress.env_steps:,} env steps; checkpoint: {run_dir / 'checkpoints' / LAST};"
        f" resume with: {resume_command(job, run_dir)}",
        signal.value,
    )


def broken(err: RuntimeError, trainer: pl.Trainer, job: Job, module: RLModule, run_dir: Path) -> RunError | None:
    """A run that cannot go on, as one line with its newest whole checkpoint and the command that
    resumes: a checkpoint that could not be written, or in a ddp run another rank gone (its process
    killed: gloo's connection to it fails at the next collective, no rank waits for it)."""
    if isinstance(err, RunError):
        what = str(err)
    elif trainer.world_size > 1 and (isinstance(err, torch.distributed.DistError) or "gloo/transport" in str(err)):
        cause = re.search(r"Connection [a-z ]+|Broken pipe|Timed out", str(err))
        what = f"rank {trainer.global_rank} lost the other ranks of this ddp run ({(cause and cause[0]) or 'gloo'})"
    else:
        return None
    last = run_dir / "checkpoints" / LAST
    newest = f"newest whole checkpoint: {last}" if last.exists() else "no checkpoint to go on from"
    return RunError(
        f"{what} at {module.progress.env_steps:,} env steps; {newest}; resume with: {resume_command(job, run_dir)}"
    )


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=Path(__file__).parent, capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def git_state() -> dict[str, Any]:
    """The commit of the rlfw checkout that ran, and whether it had uncommitted changes (None outside git)."""
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {"git_commit": commit, "git_dirty": None if status is None else bool(status)}


def starting(job: Job, trainer: pl.Trainer, run_dir: Path) -> None:
    """The lines a run starts with: what trains where, and what to know of its config and machine."""
    cfg, parts = job.cfg, job.parts
    if parts.replay.fixed:
        what = f"{cfg['total_updates']:,} updates on {cfg['data']['name']} dataset {cfg['data']['id']}"
    else:
        what = f"{cfg['total_env_steps']:,} env steps"
    log.info("training %s on %s for %s; outputs in %s", job.choices["algo"], parts.env.spec.id, what, run_dir)
    for note in [*([job.untuned] if job.untuned is not None else []), *parts.env.notes]:
        log.info(note)
    precision = precision_of(parts.net)
    if precision is not None:
        (log.warning if precision.emulated else log.info)(precision.describe())
    slow = emulated_bf16(str(trainer.precision), trainer.strategy.root_device.type)
    if slow:
        log.warning(slow)


def summarized(job: Job, module: RLModule, wall: float, mean_return: float) -> dict[str, Any]:
    """``summary.json``: the final and best evaluations, the training episodes, counts, time, versions."""
    cfg, parts, names = job.cfg, job.parts, job.choices
    returns = [e["return_mean"] for e in module.progress.evals]
    final = module.progress.evals[-1]
    recent = module.stream.recent(100)[0]
    return {
        "algo": names["algo"],
        "env": parts.env.spec.id,
        "seed": cfg["seed"],
        "overrides": job.overrides,
        "choices": names,
        "solved_return": parts.env.spec.solved_return,
        "eval_return_mean": final["return_mean"],
        "eval_return_std": final["return_std"],
        "best_eval_return_mean": max(returns),
        **normalized_scores(module.progress.evals),
        "mean_eval_return": mean_return,
        # CleanRL's measure: the mean return of the last 100 training episodes (raw rewards)
        "train_episode_return_last_100": float(np.mean(recent)) if recent else None,
        "solved": module.progress.solved,
        "env_steps": module.progress.env_steps,
        "updates": module.progress.updates,
        "wall_seconds": wall,
        "steps_per_second": module.progress.env_steps / wall,
        "updates_per_second": module.progress.updates / wall,
        "time_seconds": module.stream.timings.seconds(),  # this process's
        "evals": module.progress.evals,
        "versions": {
            "rlfw": version("rlfw"),
            "python": platform.python_version(),
            "torch": torch.__version__,
            "lightning": lightning.__version__,
            "gymnasium": gymnasium.__version__,
        },
        **git_state(),
    }


def normalized_scores(evals: list[dict[str, Any]]) -> dict[str, float]:
    """The last and best normalized scores, where the evaluations have them (learning from a dataset with references)."""
    scores = [e["normalized_score"] for e in evals if "normalized_score" in e]
    return {"normalized_score": scores[-1], "best_normalized_score": max(scores)} if scores else {}


def prepare_folder(job: Job, run_dir: Path) -> None:
    """The run folder, with the config that runs; a resumed run's ``metrics.csv`` cut to its checkpoint's
    rows, a fresh ``resume=auto`` start's rows of a start killed before its first checkpoint removed."""
    first = first_process()  # not a ddp rank > 0, which Lightning starts by running the command again
    if job.resume is None and job.cfg["resume"] == "auto" and first:
        log.info("resume=auto: %s holds no checkpoint yet, so the run starts from the beginning", run_dir)
        (run_dir / "metrics.csv").unlink(missing_ok=True)
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "resolved.yaml").write_text(OmegaConf.to_yaml(job.cfg))  # the config that ran, as checked
    if job.resume is not None and first:
        keep_metric_rows(job.resume, run_dir / "metrics.csv")


def train(job: Job, run_dir: Path) -> dict[str, Any]:
    """Train the checked ``job`` (``rlfw.config.preflight.prepare``) into ``run_dir``; returns (and writes) the summary."""
    cfg, parts = job.cfg, job.parts
    for warning in job.dropped:
        log.warning(warning)
    if job.resume is not None and job.resume.summary is not None:
        log.info("%s: this run has finished; its result is summary.json (nothing more to train)", run_dir)
        return job.resume.summary
    prepare_folder(job, run_dir)
    quiet_lightning()
    module = RLModule(cfg, parts, job.resume, job.init)
    loggers = make_loggers(job, run_dir)
    trainer = make_trainer(cfg, run_dir, loggers)
    starting(job, trainer, run_dir)
    try:
        trainer.fit(module)
    except RuntimeError as err:
        error = broken(err, trainer, job, module, run_dir)
        if error is None:
            raise
        raise error from err
    finally:
        module.stop.uninstall()  # the process's own handlers again, whatever ended the fit
    wall = module.wall_seconds()  # training (and evaluation) time, a resumed run's before it included
    if module.stop_requested():
        raise stopped(job, module, run_dir)
    returns = [e["return_mean"] for e in module.progress.evals]
    mean_return = sum(returns) / len(returns)  # over all the run's evals (objective=mean_eval)
    if not trainer.is_global_zero:  # a ddp rank > 0: rank 0 writes the run's files
        return {"eval_return_mean": returns[-1], "mean_eval_return": mean_return}
    if cfg["eval"]["video"]:
        video = record(parts.env, greedy(module.net, module.device), run_dir / "eval.mp4", eval_seed(cfg["seed"], 0))
        log.info("video of one greedy evaluation episode: %s", video)
    summary = summarized(job, module, wall, mean_return)
    (run_dir / "summary.json").write_text(json.dumps(summary, indent=2))
    finish_loggers(loggers, summary, run_dir)
    unit, name = module.progress.unit, module.progress.unit_words
    count, rate = f"{summary[unit]:,}", summary["steps_per_second" if unit == "env_steps" else "updates_per_second"]
    mean, std = summary["eval_return_mean"], summary["eval_return_std"]
    log.info(
        "done: eval return %.1f +- %.1f after %s %s in %.1f s (%.0f %s/s)", mean, std, count, name, wall, rate, name
    )
    log.info("time: %s", module.stream.timings.line())
    if module.stream.paused() and module.progress.now() < module.total:
        log.info("paused at pause_at=%s: resume=auto with a later pause_at (or none) goes on", cfg["pause_at"])
    return summary
