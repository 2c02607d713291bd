"""Partially observed tasks, registered as gymnasium ids when this module is imported (``env.imports``).

``rlfw/CartPoleNoVel-v1``: CartPole-v1 that shows the cart's position and the pole's angle but not
their velocities, which a policy must then infer from the observations before (RL Zoo's
CartPoleNoVel-v1, there by zeroing the two entries; here they are dropped). A feed-forward policy
sees one snapshot; a recurrent one can difference two.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np

SEEN = [0, 2]  # CartPole's observation: x, x_dot, theta, theta_dot


def cartpole_no_velocity(**kwargs) -> gym.Env:
    env = gym.make("CartPole-v1", **kwargs)
    box = env.observation_space
    assert isinstance(box, gym.spaces.Box)
    space = gym.spaces.Box(box.low[SEEN], box.high[SEEN], dtype=np.float32)
    return gym.wrappers.TransformObservation(env, lambda obs: obs[SEEN], space)


if "rlfw/CartPoleNoVel-v1" not in gym.registry:
    gym.register("rlfw/CartPoleNoVel-v1", entry_point=cartpole_no_velocity, reward_threshold=475.0)
