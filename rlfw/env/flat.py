"""Observations that are neither a Box nor a Dict (Discrete, MultiDiscrete, MultiBinary, a Tuple without
images) enter the network one-hot and flat: gymnasium's ``FlattenObservation``, as float32. (A Dict, or a
Tuple that holds an image, is packed for the ``multi`` encoder: ``rlfw.env.packed``.)"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

from rlfw.env.packed import has_image
from rlfw.errors import ConfigError


def flat(env: gym.Env) -> gym.Env:
    """``env`` itself when its observations are a Box, a Dict or a Tuple that holds an image (packed:
    ``rlfw.env.packed``); else flattened to one float32 vector. A space gymnasium cannot flatten (Text) is
    refused in one line."""
    space = env.observation_space
    if isinstance(space, gym.spaces.Box | gym.spaces.Dict) or (
        isinstance(space, gym.spaces.Tuple) and has_image(space)
    ):
        return env
    try:
        gym.spaces.flatten_space(space)
    except (NotImplementedError, TypeError, ValueError) as err:
        raise ConfigError(f"the env's observation space {space} cannot be flattened into one vector: {err}") from err
    return gym.wrappers.DtypeObservation(gym.wrappers.FlattenObservation(env), np.float32)
