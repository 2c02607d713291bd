from rlfw.env import gym  # noqa: F401  (registers the option)
from rlfw.env.spec import EnvSpec

__all__ = ["EnvSpec"]
