"""The offline losses against their equations written out by hand on random batches (BC, TD3+BC, IQL,
CQL, discrete CQL), and each part's gradient its own."""

import math

import gymnasium as gym
import pytest
import torch

from rlfw.batch import Batch
from rlfw.env.spec import EnvSpec
from rlfw.network.head.squashed import SquashedNormal
from rlfw.registry import build
from tests.loss.test_off_policy import SPEC, B, batch, network, q_of

DISCRETE = EnvSpec("Discrete-v0", (3,), gym.spaces.Discrete(4), None)


def discrete_network(head: str) -> torch.nn.Module:
    from rlfw.network import build_network

    return build_network(
        {"encoder": {"name": "mlp", "hidden": [16], "activation": "relu"}, "head": {"name": head}}, DISCRETE
    )


def discrete_batch() -> Batch:
    b = batch()
    return Batch(**{**dict(b.items()), "action": torch.tensor([0, 3, 1, 2, 2, 0])})


def test_bc_is_the_negative_log_likelihood_of_the_data_s_actions_discrete_and_continuous():
    net, b = discrete_network("actor_critic"), discrete_batch()
    out = build("loss", {"name": "bc"}, "loss")(b, net, None)
    logits = net(b.obs)["logits"]
    torch.testing.assert_close(out["loss_bc"], -logits.log_softmax(1)[torch.arange(B), b.action].mean())
    net, b = network("squashed_gaussian"), batch()
    out = build("loss", {"name": "bc"}, "loss")(b, net, None)
    torch.testing.assert_close(out["loss_bc"], -net.distribution(net(b.obs)).log_prob(b.action).mean())


def test_td3_bc_s_actor_is_scaled_q_plus_the_distance_to_the_data_s_action():
    net, b = network("deterministic_actor"), batch()
    target = network("deterministic_actor").requires_grad_(False)
    loss = build("loss", {"name": "td3_bc", "alpha": 2.5, "policy_delay": 1}, "loss", spec=SPEC)
    out = loss(b, net, target)
    mu = net(b.obs)["action"]
    q = q_of(net.critic, 0, torch.cat([b.obs, mu], 1)).squeeze(1)
    lam = 2.5 / q.abs().mean()
    torch.testing.assert_close(out["loss_actor"], -lam * q.mean() + (((mu - b.action) / 2.0) ** 2).mean())
    td3 = build("loss", {"name": "td3", "policy_noise": 0.0, "policy_delay": 1}, "loss", spec=SPEC)
    smooth_free = build("loss", {"name": "td3_bc", "policy_noise": 0.0, "policy_delay": 1}, "loss", spec=SPEC)
    torch.testing.assert_close(smooth_free(b, net, target)["loss_critic"], td3(b, net, target)["loss_critic"])


def test_iql_is_its_equations():
    net, b = network("squashed_gaussian"), batch()
    target = network("squashed_gaussian").requires_grad_(False)
    loss = build(
        "loss", {"name": "iql", "tau": 0.7, "beta": 3.0, "max_weight": 5.0, "value_hidden": [8]}, "loss", spec=SPEC
    )
    out = loss(b, net, target)
    q_t = torch.min(*[q_of(target.critic, i, torch.cat([b.obs, b.action], 1)).squeeze(1) for i in (0, 1)])
    v, v_next = loss.value(b.obs).squeeze(1), loss.value(b.next_obs).squeeze(1)
    u = q_t - v
    torch.testing.assert_close(out["loss_value"], (torch.where(u < 0, 0.3, 0.7) * u**2).mean())
    y = b.reward + 0.9 * (1 - b.terminated.float()) * v_next
    q = [q_of(net.critic, i, torch.cat([b.obs, b.action], 1)).squeeze(1) for i in (0, 1)]
    torch.testing.assert_close(out["loss_critic"], ((q[0] - y) ** 2).mean() + ((q[1] - y) ** 2).mean())
    logp = net.distribution(net(b.obs)).log_prob(b.action)
    weight = torch.exp(3.0 * u).clamp(max=5.0).detach()
    torch.testing.assert_close(out["loss_actor"], -(weight * logp).mean())


def test_iql_s_value_critics_and_actor_each_get_only_their_own_gradient():
    net, b = network("squashed_gaussian"), batch()
    target = network("squashed_gaussian").requires_grad_(False)
    loss = build("loss", {"name": "iql", "value_hidden": [8]}, "loss", spec=SPEC)
    parts = {"loss_value": loss.value, "loss_critic": net.critic, "loss_actor": net.actor}
    for term, moves in parts.items():
        net.zero_grad(set_to_none=True)
        loss.zero_grad(set_to_none=True)
        loss(b, net, target)[term].backward()
        for name, part in parts.items():
            reached = any(p.grad is not None and bool(p.grad.abs().sum() > 0) for p in part.parameters())
            assert reached == (part is moves), f"{term} {'missed' if part is moves else 'reached'} {name}'s part"


def test_cql_is_sac_plus_the_log_sum_exp_over_sampled_actions_minus_the_data_s_q(monkeypatch):
    net, b, n = network("squashed_gaussian"), batch(), 3
    target = network("squashed_gaussian").requires_grad_(False)
    draws = [(torch.rand(k, 2) * 4 - 2, torch.randn(k)) for k in (B, B, 2 * B * n)]  # SAC's two, then CQL's (s and s')
    queue = iter(draws)
    monkeypatch.setattr(SquashedNormal, "rsample_with_log_prob", lambda self: next(queue))
    torch.manual_seed(0)
    uniform = (torch.rand(B * n, 2) * 2 - 1) * 2.0
    torch.manual_seed(0)
    loss = build("loss", {"name": "cql", "alpha_cql": 5.0, "n_actions": n}, "loss", spec=SPEC)
    out = loss(b, net, target)
    obs = b.obs.repeat_interleave(n, 0)
    (now, after), (logp_now, logp_next) = draws[2][0].chunk(2), draws[2][1].chunk(2)
    log_uniform = -2 * math.log(4.0)  # a box of width 4 in 2 dimensions
    for i in (0, 1):
        sampled = torch.cat(
            [
                (q_of(net.critic, i, torch.cat([obs, a], 1)).squeeze(1) - logp).view(B, n)
                for a, logp in ((uniform, torch.full((B * n,), log_uniform)), (now, logp_now), (after, logp_next))
            ],
            1,
        )
        gap = (
            torch.logsumexp(sampled, 1)
            - math.log(3 * n)
            - q_of(net.critic, i, torch.cat([b.obs, b.action], 1)).squeeze(1)
        )
        if i == 0:
            total = gap.mean()
        else:
            total = total + gap.mean()
    torch.testing.assert_close(out["loss_conservative"], 5.0 * total)


def test_discrete_cql_is_double_dqn_plus_log_sum_exp_minus_the_data_s_q():
    net, b = discrete_network("q"), discrete_batch()
    target = discrete_network("q").requires_grad_(False)
    out = build("loss", {"name": "discrete_cql", "alpha": 0.5}, "loss")(b, net, target)
    double = build("loss", {"name": "double_dqn"}, "loss")(b, net, target)
    q = net(b.obs)["q"]
    gap = torch.logsumexp(q, 1) - q[torch.arange(B), b.action]
    torch.testing.assert_close(out["loss_conservative"], 0.5 * gap.mean())
    torch.testing.assert_close(out["loss_td"], double["loss_td"])


@pytest.mark.parametrize("name, values", [("cql", {"alpha_cql": -1}), ("iql", {"tau": 1.0}), ("td3_bc", {"alpha": 0})])
def test_bad_values_are_refused_naming_the_key(name, values):
    from rlfw.errors import ConfigError

    with pytest.raises(ConfigError, match=f"loss.{next(iter(values))}"):
        build("loss", {"name": name, **values}, "loss", spec=SPEC)
