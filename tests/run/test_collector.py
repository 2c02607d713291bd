"""The collector's state: what a checkpoint keeps of it, and resuming with envs that cannot be saved."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch

from rlfw.env.atari import AtariEnv
from rlfw.explore.epsilon_greedy import EpsilonGreedy
from rlfw.network import build_network
from rlfw.registry import build
from tests.helpers import collector as make


def through_a_file(state: dict) -> dict:
    buffer = io.BytesIO()
    torch.save(state, buffer)
    buffer.seek(0)
    return torch.load(buffer, weights_only=True)


@pytest.mark.parametrize("backend", ["ale", "gymnasium"])
def test_atari_envs_cannot_be_saved_so_a_resume_starts_new_episodes_and_ends_the_stored_ones(backend):
    """The closest property to an exact resume that ALE allows: replay, counters and episode statistics
    come back; each env column's last stored step ends its episode (truncated), so no n-step window and
    no frame stack reaches from the old episodes into the new ones."""
    env = AtariEnv("pong", backend=backend, threads=1)
    run = {"spec": env.spec, "num_envs": 2, "gamma": 0.99, "total_env_steps": 10_000}
    replay = build("replay", {"name": "uniform", "capacity": 1000, "learning_starts": 50, "n_step": 3}, "replay", **run)
    explore = EpsilonGreedy(start=1.0, end=1.0)  # random actions: the network is never run
    collector = make(env.make(2), None, explore, replay, env.spec)
    collector.collect(120)
    state = through_a_file(collector.state_dict())
    assert state["envs"] is None and state["envs_unsaved"]  # why, in words: the warning a resume logs
    saved = through_a_file(replay.state_dict())

    resumed_replay = build(
        "replay", {"name": "uniform", "capacity": 1000, "learning_starts": 50, "n_step": 3}, "replay", **run
    )
    resumed_replay.load_state_dict(saved)
    resumed = make(env.make(2), None, explore, resumed_replay, env.spec, seed=7)
    resumed.load_state_dict(state)
    assert collector.clock.env_steps == 240  # the clock is the run's (a checkpoint's RunProgress), not the collector's
    assert list(resumed.recent_returns) == list(collector.recent_returns)
    store = resumed_replay.store
    assert store.data["truncated"][store.pos - 1].all() and store.episode_start.all()
    resumed.collect(10)  # the new episodes' stacks start from their own first frame
    batch = store.n_step(torch.tensor([store.pos - 10] * 2), torch.arange(2), 3, 0.99)
    if env.spec.stack_padding == "zeros":
        assert (batch.obs[:, :3] == 0).all()
    else:
        assert (batch.obs[:, :3] == batch.obs[:, 3:]).all()


def test_box_actions_enter_the_env_clipped_and_the_replay_keeps_them_as_sampled():
    env = build("env", {"name": "gym", "id": "Pendulum-v1"}, "env")
    net = build_network(
        {"encoder": {"name": "mlp", "hidden": [8]}, "head": {"name": "actor_critic", "log_std_init": 1.5}}, env.spec
    )
    envs, stepped, stored = env.make(4), [], []
    step = envs.step
    envs.step = lambda action: (stepped.append(action.copy()), step(action))[1]

    class Keep:
        def add(self, transition):
            stored.append(transition["action"].copy())

    make(envs, net, build("explore", {"name": "sample"}, "explore"), Keep(), env.spec).collect(50)
    sampled, entered = np.concatenate(stored), np.concatenate(stepped)
    assert np.abs(sampled).max() > 2  # std e^1.5: many samples fall outside [-2, 2]
    assert np.array_equal(entered, np.clip(sampled, -2, 2))


def test_prioritized_replay_anneals_beta_over_every_ranks_env_steps():
    """Under trainer.strategy=ddp each rank steps its own envs and keeps its own replay; the run's clock
    counts all ranks' env steps, so beta reaches 1 when the run ends, not at 0.7 (this rank's half)."""
    env = build("env", {"name": "gym", "id": "CartPole-v1"}, "env")
    run = {"spec": env.spec, "num_envs": 2, "gamma": 0.99, "total_env_steps": 400}
    replay = build("replay", {"name": "prioritized", "capacity": 1000, "learning_starts": 10}, "replay", **run)
    explore = EpsilonGreedy(start=1.0, end=1.0)
    collector = make(env.make(2), None, explore, replay, env.spec, world=2)
    replay.clock = collector.clock  # the run's one clock (RLModule hands it to the replay)
    collector.collect(1000, limit=400)  # this rank's 200 env steps, and the other rank's 200
    assert collector.clock.env_steps == 400
    assert replay.beta() == 1.0


def test_the_rows_of_agents_that_left_are_stored_not_acting_until_their_copy_s_episode_ends():
    pytest.importorskip("pettingzoo")
    given = {"name": "pettingzoo", "id": "tests.env.agents:Counters", "kwargs": {"leave": True, "masks": "none"}}
    env = build("env", {**given, "agents_leave": True}, "env")  # 3-step episodes; agent_1 leaves after 2
    net = build_network({"encoder": {"name": "mlp", "hidden": [8]}, "head": {"name": "actor_critic"}}, env.spec)
    stored: list[dict] = []

    class Keep:
        def add(self, step):
            stored.append(step)

    collector = make(env.make(2), net, build("explore", {"name": "sample"}, "explore"), Keep(), env.spec)
    collector.collect(9)
    idle = np.stack([~s["acting"] for s in stored])  # [steps, rows]: copy-major, agent_1 in rows 1 and 3
    assert idle.tolist() == [[False] * 4, [False] * 4, [False, True, False, True]] * 3
    assert all("mask" not in s and "next_mask" not in s for s in stored)  # the env has no masks: none invented
    assert len(collector.recent_returns) == 12  # each agent's episode counted once, agent_1's when it left
