"""QR-DQN keeps rlfw's contracts, matches its equation written as a plain loop, and learns CartPole."""

import pytest
import torch

from rlfw.batch import Batch
from rlfw.errors import ConfigError
from rlfw.registry import build
from rlfw.testing import check_head, check_loss, network, run


def test_contracts():
    check_head("quantile_q", n_quantiles=5)
    check_loss("qr_dqn")
    check_loss("qr_dqn", double=True, kappa=2.0)


def test_a_loss_that_reads_only_the_quantiles_mean_is_refused(tmp_path):
    """The head declares it is trained through its quantiles: DQN's loss, which reads q, would train only their mean."""
    with pytest.raises(ConfigError, match="network/head=quantile_q is trained through its outputs quantiles"):
        run(tmp_path, "algo=qr_dqn", "loss=dqn")


def reference(theta, y, kappa):
    """Dabney et al. 2018, eq. 10, one sample and one pair (i, j) at a time."""
    n = len(theta)
    total = 0.0
    for i in range(n):
        tau = (2 * i + 1) / (2 * n)
        for j in range(n):
            u = float(y[j] - theta[i])
            huber = 0.5 * u * u if abs(u) <= kappa else kappa * (abs(u) - 0.5 * kappa)
            total += abs(tau - (u < 0)) * huber / kappa / n
    return total


@pytest.mark.parametrize("double", [False, True])
def test_loss_matches_the_paper_written_as_loops(double):
    torch.manual_seed(0)
    loss = build("loss", {"name": "qr_dqn", "kappa": 1.5, "double": double}, "loss")
    net = network({"quantiles"}, {"name": "quantile_q", "n_quantiles": 4})
    target = network({"quantiles"}, {"name": "quantile_q", "n_quantiles": 4}).requires_grad_(False)
    b = 6
    batch = Batch(
        obs=torch.randn(b, 4),
        action=torch.randint(3, (b,)),
        reward=torch.randn(b),
        next_obs=torch.randn(b, 4),
        terminated=torch.tensor([0, 1, 0, 0, 1, 0], dtype=torch.bool),
        discount=torch.full((b,), 0.9),
    )
    out = loss(batch, net, target)
    with torch.no_grad():
        theta = net(batch.obs)["quantiles"][torch.arange(b), batch.action]
        next_q = (net if double else target)(batch.next_obs)["q"]
        next_theta = target(batch.next_obs)["quantiles"][torch.arange(b), next_q.argmax(1)]
    expected = []
    for k in range(b):
        y = batch.reward[k] + 0.9 * (1 - batch.terminated[k].float()) * next_theta[k]
        expected.append(reference(theta[k], y, 1.5))
    torch.testing.assert_close(batch.signals["td_error"], torch.tensor(expected), rtol=1e-5, atol=1e-6)
    torch.testing.assert_close(out["loss_quantile"], torch.tensor(expected).mean(), rtol=1e-5, atol=1e-6)


def test_only_the_taken_actions_quantiles_get_gradient():
    loss = build("loss", {"name": "qr_dqn"}, "loss")
    net = network({"quantiles"}, {"name": "quantile_q", "n_quantiles": 3})
    target = network({"quantiles"}, {"name": "quantile_q", "n_quantiles": 3}).requires_grad_(False)
    obs = torch.randn(1, 4)
    batch = Batch(
        obs=obs,
        action=torch.tensor([2]),
        reward=torch.ones(1),
        next_obs=torch.randn(1, 4),
        terminated=torch.zeros(1, dtype=torch.bool),
        discount=torch.full((1,), 0.99),
    )
    loss(batch, net, target)["loss_quantile"].backward()
    grad = net.quantiles.weight.grad.view(3, 3, -1)  # [action, quantile, features]
    assert grad[2].abs().sum() > 0 and grad[:2].abs().sum() == 0


def test_combines_with_prioritized_replay_n_step_and_double(tmp_path):
    summary = run(
        tmp_path,
        "algo=qr_dqn",
        "replay=prioritized",
        "replay.n_step=3",
        "loss.double=true",
        "total_env_steps=3000",
        "eval.every=3000",
    )
    assert summary["algo"] == "qr_dqn" and summary["updates"] > 0


@pytest.mark.parametrize("seed", [0])  # more seeds: python -m rlfw -m algo=... seed=0,1,2 (README)
def test_learns_cartpole_with_its_tuned_defaults(tmp_path, seed):
    summary = run(tmp_path, "algo=qr_dqn", "env=cartpole", f"seed={seed}")
    assert summary["eval_return_mean"] >= 475, summary["evals"]
