"""``replay=mixed``: the dataset and the run's own steps in each batch, as one pool or in a fixed share."""

import numpy as np
import pytest
import torch

from rlfw.dataset.read import Transitions
from rlfw.errors import ConfigError
from rlfw.registry import build
from rlfw.testing import SPEC, field

DATASET_REWARD = 7.0  # every dataset transition's reward; the run's own steps have reward 0


def mixed(dataset_rows: int, own_vector_steps: int, **values):
    """A mixed replay on ``dataset_rows`` dataset transitions, after ``own_vector_steps`` steps of 2 envs."""
    names = ("obs", "action", "reward", "next_obs", "terminated", "truncated")
    arrays = {f: field(f, dataset_rows).numpy() for f in names}
    arrays["reward"] = np.full(dataset_rows, DATASET_REWARD, dtype=np.float32)
    data = Transitions(**arrays, ref_min_score=None, ref_max_score=None)
    run = {"spec": SPEC, "num_envs": 2, "gamma": 0.99, "total_env_steps": 10_000, "data": data}
    replay = build("replay", {"name": "mixed", **values}, "replay", **run)
    for _ in range(own_vector_steps):
        step = {f: field(f, 2).numpy() for f in names}
        step["reward"] = np.zeros(2, dtype=np.float32)
        replay.add(step)
    return replay


def share_from_dataset(replay, batches: int = 1) -> float:
    rewards = torch.cat([replay.sample().reward for _ in range(batches)])
    return float((rewards == DATASET_REWARD).float().mean())


def test_a_share_of_each_batch_comes_from_the_dataset():
    replay = mixed(300, 50, data_share=0.25, batch_size=8)
    assert replay.ready()
    assert share_from_dataset(replay) == 0.25  # 2 of 8 rows, in every batch
    assert share_from_dataset(mixed(300, 50, data_share=0.0, batch_size=8)) == 0.0
    assert share_from_dataset(mixed(300, 50, data_share=1.0, batch_size=8)) == 1.0


def test_one_pool_draws_the_dataset_as_often_as_its_share_of_all_transitions():
    torch.manual_seed(0)
    replay = mixed(300, 50, batch_size=256)  # 300 dataset transitions, 100 of the run's own
    assert share_from_dataset(replay, batches=40) == pytest.approx(0.75, abs=0.02)


def test_updates_start_with_the_first_step_of_the_run_and_bad_shares_are_refused():
    assert not mixed(300, 0).ready() and mixed(300, 1).ready()  # the dataset fills batches from the start
    with pytest.raises(ConfigError, match=r"replay.data_share=1.5: the share of each batch drawn from the dataset"):
        mixed(300, 0, data_share=1.5)
