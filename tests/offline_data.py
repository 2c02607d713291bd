"""Small Minari datasets for tests, written directly (no training): uniform random play of Pendulum and
CartPole, and a damaged one."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np

PENDULUM, CARTPOLE, DISCRETE_ON_BOX = "test/pendulum/random-v0", "test/cartpole/random-v0", "test/pendulum/discrete-v0"
# CartPole played by a hand-written balancer (push toward where the pole falls) that takes a random action
# 40% of the time: a behaviour policy of about 260 (the balancer alone holds 500), to learn from
SCRIPTED = "test/cartpole/scripted-v0"
# Pendulum swung up and held by a hand-written controller that applies a random torque half the time: a
# behaviour policy of about -450 (the controller alone about -140), to learn continuous control from
SWING_UP = "test/pendulum/swing-up-v0"


def balancer(obs: np.ndarray) -> int:
    return int(obs[2] + 0.5 * obs[3] > 0)  # the pole's angle and angular velocity


def swing_up(obs: np.ndarray) -> np.ndarray:
    """Pendulum-v1's torque (theta = 0 upright, theta'' = 15 sin theta + 3 u): near the top a PD law holds
    it; elsewhere full torque along the swing pumps the energy 0.5 theta'^2 + 15 cos theta toward the
    upright's, 15."""
    cos, sin, speed = obs
    if cos > 0.9:
        torque = -(10 * np.arctan2(sin, cos) + 2 * speed)
    else:
        torque = 2 * np.sign(speed) * np.sign(15 - (0.5 * speed**2 + 15 * cos))
    return np.clip([torque], -2, 2).astype(np.float32)


def random_episodes(
    env_id: str, episodes: int, seed: int = 0, discrete_actions: int | None = None, policy=None, epsilon: float = 1.0
) -> list:
    """Episodes of uniform random actions (recorded as random ``discrete_actions`` where given), or of
    ``policy`` taking a random action with probability ``epsilon``."""
    from minari.data_collector import EpisodeBuffer

    env, rng = gym.make(env_id), np.random.default_rng(seed)
    env.action_space.seed(seed)
    buffers = []
    for i in range(episodes):
        obs, _ = env.reset(seed=seed + i)
        steps: dict[str, list] = {
            "observations": [obs],
            "actions": [],
            "rewards": [],
            "terminations": [],
            "truncations": [],
        }
        done = False
        while not done:
            action = policy(obs) if policy is not None and rng.random() >= epsilon else env.action_space.sample()
            obs, reward, terminated, truncated, _ = env.step(action)
            recorded = int(rng.integers(discrete_actions)) if discrete_actions else action
            for key, value in zip(steps, (obs, recorded, reward, terminated, truncated), strict=True):
                steps[key].append(value)
            done = terminated or truncated
        buffers.append(EpisodeBuffer(id=i, **{k: np.asarray(v) for k, v in steps.items()}, infos={}))
    return buffers


def write_datasets() -> None:
    """The datasets above, under the MINARI_DATASETS_PATH set now."""
    import minari

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        minari.create_dataset_from_buffers(
            PENDULUM, random_episodes("Pendulum-v1", 5), env="Pendulum-v1", data_format="hdf5"
        )
        minari.create_dataset_from_buffers(  # references: about a random policy's return, and the most there is
            CARTPOLE,
            random_episodes("CartPole-v1", 20),
            env="CartPole-v1",
            data_format="hdf5",
            ref_min_score=20.0,
            ref_max_score=500.0,
        )
        scripted = random_episodes("CartPole-v1", 30, policy=balancer, epsilon=0.4)
        minari.create_dataset_from_buffers(SCRIPTED, scripted, env="CartPole-v1", data_format="hdf5")
        swung = random_episodes("Pendulum-v1", 20, policy=swing_up, epsilon=0.5)
        minari.create_dataset_from_buffers(SWING_UP, swung, env="Pendulum-v1", data_format="hdf5")
        minari.create_dataset_from_buffers(
            DISCRETE_ON_BOX,
            random_episodes("Pendulum-v1", 2, discrete_actions=3),
            observation_space=gym.spaces.Box(-np.inf, np.inf, (3,), np.float32),
            action_space=gym.spaces.Discrete(3),
            data_format="hdf5",
        )
