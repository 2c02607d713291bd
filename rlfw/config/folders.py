"""How run folders are named: ``outputs/<algo>_<env>/<time>``, where ``env=gym`` uses the env id and
``env=atari`` the game; a sweep's jobs by what the sweep varies."""

from __future__ import annotations

import re

from omegaconf import OmegaConf


def env_folder(choice: str, env: dict) -> str:
    """The env option's name; for ``env=atari`` its game, for ``env=minatar`` ``minatar-<game>``, for ``env=popgym`` ``popgym-<task>``; for ``env=gym`` and ``env=mujoco`` its id made safe for a path
    (``ale_py:ALE/Pong-v5`` gives ``ALE-Pong-v5``)."""
    if choice == "atari":
        return str(env["game"])
    if choice == "minatar":
        return f"minatar-{env['game']}"
    if choice == "popgym":
        return f"popgym-{env['task']}"
    if choice not in ("gym", "mujoco"):
        return choice
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", str(env["id"]).rpartition(":")[2]).strip("-")


MAX_FOLDER = 150  # characters of a job folder's name; file systems allow 255 bytes


def job_folder(num: int, override_dirname: str) -> str:
    """A sweep job's folder: its number, then what the sweep varies (``3_algo=dqn,seed=1``); a group
    override's ``/`` becomes ``.`` so the name stays one folder. A long name (an Optuna trial's many
    floats) is cut; the number keeps it unique, and the job's .hydra/overrides.yaml has the whole."""
    if not override_dirname:
        return str(num)
    name = f"{num}_{override_dirname.replace('/', '.')}"
    return name if len(name) <= MAX_FOLDER else name[: MAX_FOLDER - 3] + "..."


def register_resolvers() -> None:
    """Before Hydra composes: conf/config.yaml names run folders with ``${rlfw.env_folder:...}``."""
    OmegaConf.register_new_resolver("rlfw.env_folder", env_folder, replace=True)
    OmegaConf.register_new_resolver("rlfw.job_folder", job_folder, replace=True)
