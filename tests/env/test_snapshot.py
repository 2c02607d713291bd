"""A vector env's snapshot, through torch.save and a weights_only load, resumes its episodes exactly."""

from __future__ import annotations

import io

import gymnasium as gym
import numpy as np
import pytest
import torch

from rlfw.env.catch import Catch
from rlfw.env.gym import GymEnv
from rlfw.env.snapshot import NotRestorable, restore, snapshot


def cartpole(n: int) -> gym.vector.VectorEnv:
    return gym.make_vec(
        "CartPole-v1",
        num_envs=n,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
    )


def acrobot(n: int) -> gym.vector.VectorEnv:
    return gym.make_vec(
        "Acrobot-v1",
        num_envs=n,
        vectorization_mode="sync",
        vector_kwargs={"autoreset_mode": gym.vector.AutoresetMode.SAME_STEP},
    )


def through_a_file(state: dict) -> dict:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)


def taxi(n: int) -> gym.vector.VectorEnv:
    """Masks in info, a Discrete observation, and a text array (its map) among its attributes."""
    return GymEnv("Taxi-v4").make(n)


@pytest.mark.parametrize(
    "make", [cartpole, acrobot, lambda n: Catch().make(n), taxi], ids=["cartpole", "acrobot", "catch", "taxi"]
)
def test_a_restored_env_steps_exactly_as_the_original(make):
    rng = np.random.default_rng(0)
    original = make(3)
    original.reset(seed=1)
    for _ in range(40):
        original.step(rng.integers(2, size=3))
    copy = make(3)
    copy.reset(seed=99)  # other episodes: everything must come from the snapshot
    restore(copy, through_a_file(snapshot(original)))
    for _ in range(800):  # through many episode ends (and their resets, from each env's own generator)
        action = rng.integers(2, size=3)
        stepped, again = original.step(action), copy.step(action)
        for a, b in zip(stepped[:4], again[:4], strict=True):
            assert np.array_equal(a, b)
        assert np.array_equal(stepped[4].get("action_mask"), again[4].get("action_mask"))  # Taxi's


def test_an_emulator_is_not_restorable_and_says_which():
    ale_py = pytest.importorskip("ale_py")
    gym.register_envs(ale_py)
    envs = gym.make_vec("ALE/Pong-v5", num_envs=1, vectorization_mode="sync")
    with pytest.raises(NotRestorable, match="ALEInterface"):
        snapshot(envs)
    envs.close()
