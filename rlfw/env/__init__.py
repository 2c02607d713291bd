from rlfw.env import atari, catch, gym  # noqa: F401  (registers the options)
from rlfw.env.spec import EnvSpec

__all__ = ["EnvSpec"]
