"""C51's loss: the projected target against the paper's floor/ceil projection, gradients only into the
action taken, Double's picker, KL priorities."""

import copy

import gymnasium as gym
import torch

from rlfw.batch import Batch
from rlfw.env.spec import EnvSpec
from rlfw.loss.c51 import C51Loss
from rlfw.network import build_network

SPEC = EnvSpec("Test-v0", (3,), gym.spaces.Discrete(2), None)
HEAD = {"name": "categorical_q", "num_atoms": 11, "v_min": -5.0, "v_max": 5.0}


def nets(dueling: bool = False):
    torch.manual_seed(0)
    online = build_network({"encoder": {"name": "mlp", "hidden": [8]}, "head": {**HEAD, "dueling": dueling}}, SPEC)
    return online, copy.deepcopy(online)


def batch(n: int = 6) -> Batch:
    g = torch.Generator().manual_seed(1)
    return Batch(
        {
            "obs": torch.randn(n, 3, generator=g),
            "action": torch.randint(2, (n,), generator=g),
            "reward": torch.tensor([0.0, 1.0, -2.5, 4.0, 9.0, 0.3])[:n],  # 9: the target runs past v_max
            "next_obs": torch.randn(n, 3, generator=g),
            "terminated": torch.tensor([False, False, True, False, False, True])[:n],
            "discount": torch.full((n,), 0.9),
        }
    )


def floor_ceil_projection(p_next, reward, discount, terminated, z):
    """Bellemare et al. 2017, Algorithm 1, one sample and one atom at a time."""
    v_min, v_max, n = z[0].item(), z[-1].item(), len(z)
    dz = (v_max - v_min) / (n - 1)
    m = torch.zeros_like(p_next)
    for b in range(len(p_next)):
        for j in range(n):
            tz = min(
                v_max, max(v_min, reward[b].item() + discount[b].item() * (1 - float(terminated[b])) * z[j].item())
            )
            pos = (tz - v_min) / dz
            low, up = int(torch.tensor(pos).floor()), int(torch.tensor(pos).ceil())
            if low == up:
                m[b, low] += p_next[b, j]
            else:
                m[b, low] += p_next[b, j] * (up - pos)
                m[b, up] += p_next[b, j] * (pos - low)
    return m


def test_the_projected_target_is_the_papers_floor_ceil_projection_and_keeps_all_mass():
    online, target = nets()
    data = batch()
    with torch.no_grad():
        m = C51Loss().projected_target(data, online, target)
        next_out = target(data.next_obs)
        best = next_out["q"].argmax(1)
        p_next = next_out["log_pmf"].exp()[torch.arange(len(best)), best]
    expected = floor_ceil_projection(p_next, data.reward, data.discount, data.terminated, target.support)
    torch.testing.assert_close(m, expected)
    torch.testing.assert_close(m.sum(1), torch.ones(len(m)))
    # terminal: the reward alone, split between its two neighbouring atoms (the support is -5, -4, .., 5)
    torch.testing.assert_close(m[2, 2:4], torch.tensor([0.5, 0.5]))  # r = -2.5: atoms -3 and -2
    torch.testing.assert_close(m[5, 5:7], torch.tensor([0.7, 0.3]))  # r = 0.3: atoms 0 and 1


def test_only_the_action_taken_gets_gradient_and_the_target_none():
    online, target = nets()
    target.requires_grad_(True)
    data = batch(n=1)
    C51Loss()(data, online, target)["loss_distribution"].backward()
    assert all(p.grad is None for p in target.parameters())
    grad = online.logits.bias.grad.view(2, -1)  # per action, per atom
    taken = int(data.action[0])
    assert grad[taken].abs().sum() > 0 and torch.all(grad[1 - taken] == 0)


def test_double_lets_the_online_net_pick_the_next_action():
    online, target = nets()
    data = batch()
    with torch.no_grad():  # make the nets disagree: the target's logits of action 0 favour high returns
        target.logits.bias.view(2, -1)[0] += torch.linspace(-3, 3, 11)
        online.logits.bias.view(2, -1)[1] += torch.linspace(-3, 3, 11)
        picks_target = C51Loss(double=False).projected_target(data, online, target)
        picks_online = C51Loss(double=True).projected_target(data, online, target)
    assert target(data.next_obs)["q"].argmax(1).eq(0).all() and online(data.next_obs)["q"].argmax(1).eq(1).all()
    assert not torch.allclose(picks_target, picks_online)


def test_priorities_are_the_kl_divergence_and_zero_where_the_prediction_is_the_target():
    online, target = nets(dueling=True)
    data = batch()
    out = C51Loss()(data, online, target)
    with torch.no_grad():
        m = C51Loss().projected_target(data, online, target)
        log_p = online(data.obs)["log_pmf"][torch.arange(len(m)), data.action.long()]
    kl = (m * (m.clamp(min=1e-12).log() - log_p)).sum(1)
    torch.testing.assert_close(data.signals["td_error"], kl)
    assert (data.signals["td_error"] >= -1e-6).all() and "td_error" not in out
