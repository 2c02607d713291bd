"""Munchausen-DQN keeps rlfw's contracts, matches its equation written as loops, reduces to DQN's
target as alpha -> 0 and tau -> 0, and learns CartPole."""

import math

import pytest
import torch

from rlfw.batch import Batch
from rlfw.registry import build
from rlfw.testing import check_loss, network, run


def test_contracts():
    check_loss("munchausen_dqn")
    check_loss("munchausen_dqn", alpha=0.5, tau=0.1, td_loss="mse")


def batch(b: int = 5) -> Batch:
    torch.manual_seed(0)
    return Batch(
        obs=torch.randn(b, 4),
        action=torch.randint(3, (b,)),
        reward=torch.randn(b),
        next_obs=torch.randn(b, 4),
        terminated=torch.tensor([0, 1, 0, 0, 1][:b], dtype=torch.bool),
        discount=torch.full((b,), 0.9),
    )


def targets_by_loops(batch, target, alpha, tau, l0):
    """y for each sample, from the paper's formula with softmax and log written out."""
    ys = []
    for k in range(len(batch.action)):
        q = target(batch.obs[k : k + 1])["q"][0].tolist()
        q_next = target(batch.next_obs[k : k + 1])["q"][0].tolist()

        def log_pi(values, a):
            return values[a] / tau - math.log(sum(math.exp(v / tau) for v in values))

        bonus = alpha * min(0.0, max(l0, tau * log_pi(q, int(batch.action[k]))))
        soft = sum(math.exp(log_pi(q_next, a)) * (q_next[a] - tau * log_pi(q_next, a)) for a in range(len(q_next)))
        ys.append(float(batch.reward[k]) + bonus + 0.9 * (1 - float(batch.terminated[k])) * soft)
    return torch.tensor(ys)


@pytest.mark.parametrize("alpha, tau", [(0.9, 0.5), (0.5, 2.0)])
def test_loss_matches_the_paper_written_as_loops(alpha, tau):
    b, net = batch(), network({"q"})
    target = network({"q"}).requires_grad_(False)
    build("loss", {"name": "munchausen_dqn", "alpha": alpha, "tau": tau, "td_loss": "mse"}, "loss")(b, net, target)
    q_taken = net(b.obs)["q"].gather(1, b.action[:, None]).squeeze(1).detach()
    torch.testing.assert_close(  # the TD error the loss signals to prioritized replay
        b.signals["td_error"], q_taken - targets_by_loops(b, target, alpha, tau, -1.0), rtol=1e-4, atol=1e-5
    )


def test_without_the_bonus_and_at_low_temperature_it_is_dqn():
    b, net = batch(), network({"q"})
    target = network({"q"}).requires_grad_(False)
    build("loss", {"name": "munchausen_dqn", "alpha": 0.0, "tau": 1e-4}, "loss")(b, net, target)
    munchausen = b.signals["td_error"]
    build("loss", {"name": "dqn"}, "loss")(b, net, target)
    torch.testing.assert_close(munchausen, b.signals["td_error"], rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("seed", [0])  # more seeds: python -m rlfw -m algo=... seed=0,1,2 (README)
def test_learns_cartpole_with_its_tuned_defaults(tmp_path, seed):
    summary = run(tmp_path, "algo=munchausen_dqn", "env=cartpole", f"seed={seed}")
    assert summary["eval_return_mean"] >= 475, summary["evals"]
