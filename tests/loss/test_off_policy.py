"""SAC's and TD3's losses against their equations written out by hand, on random batches; and each
part's gradient is its own: the actor's loss never reaches the critics, the critics' never the actor."""

import math

import gymnasium as gym
import pytest
import torch

from rlfw.batch import Batch
from rlfw.env.spec import EnvSpec
from rlfw.network import build_network
from rlfw.network.head.formulas import SQUASH_EPSILON as EPSILON
from rlfw.network.head.squashed import SquashedNormal
from rlfw.registry import build

SPEC = EnvSpec("Box-v0", (3,), gym.spaces.Box(-2.0, 2.0, (2,)), None)
B = 6


def network(head: str) -> torch.nn.Module:
    return build_network(
        {
            "encoder": {"name": "mlp", "hidden": [16], "activation": "relu"},
            "head": {"name": head, "critic_hidden": [16]},
        },
        SPEC,
    )


def q_of(critics: torch.nn.Module, i: int, x: torch.Tensor) -> torch.Tensor:
    """Critic i alone, on [s, a] ``x``: the i-th slice of each batched layer, ReLU between layers."""
    layers = list(zip(critics.weights, critics.biases, strict=True))
    for k, (w, b) in enumerate(layers):
        x = x @ w[i] + b[i]
        x = torch.relu(x) if k < len(layers) - 1 else x
    return x


def batch() -> Batch:
    return Batch(
        obs=torch.randn(B, 3), action=torch.rand(B, 2) * 4 - 2, reward=torch.randn(B), next_obs=torch.randn(B, 3),
        terminated=torch.tensor([0, 1, 0, 0, 1, 0], dtype=torch.bool), discount=torch.full((B,), 0.9),
    )  # fmt: skip


def test_a_squashed_sample_has_the_change_of_variables_log_prob():
    mean, std = torch.randn(4, 2), torch.rand(4, 2) + 0.1
    scale, bias = torch.tensor([2.0, 0.5]), torch.tensor([0.0, 1.0])
    pi = SquashedNormal(mean, std.log(), scale, bias)
    action, logp = pi.rsample_with_log_prob()
    u = torch.atanh((action - bias) / scale)
    density = -0.5 * ((u - mean) / std) ** 2 - std.log() - 0.5 * math.log(2 * math.pi)
    by_hand = (density - torch.log(scale * (1 - torch.tanh(u) ** 2) + EPSILON)).sum(1)
    torch.testing.assert_close(logp, by_hand, rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(pi.log_prob(action), logp, rtol=1e-3, atol=1e-3)
    assert bool(((action >= bias - scale) & (action <= bias + scale)).all())


def test_sac_is_its_equations(monkeypatch):
    net, b = network("squashed_gaussian"), batch()
    target = network("squashed_gaussian").requires_grad_(False)
    loss = build("loss", {"name": "sac", "alpha": 0.3}, "loss", spec=SPEC)
    draws = [(torch.rand(B, 2) * 4 - 2, torch.randn(B)) for _ in range(2)]  # a' with log pi(a'|s'), then a~ with its
    queue = iter(draws)
    monkeypatch.setattr(SquashedNormal, "rsample_with_log_prob", lambda self: next(queue))
    out = loss(b, net, target)
    (next_a, next_logp), (a, logp) = draws
    alpha = 0.3
    q_next = torch.min(
        q_of(target.critic, 0, torch.cat([b.next_obs, next_a], 1)),
        q_of(target.critic, 1, torch.cat([b.next_obs, next_a], 1)),
    ).squeeze(1)
    y = b.reward + 0.9 * (1 - b.terminated.float()) * (q_next - alpha * next_logp)
    q = [q_of(net.critic, i, torch.cat([b.obs, b.action], 1)).squeeze(1) for i in (0, 1)]
    q_pi = torch.min(*[q_of(net.critic, i, torch.cat([b.obs, a], 1)).squeeze(1) for i in (0, 1)])
    torch.testing.assert_close(out["loss_critic"], ((q[0] - y) ** 2).mean() + ((q[1] - y) ** 2).mean())
    torch.testing.assert_close(out["loss_actor"], (alpha * logp - q_pi).mean())
    torch.testing.assert_close(out["loss_alpha"], -(math.log(alpha) * (logp + -2.0)).mean())  # target entropy -|A|


def test_td3_without_smoothing_is_its_equations_and_updates_the_actor_every_policy_delay():
    net, b = network("deterministic_actor"), batch()
    target = network("deterministic_actor").requires_grad_(False)
    loss = build("loss", {"name": "td3", "policy_noise": 0.0, "policy_delay": 2}, "loss", spec=SPEC)
    first, second = loss(b, net, target), loss(b, net, target)
    next_a = target(b.next_obs)["action"]
    q_next = torch.min(*[q_of(target.critic, i, torch.cat([b.next_obs, next_a], 1)).squeeze(1) for i in (0, 1)])
    y = b.reward + 0.9 * (1 - b.terminated.float()) * q_next
    q = [q_of(net.critic, i, torch.cat([b.obs, b.action], 1)).squeeze(1) for i in (0, 1)]
    torch.testing.assert_close(second["loss_critic"], ((q[0] - y) ** 2).mean() + ((q[1] - y) ** 2).mean())
    mu = net(b.obs)["action"]
    torch.testing.assert_close(second["loss_actor"], -q_of(net.critic, 0, torch.cat([b.obs, mu], 1)).mean())
    assert "loss_actor" not in first  # the first of every two updates trains the critics only


def test_td3_smoothing_noise_is_clipped_and_the_target_action_stays_in_bounds(monkeypatch):
    net, b = network("deterministic_actor"), batch()
    target = network("deterministic_actor").requires_grad_(False)
    seen = []
    real = target.q_sa
    monkeypatch.setattr(target, "q_sa", lambda obs, action, frozen=False: (seen.append(action), real(obs, action))[1])
    build("loss", {"name": "td3", "policy_noise": 10.0, "noise_clip": 0.5}, "loss", spec=SPEC)(b, net, target)
    mu = target(b.next_obs)["action"]
    assert bool(((seen[0] - mu).abs() <= 0.5 * 2.0 + 1e-5).all())  # clip 0.5 times the action scale 2
    assert bool(((seen[0] >= -2) & (seen[0] <= 2)).all())


@pytest.mark.parametrize("name, head", [("sac", "squashed_gaussian"), ("td3", "deterministic_actor")])
def test_each_part_gets_only_its_own_gradient(name, head):
    net, b = network(head), batch()
    target = network(head).requires_grad_(False)
    loss = build("loss", {"name": name, "policy_delay": 1} if name == "td3" else {"name": name}, "loss", spec=SPEC)
    for term, moves, stays in (("loss_actor", net.actor, net.critic), ("loss_critic", net.critic, net.actor)):
        net.zero_grad(set_to_none=True)
        loss.zero_grad(set_to_none=True)
        loss(b, net, target)[term].backward()
        assert any(p.grad is not None and bool(p.grad.abs().sum() > 0) for p in moves.parameters()), term
        assert all(p.grad is None or bool((p.grad == 0).all()) for p in stays.parameters()), (
            f"{term} reached the other part"
        )
        assert loss.parameters() is None or all(p.grad is None for p in loss.parameters()), (
            f"{term} reached the temperature"
        )
    if name == "sac":
        net.zero_grad(set_to_none=True)
        loss(b, net, target)["loss_alpha"].backward()
        assert all(p.grad is None for p in net.parameters()) and loss.log_alpha.grad is not None


@pytest.mark.parametrize("head", ["squashed_gaussian", "deterministic_actor"])
def test_batched_critics_read_checkpoints_of_one_mlp_per_critic(head):
    net, b = network(head), batch()
    old = {k: v for k, v in net.state_dict().items() if not k.startswith("critic.")}
    for k, (w, bias) in enumerate(zip(net.critic.weights, net.critic.biases, strict=True)):
        for i in range(len(w)):  # nets.<critic>.<2k>: the k-th Linear of critic i's nn.Sequential
            old[f"critic.nets.{i}.{2 * k}.weight"], old[f"critic.nets.{i}.{2 * k}.bias"] = w[i].T, bias[i, 0]
    copy = network(head)
    copy.load_state_dict(old)  # strict: every key placed
    assert torch.equal(copy.q_sa(b.obs, b.action), net.q_sa(b.obs, b.action))
    x = torch.cat([b.obs, b.action], 1)
    torch.testing.assert_close(
        net.q_sa(b.obs, b.action), torch.stack([q_of(net.critic, i, x).squeeze(1) for i in (0, 1)])
    )
