import dataclasses

import gymnasium as gym
import pytest
import torch

from rlfw.env.packed import layout
from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError
from rlfw.network import build_network
from tests.helpers import spec

MLP = {"name": "mlp", "hidden": [16, 16], "activation": "relu"}


def test_q_head_outputs_one_value_per_action():
    net = build_network({"encoder": MLP, "head": {"name": "q"}}, spec(4, 3))
    assert net(torch.randn(5, 4))["q"].shape == (5, 3)
    assert set(dict(net.named_children())) == {"encoder", "q"}


def test_dueling_advantages_are_centred():
    net = build_network({"encoder": MLP, "head": {"name": "dueling_q"}}, spec(4, 3))
    obs = torch.randn(5, 4)
    q = net(obs)["q"]
    value = net.value(net.encoder(obs))
    torch.testing.assert_close(q.mean(dim=1, keepdim=True), value)


@pytest.mark.parametrize("shared, parts", [(True, {"encoder", "actor", "critic"}), (False, {"actor", "critic"})])
def test_actor_critic_shared_or_separate_trunks(shared, parts):
    net = build_network({"encoder": MLP, "head": {"name": "actor_critic", "shared": shared}}, spec(4, 2))
    out = net(torch.randn(7, 4))
    assert out["logits"].shape == (7, 2) and out["value"].shape == (7,)
    assert set(dict(net.named_children())) == parts
    actor_params = {id(p) for p in net.actor.parameters()}
    critic_params = {id(p) for p in net.critic.parameters()}
    assert not (actor_params & critic_params)  # with a shared trunk the trunk is `encoder`, in neither head
    if not shared:
        assert len(actor_params) == len(critic_params) == 6  # each its own 2-layer trunk + output layer


def test_critic_input_state_gives_the_global_state_to_the_critic_alone():
    space = gym.spaces.Dict({"obs": gym.spaces.Box(-1, 1, (3,)), "state": gym.spaces.Box(-1, 1, (5,))})
    agents = dataclasses.replace(spec(8, 2), parts=layout(space)[0])
    net = build_network({"encoder": MLP, "head": {"name": "actor_critic", "critic_input": "state"}}, agents)
    obs = torch.randn(6, 8)
    other_state = torch.cat([obs[:, :3], torch.randn(6, 5)], 1)
    a, b = net(obs), net(other_state)
    torch.testing.assert_close(a["logits"], b["logits"])  # the actor reads the agent's 3 numbers only
    assert not torch.allclose(a["value"], b["value"])


@pytest.mark.parametrize(
    "head, obs, match",
    [
        ({"critic_input": "state"}, spec(4, 2), r"critic_input='state': reads a global state, and Test-v0's"),
        ({"critic_input": "both"}, spec(4, 2), r"critic_input='both': obs or state"),
    ],
)
def test_critic_input_needs_a_state_key(head, obs, match):
    with pytest.raises(ConfigError, match=match):
        build_network({"encoder": MLP, "head": {"name": "actor_critic", **head}}, obs)


def test_continuous_action_space_is_refused_with_the_env_named():
    box = EnvSpec("Pendulum-v1", (3,), gym.spaces.Box(-2, 2, (1,)), None)
    with pytest.raises(ConfigError, match=r"env.id='Pendulum-v1'.*needs a Discrete action space"):
        build_network({"encoder": MLP, "head": {"name": "q"}}, box)
