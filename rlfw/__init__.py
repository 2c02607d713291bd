"""rlfw: a plugin-based reinforcement-learning experiment framework (Lightning + Hydra)."""

import os

# Torch's OpenMP threads spin for a while after each parallel region by default, and rlfw's loop
# hands the cores back and forth between torch (acting, learning) and env threads (ale-py) many
# times a second: the spinning threads took the env threads' cores. Sleeping at once instead, the
# collector stepping Pong with 8 envs rose from 69% to 106% of the env-only rate on a 2-core CPU,
# and a learner step took 4% longer. Set before torch is imported; a user's own setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

from rlfw.registry import register  # noqa: E402  (after the OpenMP setting)

__version__ = "0.1.0"
__all__ = ["register", "__version__"]
