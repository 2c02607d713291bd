from rlfw.env import atari, catch, gym, minatar, mujoco, pettingzoo, popgym  # noqa: F401  (registers the options)
from rlfw.env.spec import EnvSpec

__all__ = ["EnvSpec"]
