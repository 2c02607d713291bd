import dataclasses

import numpy as np
import pytest
import torch

from rlfw.errors import ConfigError
from rlfw.replay.uniform import UniformReplay
from tests.helpers import spec

RUN = {"spec": spec(obs_dim=1), "total_env_steps": 10_000}  # what the run hands a replay


def step(i: int, num_envs: int = 1, terminated=False, truncated=False) -> dict:
    """One vector step as the collector hands it over: the envs' numpy arrays."""
    return {
        "obs": np.full((num_envs, 1), i, dtype=np.float32),
        "action": np.zeros(num_envs, dtype=np.int64),
        "reward": np.full(num_envs, i, dtype=np.float32),
        "next_obs": np.full((num_envs, 1), i + 1, dtype=np.float32),
        "terminated": np.full(num_envs, terminated),
        "truncated": np.full(num_envs, truncated),
    }


def test_n_step_return_equals_hand_computed_sum():
    r = UniformReplay(**RUN, num_envs=1, gamma=0.5, capacity=100, batch_size=1, learning_starts=0, n_step=3)
    for i in range(1, 6):
        r.add(step(i))
    b = r.store.n_step(torch.tensor([0]), torch.tensor([0]), 3, 0.5)  # rewards 1, 2, 3
    assert float(b.reward) == 1 + 0.5 * 2 + 0.25 * 3
    assert float(b.next_obs) == 4.0 and float(b.discount) == 0.125 and not bool(b.terminated)


def test_n_step_stops_at_episode_end():
    r = UniformReplay(**RUN, num_envs=1, gamma=0.5, capacity=100, batch_size=1, learning_starts=0, n_step=3)
    r.add(step(1))
    r.add(step(2, terminated=True))
    r.add(step(3))
    r.add(step(4))
    b = r.store.n_step(torch.tensor([0]), torch.tensor([0]), 3, 0.5)
    assert float(b.reward) == 1 + 0.5 * 2  # step 3 belongs to the next episode
    assert bool(b.terminated) and float(b.discount) == 0.25 and float(b.next_obs) == 3.0
    r2 = UniformReplay(**RUN, num_envs=1, gamma=0.5, capacity=100, batch_size=1, learning_starts=0, n_step=3)
    for s in (step(1), step(2, truncated=True), step(3), step(4)):
        r2.add(s)
    b = r2.store.n_step(torch.tensor([0]), torch.tensor([0]), 3, 0.5)
    assert not bool(b.terminated) and float(b.discount) == 0.25  # truncation: bootstrap from s_3


def test_ring_buffer_keeps_the_newest_and_samples_only_complete_windows():
    r = UniformReplay(**RUN, num_envs=2, gamma=0.9, capacity=10, batch_size=8, learning_starts=0, n_step=2)
    for i in range(12):
        r.add(step(i, num_envs=2))
    assert len(r) == (5 - 1) * 2  # 5 rows kept, the newest has no complete 2-step window yet
    obs = torch.cat([r.sample().obs for _ in range(20)]).flatten()
    assert set(obs.tolist()) == {7.0, 8.0, 9.0, 10.0}


def test_ready_waits_for_learning_starts():
    r = UniformReplay(**RUN, num_envs=1, gamma=0.9, capacity=100, batch_size=4, learning_starts=10)
    for i in range(9):
        r.add(step(i))
    assert not r.ready()
    r.add(step(9))
    assert r.ready()
    assert len(list(r.batches(None))) == 1


@pytest.mark.parametrize(
    "kwargs, key",
    [
        ({"batch_size": 200}, "replay.batch_size"),
        ({"capacity": -1}, "replay.capacity"),
        ({"n_step": 0}, "replay.n_step"),
    ],
)
def test_bad_sizes_name_the_key(kwargs, key):
    with pytest.raises(ConfigError, match=key):
        UniformReplay(**RUN, num_envs=1, gamma=0.9, **{"capacity": 100, **kwargs})


def test_one_step_fast_path_matches_the_general_gather():
    # Where a sample's first step ends its episode, the general n-step gather uses that one step only:
    # there the 1-step fast path and a 2-step gather must agree field by field.
    r = UniformReplay(**RUN, num_envs=3, gamma=0.9, capacity=30, batch_size=4, learning_starts=0)
    for i in range(12):
        r.add(step(i, num_envs=3, terminated=i % 4 == 3, truncated=i % 5 == 4))
    t, e = torch.randint(10, (200,)), torch.randint(3, (200,))
    fast, general = r.store.n_step(t, e, 1, 0.9), r.store.n_step(t, e, 2, 0.9)
    ended = r.store.data["terminated"][t, e] | r.store.data["truncated"][t, e]
    assert ended.any() and not ended.all()
    for key in ("obs", "action", "reward", "next_obs", "terminated", "discount"):
        torch.testing.assert_close(fast[key][ended], general[key][ended])
    torch.testing.assert_close(fast.discount, torch.full((200,), 0.9))
    torch.testing.assert_close(fast.reward, r.store.data["reward"][t, e])


def test_with_many_agents_each_sample_brings_every_agent_s_row_of_its_step():
    agents = {**RUN, "spec": dataclasses.replace(spec(obs_dim=1), agents=("a", "b", "c"))}
    r = UniformReplay(**agents, num_envs=6, gamma=0.9, capacity=60, batch_size=4, learning_starts=0)
    for i in range(5):
        s = step(i, num_envs=6)
        s["obs"] = (10 * i + np.arange(6, dtype=np.float32))[:, None]  # 10 * step + row
        r.add(s)
    obs = r.sample().obs.view(4, 3)  # 4 joint steps, 3 agents each
    step_of, row = obs // 10, obs % 10
    assert (step_of == step_of[:, :1]).all()  # the rows of one step
    assert ((row - row[:, :1]) == torch.tensor([0.0, 1.0, 2.0])).all() and (row[:, 0] % 3 == 0).all()  # one copy's
