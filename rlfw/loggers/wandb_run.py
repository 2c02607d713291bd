"""``logger=wandb``: the run in Weights & Biases, every metric against env steps.

W&B never makes a run wait on the network: without an API key, or when W&B does not answer within
``PROBE_S``, the run is recorded offline into ``<run>/wandb`` and one line says how to upload it.
``WANDB_MODE`` in the environment (``disabled``, ``offline``, ``online``) always wins.
"""

from __future__ import annotations

import logging
import netrc
import os
import threading
import urllib.error
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from lightning.pytorch.loggers import WandbLogger
from lightning.pytorch.utilities import rank_zero_only

from rlfw.config.folders import env_folder
from rlfw.config.job import Job
from rlfw.loggers.finishing import Finishing

log = logging.getLogger("rlfw")
PROBE_S = 2.0  # how long a run with an API key waits to learn whether W&B answers


class RunWandbLogger(WandbLogger, Finishing):
    """Lightning's ``WandbLogger``, with the run's count as every metric's x axis (not the global step):
    ``env_steps``, or ``updates`` for a run that learns from data."""

    def __init__(self, options: dict[str, Any], axis: str, **kwargs: Any):
        super().__init__(**kwargs)
        self.options, self.axis = options, axis  # logger.wandb; env_steps or updates

    @rank_zero_only
    def log_metrics(self, metrics: Mapping[str, float], step: int | None = None) -> None:
        self.experiment.log({self.axis: step, **metrics})

    @rank_zero_only
    def finish(self, summary: dict[str, Any], run_dir: Path) -> None:
        """``summary.json`` as the run's summary, the asked-for artifacts, then close the run."""
        import wandb

        run, options = self.experiment, self.options
        run.summary.update({k: v for k, v in summary.items() if k != "evals"})
        files = {"video": run_dir / "eval.mp4", "model": run_dir / "checkpoints" / "last.ckpt"}
        asked = {"video": options["log_video"], "model": options["log_checkpoint"]}
        for kind, path in files.items():
            if asked[kind] and path.exists():
                artifact = wandb.Artifact(f"{run.id}-{kind}", type=kind)
                artifact.add_file(str(path))
                run.log_artifact(artifact)
            elif asked[kind]:
                log.warning("W&B: no %s to upload (%s does not exist)", kind, path)
        offline = run.settings.mode in ("offline", "dryrun")
        run.finish()
        if offline:
            log.info("W&B run recorded offline; upload it with: wandb sync %s", Path(run.dir).parent)


def wandb_logger(job: Job, run_dir: Path) -> RunWandbLogger:
    options, cfg, choices = job.cfg["logger"]["wandb"], job.cfg, job.choices
    mode = os.environ["WANDB_MODE"] = choose_mode(options["mode"])  # before wandb loads (STACK.md, trap 7)
    import wandb

    algo, env, seed = choices["algo"], env_folder(str(choices["env"]), cfg["env"]), cfg["seed"]
    axis = "updates" if job.parts.replay.fixed else "env_steps"  # the run's count (rlfw.state.progress)
    logger = RunWandbLogger(
        options,
        axis,
        save_dir=run_dir,  # wandb writes <run>/wandb, never ./wandb
        project=options["project"],
        entity=options["entity"],
        group=options["group"] or job.sweep or f"{algo}_{env}",
        name=options["name"] or f"{algo}_{env}_seed{seed}",
        job_type="train",
        tags=[f"algo={algo}", f"env={env}", f"seed={seed}", *options["tags"]],
        config={**cfg, "overrides": job.overrides, "choices": choices, "run_dir": str(run_dir.resolve())},
        mode=mode,  # as well: a process that already loaded wandb has read the environment
        **(
            {"id": job.resume.state["wandb_id"], "resume": "allow"}
            if job.resume and job.resume.state["wandb_id"]
            else {}
        ),
        settings=wandb.Settings(quiet=True),  # rlfw prints the one line a user needs (how to sync)
    )
    run = logger.experiment  # starts the run now, not at the first metric
    run.define_metric(axis)
    run.define_metric("*", step_metric=axis)
    return logger


def choose_mode(configured: str | None) -> str:
    """``WANDB_MODE`` if set, else ``logger.wandb.mode``, else online only with a key and an answer."""
    if os.environ.get("WANDB_MODE"):
        return os.environ["WANDB_MODE"]
    if configured is not None:
        return configured
    url = os.environ.get("WANDB_BASE_URL", "https://api.wandb.ai")
    if not has_api_key(urlparse(url).hostname or ""):
        log.info("W&B: no API key (WANDB_API_KEY or `wandb login`): recording offline")
        return "offline"
    if not answers(url):
        log.info("W&B: %s did not answer within %.0f s: recording offline", url, PROBE_S)
        return "offline"
    return "online"


def has_api_key(host: str) -> bool:
    if os.environ.get("WANDB_API_KEY"):
        return True
    try:
        return netrc.netrc().authenticators(host) is not None  # where `wandb login` keeps the key
    except (OSError, netrc.NetrcParseError):
        return False


def answers(url: str) -> bool:
    """Whether the server at ``url`` sends any HTTP reply within ``PROBE_S``, its TLS certificate
    verified (a proxy that takes every connection is not W&B)."""
    result: list[bool] = []

    def probe() -> None:
        try:
            urllib.request.urlopen(url, timeout=PROBE_S).close()
            result.append(True)
        except urllib.error.HTTPError:  # a reply, if not a 200
            result.append(True)
        except (OSError, ValueError):  # no route, no name, refused, timed out, bad certificate, bad URL
            result.append(False)

    thread = threading.Thread(target=probe, daemon=True)
    thread.start()
    thread.join(PROBE_S)
    return bool(result and result[0])
