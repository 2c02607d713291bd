"""rlfw: a plugin-based reinforcement-learning experiment framework (Lightning + Hydra)."""

import os
from importlib.metadata import version

# Torch's OpenMP threads spin for a while after each parallel region by default, and rlfw's loop
# hands the cores back and forth between torch (acting, learning) and env threads (ale-py) many
# times a second: spinning threads take the env threads' cores (docs/results.md has the figures).
# Set before torch is imported; a user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from rlfw.registry import register

__version__ = version("rlfw")  # pyproject.toml's, as installed
__all__ = ["__version__", "load", "register", "train"]


def __getattr__(name: str):
    """``rlfw.load`` and ``rlfw.train``, imported when first used (they import torch and Lightning)."""
    if name == "load":
        from rlfw.agent.load import load

        return load
    if name == "train":
        from rlfw.run.api import train

        return train
    raise AttributeError(f"module 'rlfw' has no attribute {name!r}")
