import numpy as np
import pytest
import torch

from rlfw.batch import Batch, standardized
from rlfw.errors import ConfigError
from rlfw.network.head.contract import NetworkHead
from rlfw.replay.columns import rows
from rlfw.replay.rollout import Rollout


class ConstantValue(NetworkHead):
    def __init__(self):
        super().__init__()
        self.unused = torch.nn.Parameter(torch.zeros(1))  # rollout reads the device from the parameters

    def forward(self, obs):
        return {"value": torch.full(obs.shape[:1], 2.0)}


def fill(r: Rollout, num_envs: int, steps: int):
    for t in range(steps):
        r.add(
            {
                "obs": np.full((num_envs, 1), t, dtype=np.float32),
                "action": np.zeros(num_envs, dtype=np.int64),
                "reward": np.ones(num_envs, dtype=np.float32),
                "next_obs": np.zeros((num_envs, 1), dtype=np.float32),
                "terminated": np.zeros(num_envs, dtype=bool),
                "truncated": np.full(num_envs, t == steps - 1),
                "logp": np.zeros(num_envs, dtype=np.float32),
                "value": np.zeros(num_envs, dtype=np.float32),
            }
        )


def test_epochs_times_minibatches_cover_the_rollout_each_epoch():
    r = Rollout(
        total_env_steps=10_000, num_envs=2, gamma=0.9, num_steps=8, epochs=3, minibatches=4, normalize_advantage=False
    )
    fill(r, 2, 8)
    assert r.ready()
    batches = list(r.batches(ConstantValue()))
    assert len(batches) == 12 and all(len(b.obs) == 4 for b in batches)
    for epoch in range(3):
        seen = torch.cat([b.obs for b in batches[4 * epoch : 4 * epoch + 4]]).flatten().sort().values
        torch.testing.assert_close(seen, torch.arange(8.0).repeat_interleave(2))
    assert not r.ready()  # consumed: the next rollout starts empty


def test_last_step_bootstraps_from_the_critic():
    r = Rollout(
        total_env_steps=10_000,
        num_envs=1,
        gamma=0.5,
        num_steps=1,
        epochs=1,
        minibatches=1,
        gae_lambda=1.0,
        normalize_advantage=False,
    )
    fill(r, 1, 1)
    (b,) = r.batches(ConstantValue())
    torch.testing.assert_close(b.advantage, torch.tensor([1.0 + 0.5 * 2.0]))  # truncated: r + gamma V(final obs)
    torch.testing.assert_close(b.returns, b.advantage + b.value)


def test_feedback_can_stop_the_remaining_epochs():
    r = Rollout(total_env_steps=10_000, num_envs=1, gamma=0.9, num_steps=4, epochs=5, minibatches=2)
    fill(r, 1, 4)
    seen = 0
    for b in r.batches(ConstantValue()):
        seen += 1
        b.signal("stop_epochs", torch.tensor(seen == 3))
        r.feedback(b)
    assert seen == 3


def test_minibatches_must_divide_the_rollout():
    with pytest.raises(ConfigError, match=r"replay.minibatches=3"):
        Rollout(total_env_steps=10_000, num_envs=2, gamma=0.9, num_steps=4, minibatches=3)


@pytest.mark.parametrize("head", ["actor_critic", "recurrent_actor_critic"])
def test_bootstraps_from_the_critic_on_every_next_obs(head):
    # Rollout keeps no next_obs: V(next_obs) is the next step's value, or one forward over the final
    # observations and the last step's next_obs. It must equal the critic on every next_obs (a recurrent
    # critic's with its state after the step). A feed-forward actor-critic acts with its actor alone and
    # the rollout computes every V(s) in one forward: equal, up to float rounding, to the per-step values
    # a forward at each vector step gives.
    from rlfw.config.build import build_parts
    from rlfw.replay.gae import gae
    from rlfw.replay.steps import StepStore
    from tests.helpers import Both, collector, config

    cfg = config(
        "algo=ppo",
        f"network/head={head}",
        "env=gym",
        "env.id=CartPole-v1",
        "+env.kwargs.max_episode_steps=16",  # truncations bootstrap
        "replay.num_steps=64",
        "replay.epochs=1",
        "replay.minibatches=1",
        "replay.normalize_advantage=false",
    )
    parts = build_parts(cfg)
    naive = StepStore(64, 8)
    collector(parts.env.make(8), parts.net, parts.explore, Both(naive, parts.replay), parts.env.spec).collect(64)
    d = naive.data
    assert (
        int(d["terminated"].sum()) >= 5 and int(d["truncated"].sum()) >= 5
    )  # episode ends of both kinds (about 12 and 20)
    with torch.no_grad():
        if head == "actor_critic":
            assert "value" not in d  # acting ran the actor alone
            d["value"] = torch.stack([parts.net(d["obs"][t])["value"] for t in range(64)])  # one vector step each
            next_value = parts.net(d["next_obs"].flatten(0, 1))["value"].view(64, 8)
        else:
            go_on = torch.zeros(64 * 8, dtype=torch.bool)
            next_value = parts.net(d["next_obs"].flatten(0, 1), d["next_state"].flatten(0, 1), go_on)["value"]
            next_value = next_value.view(64, 8)
    advantage = gae(
        d["reward"], d["value"], next_value, d["terminated"], d["truncated"], cfg["gamma"], cfg["replay"]["gae_lambda"]
    )
    torch.manual_seed(5)
    order = torch.randperm(64 * 8 if head == "actor_critic" else 8)
    torch.manual_seed(5)
    (batch,) = parts.replay.batches(parts.net)
    if head == "actor_critic":
        torch.testing.assert_close(batch.value, d["value"].flatten()[order], rtol=1e-6, atol=1e-6)
        torch.testing.assert_close(batch.advantage, advantage.flatten()[order], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(batch.obs, d["obs"].flatten(0, 1)[order])
    else:  # whole columns, time-major, with the state each began the rollout in
        torch.testing.assert_close(batch.advantage, advantage[:, order].flatten(), rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(batch.obs, d["obs"][:, order].flatten(0, 1))
        torch.testing.assert_close(batch.state, d["state"][0, order])
        assert torch.equal(batch.episode_start, d["episode_start"][:, order]) and batch.episode_start[0].all()


def test_column_minibatches_cover_every_column_once_per_epoch():
    r = Rollout(total_env_steps=10_000, num_envs=4, gamma=0.9, num_steps=3, epochs=2, minibatches=2)
    for t in range(3):
        r.add(
            {
                "obs": np.tile(np.arange(4, dtype=np.float32)[:, None], (1, 1)) + 10 * t,
                "action": np.zeros(4, dtype=np.int64),
                "reward": np.ones(4, dtype=np.float32),
                "next_obs": np.zeros((4, 1), dtype=np.float32),
                "terminated": np.zeros(4, dtype=bool),
                "truncated": np.zeros(4, dtype=bool),
                "logp": np.zeros(4, dtype=np.float32),
                "value": np.zeros(4, dtype=np.float32),
                "state": np.arange(4, dtype=np.float32).reshape(4, 1, 1) + 100 * t,
                "next_state": np.zeros((4, 1, 1), dtype=np.float32),
                "episode_start": np.full(4, t == 0),
            }
        )
    batches = list(r.batches(RecurrentStub()))
    assert len(batches) == 4
    for epoch in (batches[:2], batches[2:]):
        columns = torch.cat([b.state.flatten() for b in epoch])  # each column's state before the rollout
        assert sorted(columns.tolist()) == [0.0, 1.0, 2.0, 3.0]
    for b in batches:
        assert b.obs.shape == (3 * 2, 1) and b.episode_start.shape == (3, 2)
        torch.testing.assert_close(b.obs.view(3, 2), b.state.view(1, 2) + 10 * torch.arange(3.0)[:, None])


class RecurrentStub(torch.nn.Module):
    recurrent = True

    def __init__(self):
        super().__init__()
        self.unused = torch.nn.Parameter(torch.zeros(1))

    def forward(self, obs, state, episode_start):
        return {"value": torch.zeros(len(obs))}


def test_a_recurrent_rollout_resumes_with_its_states():
    r = Rollout(total_env_steps=10_000, num_envs=2, gamma=0.9, num_steps=2, epochs=1, minibatches=1)
    step = {
        "obs": np.zeros((2, 1), dtype=np.float32),
        "action": np.zeros(2, dtype=np.int64),
        "reward": np.ones(2, dtype=np.float32),
        "next_obs": np.ones((2, 1), dtype=np.float32),
        "terminated": np.array([True, False]),
        "truncated": np.zeros(2, dtype=bool),
        "logp": np.zeros(2, dtype=np.float32),
        "value": np.zeros(2, dtype=np.float32),
        "state": np.full((2, 1, 1), 7.0, dtype=np.float32),
        "next_state": np.full((2, 1, 1), 8.0, dtype=np.float32),
        "episode_start": np.ones(2, dtype=bool),
    }
    r.add(step)
    again = Rollout(total_env_steps=10_000, num_envs=2, gamma=0.9, num_steps=2, epochs=1, minibatches=1)
    again.load_state_dict(r.state_dict())
    for rollout in (r, again):
        rollout.add(step)
    torch.manual_seed(0)
    first = list(r.batches(RecurrentStub()))
    torch.manual_seed(0)
    second = list(again.batches(RecurrentStub()))
    assert [sorted(b) for b in first] == [sorted(b) for b in second]
    for a, b in zip(first, second, strict=True):
        for key in a:
            assert torch.equal(a[key], b[key])


def test_advantages_are_standardized_over_the_rows_that_chose():
    x = torch.tensor([1.0, 2.0, 3.0, 100.0])
    chose = torch.tensor([1.0, 1.0, 1.0, 0.0])
    torch.testing.assert_close(standardized(x, chose)[:3], standardized(x[:3], None))
    torch.testing.assert_close(standardized(x, torch.ones(4)), standardized(x, None))


@pytest.mark.parametrize("weighted", [False, True])
def test_each_minibatch_s_advantages_are_standardized_over_it_alone(weighted):
    """An epoch's minibatches are cut from one gather, their advantages standardized all at once: the
    same as gathering and standardizing each minibatch on its own."""
    torch.manual_seed(0)
    data = Batch(obs=torch.arange(12.0).unsqueeze(1), advantage=5 * torch.randn(12) + 3)
    if weighted:
        data["acting"] = torch.tensor([True, True, False, True] * 3)
    order = torch.randperm(12)
    for batch, picked in zip(rows(data, order, 3, normalize_advantage=True), order.split(4), strict=True):
        assert torch.equal(batch.obs, data.obs[picked])
        weight = data.acting[picked].float() if weighted else None
        torch.testing.assert_close(batch.advantage, standardized(data.advantage[picked], weight))
