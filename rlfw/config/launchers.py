"""Hydra's launchers and sweepers that rlfw ships as extras, and the cores a parallel launcher splits."""

from __future__ import annotations

import shutil
from typing import Any

from omegaconf import DictConfig, open_dict

from rlfw.errors import ConfigError
from rlfw.machine import cores

# group -> option -> the rlfw extra that installs it
EXTRAS = {
    "hydra/launcher": {"joblib": "joblib", "submitit_local": "slurm", "submitit_slurm": "slurm", "ray": "ray"},
    "hydra/sweeper": {"optuna": "optuna", "rlfw_optuna": "optuna", "rlfw_optuna_keys": "optuna"},
}


def install_hint(group: str, name: str) -> str:
    extra = EXTRAS.get(group, {}).get(name)
    return f"; it comes with an extra: pip install 'rlfw[{extra}]'" if extra else ""


def workers(hydra_cfg: DictConfig) -> int:
    """Jobs run at once on this machine: joblib's ``n_jobs`` (-1: one per core, -2: all but one, ...);
    a local Ray's cores over each task's ``num_cpus`` (1 unless set)."""
    launcher: Any = hydra_cfg.get("launcher") or {}
    target = str(launcher.get("_target_", ""))
    if target.endswith("JoblibLauncher"):
        n_jobs, available = launcher.get("n_jobs") or -1, cores()
        return max(1, available + 1 + n_jobs if n_jobs < 0 else n_jobs)
    if target.endswith(".RayLauncher") and launcher.ray.init.get("address") is None:
        return max(1, cores() // (launcher.ray.remote.get("num_cpus") or 1))
    return 1


def require_slurm(hydra_cfg: DictConfig) -> None:
    """submitit's Slurm launcher submits with ``sbatch``: without Slurm it fails after the sweep folder
    is written, in a traceback; say so before."""
    launcher: Any = hydra_cfg.get("launcher") or {}
    if str(launcher.get("_target_", "")).endswith(".SlurmLauncher") and shutil.which("sbatch") is None:
        raise ConfigError(
            "hydra/launcher=submitit_slurm: Slurm's sbatch is not on this machine's PATH; run the sweep from a"
            " Slurm login node, or run its jobs here with hydra/launcher=submitit_local"
        )


def join_ray_cluster(hydra_cfg: DictConfig) -> None:
    """hydra-ray-launcher 1.2.2 asks Ray for a 75 MB object store unless told a size, and Ray refuses
    any size from a process that joins a running cluster (``init.address``): leave it to the cluster."""
    launcher: Any = hydra_cfg.get("launcher") or {}
    if not str(launcher.get("_target_", "")).endswith(".RayLauncher"):
        return
    init = launcher.ray.init
    if init.get("address") is not None and "object_store_memory" not in init:
        with open_dict(init):
            init.object_store_memory = None


def split_cores(cfg: dict[str, Any], jobs: int) -> dict[str, Any]:
    """With ``jobs`` processes side by side (joblib workers, ddp ranks), each gets cores // jobs
    threads: torch's (``threads``) and, for an env with threads of its own (``env.threads``, ALE), the
    env's. Unset ones are set to that share; a set one that oversubscribes the cores is refused
    (STACK.md, trap 3)."""
    if jobs == 1:
        return cfg
    available = cores()
    if jobs > available:
        raise ConfigError(
            f"{jobs} processes side by side (joblib workers x ddp ranks): more than this machine's {available} cores"
        )
    share = available // jobs
    for node, key in ((cfg, "threads"), (cfg["env"], "threads")):
        if key not in node:
            continue
        name = "threads" if node is cfg else "env.threads"
        if node[key] is None:
            node[key] = share
        elif node[key] * jobs > available:
            raise ConfigError(
                f"{name}={node[key]}: {jobs} processes x {node[key]} threads exceed this machine's {available} cores;"
                f" set {name}={share} or null (the share of each process)"
            )
    return cfg
