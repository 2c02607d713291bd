"""The recurrent actor-critic head: its state carries the episode so far, an episode start forgets it,
and the learner's unroll gives what acting step by step gave (rlfw.testing.check_memory)."""

import gymnasium as gym
import numpy as np
import pytest
import torch

from rlfw import testing
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError
from rlfw.network import build_network
from tests.helpers import spec

MLP = {"name": "mlp", "hidden": [16], "activation": "relu"}


def recurrent(space_spec: EnvSpec | None = None, **head) -> torch.nn.Module:
    torch.manual_seed(0)
    head = {"name": "recurrent_actor_critic", **head}
    return build_network({"encoder": MLP, "head": head}, space_spec or spec(2, 2))


@pytest.mark.parametrize(
    "cell, shared, slots", [("lstm", False, 4), ("lstm", True, 2), ("gru", False, 2), ("gru", True, 1)]
)
def test_the_state_holds_each_trunks_cell_state(cell, shared, slots):
    net = recurrent(cell=cell, shared=shared, hidden=8)
    assert net.initial_state(3).shape == (3, slots, 8) and not net.initial_state(3).any()
    testing.check_head("recurrent_actor_critic", cell=cell, shared=shared)  # unroll == steps, outputs declared


@pytest.mark.parametrize(
    "space",
    [gym.spaces.Discrete(3), gym.spaces.MultiDiscrete([2, 3]), gym.spaces.Box(-1.0, 1.0, (2,))],
    ids=["Discrete", "MultiDiscrete", "Box"],
)
def test_acts_in_every_space_the_feed_forward_head_takes(space):
    space_spec = EnvSpec("Memory-v0", (2,), space, None, np.dtype(np.float32), 2)
    net = recurrent(space_spec)
    out = net(torch.randn(5, 2), net.initial_state(5), torch.ones(5, dtype=torch.bool))
    sampled, greedy = net.distribution(out).sample(), net.mode(out)  # a Gaussian's samples are clipped by the env
    assert out["value"].shape == (5,) and out["state"].shape == net.initial_state(5).shape
    assert sampled.shape == greedy.shape and all(space.contains(a) for a in greedy.detach().numpy().astype(space.dtype))


def test_what_came_before_changes_the_outputs_and_an_episode_start_forgets_it():
    net = recurrent()
    obs, start, go_on = torch.randn(4, 2), torch.ones(4, dtype=torch.bool), torch.zeros(4, dtype=torch.bool)
    fresh = net(obs, net.initial_state(4), start)
    remembered = net(torch.randn(4, 2), net.initial_state(4), start)["state"]
    after_history = net(obs, remembered, go_on)
    assert not torch.allclose(after_history["logits"], fresh["logits"])  # the same observation, another memory
    restarted = net(obs, remembered, start)  # the state is zeroed where an episode starts
    torch.testing.assert_close(restarted["logits"], fresh["logits"])
    torch.testing.assert_close(restarted["state"], fresh["state"])


def test_unroll_trains_through_time():
    net = recurrent()
    obs = torch.randn(6 * 3, 2)
    out = net.unroll(obs, net.initial_state(3), torch.zeros(6, 3, dtype=torch.bool))
    out["value"][-3:].sum().backward()  # the last step's value depends on the first step's input weights' use
    assert net.trunks[-1].cell.weight_hh_l0.grad.abs().sum() > 0


@pytest.mark.parametrize(
    "values, message",
    [
        ({"cell": "transformer"}, "network.head.cell='transformer': one of lstm, gru"),
        ({"hidden": 0}, "network.head.hidden=0: must be >= 1"),
    ],
)
def test_bad_values_are_refused_in_one_line(values, message):
    with pytest.raises(ConfigError, match=message):
        recurrent(**values)
