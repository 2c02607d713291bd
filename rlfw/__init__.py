"""rlfw: a plugin-based reinforcement-learning experiment framework (Lightning + Hydra)."""

import os
from importlib.metadata import version

# Torch's OpenMP threads wait for the next parallel region by spinning, by default long enough to
# take the cores of the env threads (ale-py) that rlfw's loop hands them to many times a second;
# sleeping at once (OMP_WAIT_POLICY=PASSIVE) makes every small op wake them. A spin of 10,000 rounds
# covers the gaps between one forward's ops and part of the env step after it: shorter spins slow
# the forward more than they speed the envs (docs/design.md, "Speed choices, and why"). Set before
# torch is imported (libgomp reads it once); a user's own setting wins.
if "OMP_WAIT_POLICY" not in os.environ:
    os.environ.setdefault("GOMP_SPINCOUNT", "10000")

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
