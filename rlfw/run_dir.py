"""How run folders are named: ``outputs/<algo>_<env>/<time>``, where ``env=gym`` uses the env id and
``env=atari`` the game; a sweep's jobs by what the sweep varies."""

from __future__ import annotations

import re

from omegaconf import OmegaConf


def env_folder(choice: str, env: dict) -> str:
    """The env option's name; for ``env=atari`` its game; for ``env=gym`` its id made safe for a path
    (``ale_py:ALE/Pong-v5`` gives ``ALE-Pong-v5``)."""
    if choice == "atari":
        return str(env["game"])
    if choice != "gym":
        return choice
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", str(env["id"]).rpartition(":")[2]).strip("-")


def job_folder(num: int, override_dirname: str) -> str:
    """A sweep job's folder: its number, then what the sweep varies (``3_algo=dqn,seed=1``); a group
    override's ``/`` becomes ``.`` so the name stays one folder."""
    return f"{num}_{override_dirname.replace('/', '.')}" if override_dirname else str(num)


def register_resolvers() -> None:
    """Before Hydra composes: conf/config.yaml names run folders with ``${rlfw.env_folder:...}``."""
    OmegaConf.register_new_resolver("rlfw.env_folder", env_folder, replace=True)
    OmegaConf.register_new_resolver("rlfw.job_folder", job_folder, replace=True)
