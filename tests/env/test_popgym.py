"""POPGym (``env=popgym env.task=...``): its tasks as rlfw envs, suits one-hot, with one-line errors
for an unknown task or a missing package."""

import importlib.util

import gymnasium as gym
import numpy as np
import pytest

from rlfw.config.folders import env_folder
from rlfw.env.popgym import PopGym, tasks
from rlfw.errors import ConfigError


def test_a_suit_enters_one_hot_as_float32():
    env = PopGym("RepeatPreviousEasy")
    assert env.spec.obs_shape == (4,) and env.spec.obs_dtype == np.float32 and env.spec.num_actions == 4
    envs = env.make(3)
    obs, _ = envs.reset(seed=0)
    assert obs.dtype == np.float32 and (obs.sum(axis=1) == 1).all() and set(np.unique(obs)) == {0.0, 1.0}
    ended = np.zeros(3, dtype=bool)
    for _ in range(60):  # past an episode's end (51 steps): same-step autoreset gives the next one's first card
        obs, reward, terminated, _, _ = envs.step(envs.action_space.sample())
        assert (obs.sum(axis=1) == 1).all() and (np.abs(reward) <= 1 / 48 + 1e-9).all()
        ended |= terminated
    assert ended.all()
    envs.close()


@pytest.mark.filterwarnings("ignore:.*share an object.*")  # gymnasium's checker, of CountRecall's info dicts
def test_every_task_builds_and_steps_with_float32_observations():
    """All of popgym's tasks (cards, grids, boards, CartPole and Pendulum), so a new popgym release that
    adds an observation the wrapper cannot flatten fails here, not in a user's run."""
    for task in tasks():
        env = PopGym(task)
        envs = env.make(2)
        obs, _ = envs.reset(seed=0)
        obs, *_ = envs.step(envs.action_space.sample())
        assert obs.dtype == np.float32 and obs.shape == (2, *env.spec.obs_shape), task
        envs.close()


def test_a_box_task_keeps_its_observations():
    env = PopGym("PositionOnlyCartPoleEasy")
    assert env.spec.obs_shape == (2,) and env.spec.num_actions == 2
    raw = gym.make("popgym-PositionOnlyCartPoleEasy-v0").reset(seed=0)[0]
    assert np.array_equal(env.make(1).reset(seed=0)[0][0], raw)  # the cart's position and the pole's angle


def test_an_unknown_task_is_named_with_a_near_miss():
    with pytest.raises(
        ConfigError,
        match=r"^env.task='RepeatPrevEasy': not a POPGym task \(did you mean RepeatPreviousEasy\?\); one of ",
    ):
        PopGym("RepeatPrevEasy")


def test_without_the_package_the_error_says_which_extra(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "popgym" else real(name, *a))
    with pytest.raises(ConfigError, match=r"^env='popgym': POPGym is not installed: pip install 'rlfw\[popgym\]'$"):
        PopGym("RepeatPreviousEasy")


def test_run_folders_are_named_by_the_task():
    assert env_folder("popgym", {"task": "CountRecallHard"}) == "popgym-CountRecallHard"
