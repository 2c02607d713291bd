"""The actor-critic head in each action space: its distribution's log-prob and entropy are the sums
over action dimensions, its mode is the greedy action, and PPO's loss on a Gaussian policy is the
textbook formula."""

import math

import gymnasium as gym
import numpy as np
import pytest
import torch

from rlfw.env.spec import EnvSpec
from rlfw.errors import ConfigError
from rlfw.network import build_network
from rlfw.network.head.formulas import Categorical
from rlfw.registry import build

MLP = {"name": "mlp", "hidden": [16, 16]}


def head(space: gym.Space, **values) -> torch.nn.Module:
    return build_network({"encoder": MLP, "head": {"name": "actor_critic", **values}}, EnvSpec("T", (3,), space, None))


def test_gaussian_log_prob_and_entropy_are_sums_over_action_dimensions():
    net = head(gym.spaces.Box(-1, 1, (2,)), log_std_init=-0.5)
    out = net(torch.randn(5, 3))
    pi, action = net.distribution(out), torch.randn(5, 2)
    std = math.exp(-0.5)
    by_hand = (-0.5 * ((action - out["mean"]) / std) ** 2 - math.log(std) - 0.5 * math.log(2 * math.pi)).sum(1)
    torch.testing.assert_close(pi.log_prob(action), by_hand)
    torch.testing.assert_close(pi.entropy(), torch.full((5,), 2 * (0.5 + 0.5 * math.log(2 * math.pi) + math.log(std))))
    assert torch.equal(net.mode(out), out["mean"]) and pi.sample().shape == (5, 2)
    assert torch.equal(out["log_std"], torch.full((5, 2), -0.5))  # one learned vector, whatever the state


@pytest.mark.parametrize("shape", [(6,), (64, 6), (3, 5, 4)])
def test_categorical_gives_torchs_values_and_gradients(shape):
    logits = torch.randn(shape, requires_grad=True)
    ours, torchs = Categorical(logits), torch.distributions.Categorical(logits=logits)
    action = torchs.sample()
    terms = [(ours.log_prob(action), torchs.log_prob(action)), (ours.entropy(), torchs.entropy())]
    for mine, want in terms:
        torch.testing.assert_close(mine, want)
        grads = [torch.autograd.grad(t.sum(), logits, retain_graph=True)[0] for t in (mine, want)]
        torch.testing.assert_close(*grads)
    torch.testing.assert_close(ours.logits.exp(), torchs.probs)
    assert ours.sample().shape == action.shape and torch.equal(ours.mode, torchs.mode)


def test_categorical_entropy_counts_an_impossible_action_as_zero():
    logits = torch.tensor([[0.0, 1.0, -math.inf]])
    entropy = Categorical(logits).entropy()
    assert torch.isfinite(entropy).all()
    torch.testing.assert_close(entropy, torch.distributions.Categorical(logits=logits).entropy())


def test_multi_discrete_is_independent_categoricals():
    net = head(gym.spaces.MultiDiscrete([3, 2]))
    out = net(torch.randn(4, 3))
    pi = net.distribution(out)
    action = pi.sample()
    assert action.shape == (4, 2) and bool((action[:, 0] < 3).all() and (action[:, 1] < 2).all())
    first, second = out["logits"][:, :3], out["logits"][:, 3:]
    want = first.log_softmax(1).gather(1, action[:, :1]).squeeze(1) + second.log_softmax(1).gather(
        1, action[:, 1:]
    ).squeeze(1)
    torch.testing.assert_close(pi.log_prob(action), want)
    assert torch.equal(net.mode(out), torch.stack([first.argmax(1), second.argmax(1)], 1))


def test_the_value_and_policy_trunks_start_as_cleanrls():
    net = head(gym.spaces.Box(-1, 1, (2,)))
    policy, value = net.actor[-1].linear, net.critic[-1]
    assert policy.weight.abs().max() < 0.05 and value.bias.abs().max() == 0  # gains 0.01 and 1, zero biases
    assert torch.equal(net.actor[-1].log_std, torch.zeros(2))


@pytest.mark.parametrize(
    "space, message",
    [
        (gym.spaces.Box(-np.inf, np.inf, (2,)), "a flat Box action space with finite bounds"),
        (gym.spaces.MultiBinary(3), "acts in Discrete, MultiDiscrete, Box action spaces"),
        (gym.spaces.Dict({"a": gym.spaces.Discrete(2)}), "acts in Discrete, MultiDiscrete, Box action spaces"),
    ],
)
def test_action_spaces_it_cannot_act_in_are_refused_by_name(space, message):
    with pytest.raises(ConfigError, match=message):
        head(space)


def test_ppo_on_a_gaussian_policy_is_the_clipped_surrogate_by_hand():
    net = head(gym.spaces.Box(-1, 1, (2,)))
    obs, action = torch.randn(6, 3), torch.randn(6, 2)
    with torch.no_grad():
        old = net.distribution(net(obs)).log_prob(action) + 0.3 * torch.randn(6)
    advantage, returns = torch.randn(6), torch.randn(6)
    batch = dict(obs=obs, action=action, logp=old, value=torch.zeros(6), advantage=advantage, returns=returns)
    out = build("loss", {"name": "ppo", "clip": 0.2}, "loss")(
        type("B", (dict,), {"__getattr__": dict.__getitem__})(batch), net
    )
    new_out = net(obs)
    mean, std = new_out["mean"], new_out["log_std"].exp()
    logp = (-0.5 * ((action - mean) / std) ** 2 - std.log() - 0.5 * math.log(2 * math.pi)).sum(1)
    ratio = (logp - old).exp()
    surrogate = torch.min(ratio * advantage, ratio.clamp(0.8, 1.2) * advantage)
    torch.testing.assert_close(out["loss_policy"], -surrogate.mean())


def test_the_gaussian_formulas_give_torchs_values_and_gradients():
    from rlfw.network.head.formulas import Gaussian

    mean, log_std = torch.randn(7, 3, requires_grad=True), torch.randn(3, requires_grad=True)
    ours, torchs = Gaussian(mean, log_std), torch.distributions.Normal(mean, log_std.exp())
    torch.manual_seed(0)
    action, logp = ours.sample_with_log_prob()
    torch.manual_seed(0)
    assert torch.allclose(action, mean + log_std.exp() * torch.randn(7, 3))  # from torch's one stream
    for mine, want in ((logp, torchs.log_prob(action).sum(-1)), (ours.entropy(), torchs.entropy().sum(-1))):
        torch.testing.assert_close(mine, want)
        grads = [
            torch.autograd.grad(t.sum(), (mean, log_std), retain_graph=True, materialize_grads=True)
            for t in (mine, want)
        ]
        for g, h in zip(*grads, strict=True):
            torch.testing.assert_close(g, h)
    torch.testing.assert_close(ours.log_prob(action), logp)
