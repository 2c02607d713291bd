"""Observations that are not one Box (Discrete, MultiDiscrete, MultiBinary, Tuple, Dict of those and of
flat Boxes) enter the network one-hot and flat: gymnasium's ``FlattenObservation``, as float32."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from rlfw.errors import ConfigError


def flat(env: gym.Env) -> gym.Env:
    """``env`` itself when its observations are a Box; else flattened to one float32 vector. A Dict
    holding images, or a space gymnasium cannot flatten (Text), is refused in one line."""
    space = env.observation_space
    if isinstance(space, gym.spaces.Box):
        return env
    parts = space.spaces.items() if isinstance(space, gym.spaces.Dict) else []
    images = [k for k, s in parts if isinstance(s, gym.spaces.Box) and len(s.shape) >= 2]
    if images:
        raise ConfigError(
            f"the env's Dict observation holds images ({', '.join(images)}): rlfw reads images only as a whole"
            " Box observation so far (flattened, they would bypass the CNN)"
        )
    try:
        gym.spaces.flatten_space(space)
    except (NotImplementedError, TypeError, ValueError) as err:
        raise ConfigError(f"the env's observation space {space} cannot be flattened into one vector: {err}") from err
    return gym.wrappers.DtypeObservation(gym.wrappers.FlattenObservation(env), np.float32)
