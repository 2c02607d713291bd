"""The schema of the run's own keys, beside the options' typed ``__init__`` signatures.

Each node is a dataclass: its typed fields are checked the way an option's parameters are
(``rlfw.values.check_values``: unknown keys with a close match, wrong types, missing keys), then
constructing it checks the ranges. The defaults and their docs live in ``conf/config.yaml``: every
field here that the yaml sets is required.
"""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Literal

from rlfw.errors import require
from rlfw.machine import cores
from rlfw.values import check_values

MAX_ENVS = 1024  # envs per vector env: each is a Python object stepped in turn
MAX_SEED = 2**32 - 1


@dataclass
class Run:
    seed: int
    total_env_steps: int
    num_envs: int
    gamma: float
    stop_when_solved: bool
    objective: Literal["final_eval", "mean_eval"]
    eval: dict
    league: dict
    log_every: int
    progress_every_s: float
    checkpoint: dict
    resume: str | None
    schedule: dict  # {key: {env_step: value}}, read by rlfw.config.schedule
    pause_at: int | None  # this start of the run ends here, checkpointed (population-based training)
    on_nonfinite: Literal["stop", "skip"]
    compile: bool
    threads: int | None
    trainer: dict
    logger: dict
    # The option groups; their contents are checked against the chosen option's class.
    env: dict
    network: dict
    explore: dict
    replay: dict
    target: dict
    loss: dict
    optim: dict
    # Learning from data: the dataset (conf/data/), and the budget in updates that replaces total_env_steps.
    data: dict | None = None
    total_updates: int | None = None
    init_from: str | None = None  # a checkpoint whose networks and optimizer state the run starts from

    def __post_init__(self):
        require(0 <= self.seed <= MAX_SEED, "seed", self.seed, f"an integer from 0 to {MAX_SEED}")
        require(self.total_env_steps >= 1, "total_env_steps", self.total_env_steps, "must be >= 1")
        require(
            self.total_updates is None or self.total_updates >= 1, "total_updates", self.total_updates, "must be >= 1"
        )
        require(1 <= self.num_envs <= MAX_ENVS, "num_envs", self.num_envs, f"envs stepped together, 1 to {MAX_ENVS}")
        require(0 <= self.gamma <= 1, "gamma", self.gamma, "a discount in [0, 1]")
        require(self.pause_at is None or self.pause_at >= 1, "pause_at", self.pause_at, "null or env steps >= 1")
        require(self.log_every >= 1, "log_every", self.log_every, "updates between metric rows, >= 1")
        require(self.progress_every_s > 0, "progress_every_s", self.progress_every_s, "seconds, > 0")
        require(
            self.resume is None or self.resume == "auto" or self.resume.endswith(".ckpt"),
            "resume",
            self.resume,
            "null, auto (the run in hydra.run.dir) or the path of a .ckpt file",
        )
        require(
            self.init_from is None or self.init_from.endswith(".ckpt"),
            "init_from",
            self.init_from,
            "null or the path of a .ckpt file (a run's checkpoints/last.ckpt or best.ckpt)",
        )
        available, threads = cores(), self.threads
        require(
            threads is None or 1 <= threads <= available,
            "threads",
            threads,
            f"torch CPU threads, 1 to this machine's {available} cores, or null: all",
        )


@dataclass
class Eval:
    every: int
    episodes: int
    video: bool

    def __post_init__(self):
        require(self.every >= 1, "eval.every", self.every, "env steps between evaluations, >= 1")
        require(
            1 <= self.episodes <= MAX_ENVS,
            "eval.episodes",
            self.episodes,
            f"episodes run side by side, 1 to {MAX_ENVS}",
        )


@dataclass
class League:
    past: float
    keep: int
    every: int

    def __post_init__(self):
        require(
            0 <= self.past <= 1, "league.past", self.past, "the share of training games against a past version, 0 to 1"
        )
        require(self.keep >= 1, "league.keep", self.keep, "past versions kept, >= 1")
        require(self.every >= 1, "league.every", self.every, "env steps between kept versions, >= 1")


@dataclass
class Checkpoint:
    every: int | None
    every_s: float | None
    keep: int

    def __post_init__(self):
        require(self.every is None or self.every >= 1, "checkpoint.every", self.every, "null or env steps >= 1")
        require(self.every_s is None or self.every_s > 0, "checkpoint.every_s", self.every_s, "null or seconds > 0")
        require(self.keep >= 1, "checkpoint.keep", self.keep, "checkpoints kept, >= 1")


@dataclass
class Network:
    encoder: dict
    head: dict
    normalize_obs: bool
    obs_clip: float
    precision: Literal["auto", "fp32", "bf16"]  # rlfw.network.precision.PRECISIONS: that module loads torch

    def __post_init__(self):
        require(
            self.obs_clip > 0,
            "network.obs_clip",
            self.obs_clip,
            "normalized observations are clipped to +-obs_clip, > 0",
        )


@dataclass
class Wandb:
    project: str
    entity: str | None
    group: str | None
    name: str | None
    tags: list[str]
    mode: Literal["online", "offline", "disabled"] | None
    log_video: bool
    log_checkpoint: bool


@dataclass
class Logger:
    """Loggers added to metrics.csv (always written): ``logger=wandb``, ``logger=[wandb,tensorboard]``."""

    wandb: dict | None = None
    tensorboard: dict | None = None

    def __post_init__(self):
        if self.wandb is not None:
            Wandb(**check_values(Wandb, self.wandb, "logger.wandb"))
        if self.tensorboard is not None:
            require(self.tensorboard == {}, "logger.tensorboard", self.tensorboard, "takes no keys: {}")
            require(
                importlib.util.find_spec("tensorboard") is not None,
                "logger",
                "tensorboard",
                "needs the tensorboard package: pip install 'rlfw[tensorboard]'",
            )


@dataclass
class Trainer:
    """The Lightning ``Trainer`` flags rlfw supports.

    The run's length, logging, checkpoints and progress output are rlfw's own (env steps), so the
    Trainer flags that control them (``max_steps``, ``max_time``, ``fast_dev_run``,
    ``limit_train_batches``, ``log_every_n_steps``, ...) are refused as unknown keys.
    """

    accelerator: Literal["cpu", "gpu", "cuda", "mps", "auto"]
    devices: int
    strategy: Literal["auto", "ddp"]
    num_nodes: int
    # Mixed precision only: "-true" 16/64-bit would cast the networks but not the observations.
    precision: Literal["32-true", "bf16-mixed", "16-mixed", 16, 32] | None
    gradient_clip_val: float | None
    gradient_clip_algorithm: Literal["norm", "value"] | None
    accumulate_grad_batches: int
    deterministic: bool | None
    detect_anomaly: bool
    profiler: Literal["simple", "advanced", "pytorch"] | None

    def __post_init__(self):
        ddp = "one process per device needs trainer.strategy=ddp"
        require(self.devices >= 1, "trainer.devices", self.devices, "processes (one per device) on each node, >= 1")
        require(self.devices == 1 or self.strategy == "ddp", "trainer.devices", self.devices, ddp)
        require(self.num_nodes == 1 or self.strategy == "ddp", "trainer.num_nodes", self.num_nodes, ddp)
        require(self.num_nodes >= 1, "trainer.num_nodes", self.num_nodes, "machines, >= 1")
        if self.accelerator in ("gpu", "cuda"):
            import torch  # here only: torch's import is most of a config error's time

            no_gpu = "no GPU is visible to torch here; use cpu or auto"
            require(torch.cuda.is_available(), "trainer.accelerator", self.accelerator, no_gpu)
        clip = self.gradient_clip_val
        require(clip is None or clip > 0, "trainer.gradient_clip_val", clip, "null or > 0")
        accumulate = self.accumulate_grad_batches
        require(accumulate >= 1, "trainer.accumulate_grad_batches", accumulate, "batches per optimizer step, >= 1")


# The run's own nodes by config path ("" is the top level); option groups are checked by their classes.
NODES = {
    "": Run,
    "eval": Eval,
    "league": League,
    "checkpoint": Checkpoint,
    "network": Network,
    "logger": Logger,
    "trainer": Trainer,
}
