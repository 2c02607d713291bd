"""Small shared builders for tests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import gymnasium as gym
import torch
from hydra import compose, initialize_config_dir
from omegaconf import OmegaConf
from torch import nn

from rlfw.check import check_config
from rlfw.config_path import config_dir
from rlfw.env.spec import EnvSpec

ROOT = Path(__file__).resolve().parents[1]


def spec(obs_dim: int = 4, actions: int = 2) -> EnvSpec:
    return EnvSpec("Test-v0", (obs_dim,), gym.spaces.Discrete(actions), None)


def config(*overrides: str) -> dict:
    """The checked config for ``python -m rlfw <overrides>``, as plain containers."""
    with initialize_config_dir(config_dir(), version_base="1.3"):
        return check_config(OmegaConf.to_container(compose("config", list(overrides)), resolve=True))


class TableQ(nn.Module):
    """Q(s, .) read from a learnable table row per integer state: easy to build cases by hand."""

    outputs = frozenset({"q"})

    def __init__(self, table: list[list[float]]):
        super().__init__()
        self.table = nn.Parameter(torch.tensor(table, dtype=torch.float32))

    def forward(self, obs: torch.Tensor) -> dict[str, torch.Tensor]:
        return {"q": self.table[obs.long()]}


def run_cli(*args: str, cwd: Path = ROOT, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "rlfw", *args], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
